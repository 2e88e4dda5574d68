/**
 * Loading a wallet whose key lives in a key service (`signer.kind` other than `key`; docs/keys.md): no key text is
 * read, the configured `address` is required and its form checked here, and the chain side builds the signer
 * (src/chains/<vm>/). Nothing is asked of the service at load: `checkRemoteSigners` (src/app/remoteSigners.ts)
 * compares each service's public key with the configured address before anything runs.
 */
import { accessSync, constants } from 'node:fs';
import { resolve } from 'node:path';
import { getAddress, isAddress } from 'viem';
import { awsKmsKey } from '../chains/remote/awsKms.ts';
import { turnkeyKey } from '../chains/remote/turnkey.ts';
import { evmJsonRpcSigner } from '../chains/evm/jsonRpcSigner.ts';
import { evmRemoteAccount } from '../chains/evm/remoteAccount.ts';
import { bvmRemoteKey } from '../chains/bvm/remoteSigner.ts';
import { svmRemoteSigner } from '../chains/svm/remoteSigner.ts';
import { parseSvmAddress } from '../chains/svm/wallet.ts';
import { bvmAddressProblem, svmAddressProblem } from './addresses.ts';
import type { ConfigIssue } from './errors.ts';
import type { RemoteSignerConfig } from './signerSchema.ts';
import type { WalletConfig } from './walletSchema.ts';
import type { LoadedWallet } from './wallets.ts';

/** Attaches `value` as a read-only, non-enumerable property (invisible to JSON, spread and default inspect). */
export function withHidden<T extends object, K extends string, V>(target: T, key: K, value: V): T & { readonly [P in K]: V } {
  Object.defineProperty(target, key, { value, enumerable: false, writable: false });
  return target as T & { readonly [P in K]: V }; // the property was defined just above
}

/**
 * Loads a wallet with a key service.
 *
 * @param signer the wallet's `signer:` (not `kind: key`)
 * @param issues receives problems (path `wallets.<name>…`)
 * @returns the wallet with its remote signer, or undefined when an issue was recorded
 */
export function loadRemoteWallet(
  name: string,
  wallet: WalletConfig,
  signer: RemoteSignerConfig,
  configDir: string,
  issues: ConfigIssue[],
): LoadedWallet | undefined {
  const at = `wallets.${name}`;
  if (wallet.privateKey !== undefined || wallet.keyFile !== undefined) {
    issues.push({ path: at, message: `signer.kind ${signer.kind} keeps the key in the service: remove privateKey and keyFile` });
    return undefined;
  }
  if (wallet.address === undefined) {
    issues.push({
      path: `${at}.address`,
      message: `required with signer.kind ${signer.kind}: the address of the service's key (checked at start)`,
    });
    return undefined;
  }
  if (signer.kind === 'remote' && wallet.vm !== 'evm') {
    issues.push({
      path: `${at}.signer.kind`,
      message: `a JSON-RPC signer (kind remote) signs EVM transactions only: use kind awsKms or turnkey for a ${wallet.vm} wallet`,
    });
    return undefined;
  }
  if (signer.kind === 'remote') {
    if (!isAddress(wallet.address)) return notEvmAddress(at, issues);
    const address = getAddress(wallet.address);
    const tls = signer.tls && {
      certFile: resolve(configDir, signer.tls.certFile),
      keyFile: resolve(configDir, signer.tls.keyFile),
      ...(signer.tls.caFile ? { caFile: resolve(configDir, signer.tls.caFile) } : {}),
    };
    const unreadable = tls && [tls.certFile, tls.keyFile, tls.caFile].find((f) => f !== undefined && !isReadable(f));
    if (unreadable) {
      issues.push({ path: `${at}.signer.tls`, message: `cannot read ${unreadable}: give the path of a readable PEM file` });
      return undefined;
    }
    const { signer: rpc, account } = evmJsonRpcSigner(name, address, { ...signer, ...(tls ? { tls } : {}) });
    return withHidden(withHidden({ name, vm: 'evm' as const, address }, 'account', account), 'remote', rpc);
  }
  const key = signer.kind === 'awsKms' ? awsKmsKey(name, signer) : turnkeyKey(name, signer);
  switch (wallet.vm) {
    case 'evm': {
      if (!isAddress(wallet.address)) return notEvmAddress(at, issues);
      const address = getAddress(wallet.address);
      const loaded = withHidden({ name, vm: 'evm' as const, address }, 'account', evmRemoteAccount(name, address, key));
      return withHidden(loaded, 'remote', key);
    }
    case 'svm': {
      const publicKey = parseSvmAddress(wallet.address);
      if (publicKey === undefined) {
        issues.push({ path: `${at}.address`, message: svmAddressProblem(wallet.address) ?? 'not a canonical base58 Solana address' });
        return undefined;
      }
      const loaded = withHidden(
        { name, vm: 'svm' as const, address: publicKey.toBase58() },
        'signer',
        svmRemoteSigner(name, publicKey, key),
      );
      return withHidden(loaded, 'remote', key);
    }
    case 'bvm': {
      if (wallet.addressType !== 'p2wpkh') {
        issues.push({
          path: `${at}.addressType`,
          message: `${wallet.addressType} cannot be signed by signer.kind ${signer.kind} (Ballast asks key services for ECDSA only, and KMS offers no BIP-340 Schnorr signature): use addressType p2wpkh with a secp256k1 key, or kind key`,
        });
        return undefined;
      }
      const problem =
        bvmAddressProblem(wallet.address, wallet.network, 'p2wpkh') ??
        (wallet.address === wallet.address.toLowerCase() ? undefined : `"${wallet.address}": write the bech32 address in lower case`);
      if (problem !== undefined) {
        issues.push({ path: `${at}.address`, message: problem });
        return undefined;
      }
      const k = bvmRemoteKey(name, wallet.address, wallet.network, key);
      const loaded = { name, vm: 'bvm' as const, address: k.address, network: k.network, addressType: k.addressType };
      return withHidden(withHidden(loaded, 'signer', k.signer), 'remote', key);
    }
  }
}

function notEvmAddress(at: string, issues: ConfigIssue[]): undefined {
  issues.push({
    path: `${at}.address`,
    message: 'not an EVM address: expected 0x + 40 hex digits; mixed case must be a valid EIP-55 checksum',
  });
  return undefined;
}

function isReadable(file: string): boolean {
  try {
    accessSync(file, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}
