/**
 * Wallet key loading: the key text comes from the config value (normally `${ENV_VAR}`) or from a key file
 * (`keyFile.ts` checks its permissions), is parsed per VM family here, and is turned into a signer by
 * `src/chains/<vm>/wallet.ts` (the only place that constructs signers). The derived address is checked against
 * the configured `address` at load time (docs/design.md: "Check at boot that each configured wallet address equals
 * the address derived from its key").
 *
 * Key formats: evm `0x` + 64 hex digits; svm the 64-byte secret key as base58 (Phantom's export) or as a JSON
 * array of byte values (`solana-keygen new -o`), either in `privateKey` or in the key file; bvm a compressed
 * WIF. Signers are attached as non-enumerable properties so that JSON.stringify, object spread and default
 * `util.inspect` of the configuration cannot expose them; key text never appears in an issue.
 */
import { resolve } from 'node:path';
import { base58 } from '@scure/base';
import { bytesToHex, getAddress, isAddress, type Address, type Hex, type LocalAccount } from 'viem';
import { bvmKeyFromWif, type BvmAddressType, type BvmNetwork, type BvmRemoteSigner, type BvmSigner } from '../chains/bvm/wallet.ts';
import { evmSignerFromKey } from '../chains/evm/wallet.ts';
import { svmKeypairSigner, type SvmSigner } from '../chains/svm/signer.ts';
import { SVM_SECRET_KEY_BYTES, svmSignerFromSecretKey } from '../chains/svm/wallet.ts';
import { addressMismatch, bvmAddressProblem, svmAddressProblem } from './addresses.ts';
import type { ConfigIssue } from './errors.ts';
import { readKeyFile } from './keyFile.ts';
import type { BvmWalletConfig, SvmWalletConfig, WalletConfig } from './walletSchema.ts';
import type { RemoteKey } from '../chains/remote/remoteKey.ts';
import type { JsonRpcSigner } from '../chains/evm/jsonRpcSigner.ts';
import { loadRemoteWallet, withHidden } from './remoteWallets.ts';

/** An EVM wallet ready to sign. `account` is non-enumerable so serialising the config cannot expose it. */
export interface LoadedEvmWallet {
  /** Wallet name (key under `wallets:`). */
  name: string;
  vm: 'evm';
  /** Checksummed address derived from the key (EIP-55), or the configured one of a key service's key. */
  address: Address;
  /** Signing account (viem); holds the key in a closure, or asks the key service (src/chains/evm/remoteAccount.ts). */
  readonly account: LocalAccount;
  /** The key service that signs for it (`signer.kind` not `key`; docs/keys.md); absent: the key is on this host. */
  readonly remote?: RemoteKey | JsonRpcSigner;
}

/** A Solana wallet ready to sign. `signer` is non-enumerable (a key on the host is in its closure). */
export interface LoadedSvmWallet {
  name: string;
  vm: 'svm';
  /** base58 public key (case-sensitive). */
  address: string;
  /** Ed25519 signer: the key pair on this host, or the key service (src/chains/svm/signer.ts, remoteSigner.ts). */
  readonly signer: SvmSigner;
  /** The key service that signs for it (`signer.kind` not `key`; docs/keys.md); absent: the key is on this host. */
  readonly remote?: RemoteKey;
}

/** A Bitcoin wallet ready to sign. `signer` is non-enumerable. */
export interface LoadedBvmWallet {
  name: string;
  vm: 'bvm';
  /** bech32 (p2wpkh) or bech32m (p2tr) address, lower case. */
  address: string;
  network: BvmNetwork;
  addressType: BvmAddressType;
  /**
   * Compressed public key of the WIF (33 bytes, lower-case hex without 0x; untweaked for p2tr); absent for a key
   * service's key (read from the service at start and when it signs).
   */
  publicKey?: string;
  /** p2tr only: x-only internal key (32 bytes hex), what a PSBT input's `tapInternalKey` must hold. */
  internalPubkey?: string;
  /**
   * bitcoinjs signer; for p2tr it holds the BIP-86 tweaked key and signs Schnorr. A key service's (p2wpkh only)
   * connects first (src/chains/bvm/remoteSigner.ts).
   */
  readonly signer: BvmSigner | BvmRemoteSigner;
  /** The key service that signs for it (`signer.kind` not `key`; docs/keys.md); absent: the key is on this host. */
  readonly remote?: RemoteKey;
}

/** A wallet ready to sign, by VM family. */
export type LoadedWallet = LoadedEvmWallet | LoadedSvmWallet | LoadedBvmWallet;

const HEX_KEY_RE = /^(0x)?[0-9a-fA-F]{64}$/;
const BASE58_KEY_RE = /^[1-9A-HJ-NP-Za-km-z]{48,100}$/;

/** The key text of a wallet and the YAML path it came from. */
interface KeyText {
  text: string;
  path: string;
}

/**
 * Loads one wallet's key and checks it.
 *
 * @param name wallet name (for messages)
 * @param wallet the wallet as written in the file, after `${VAR}` resolution
 * @param configDir directory against which a relative `keyFile` resolves
 * @param issues receives problems (path `wallets.<name>...`); key material never appears in them
 * @param secrets receives the key text so callers can scrub it from any message
 * @returns the loaded wallet, or undefined when an issue was recorded
 */
export function loadWallet(
  name: string,
  wallet: WalletConfig,
  configDir: string,
  issues: ConfigIssue[],
  secrets: Set<string>,
): LoadedWallet | undefined {
  const at = `wallets.${name}`;
  if (wallet.signer !== undefined && wallet.signer.kind !== 'key') return loadRemoteWallet(name, wallet, wallet.signer, configDir, issues);
  const key = readKeyText(at, wallet, configDir, issues, secrets);
  if (key === undefined) return undefined;
  switch (wallet.vm) {
    case 'evm':
      return loadEvm(name, at, key, wallet.address, issues, secrets);
    case 'svm':
      return loadSvm(name, at, key, wallet, issues);
    case 'bvm':
      return loadBvm(name, at, key, wallet, issues);
  }
}

function readKeyText(
  at: string,
  wallet: WalletConfig,
  configDir: string,
  issues: ConfigIssue[],
  secrets: Set<string>,
): KeyText | undefined {
  if (wallet.privateKey !== undefined) secrets.add(wallet.privateKey);
  const hasKey = wallet.privateKey !== undefined;
  const hasFile = wallet.keyFile !== undefined;
  if (hasKey === hasFile) {
    const example = { evm: 'TREASURY_EVM_KEY', svm: 'TREASURY_SOL_KEY', bvm: 'TREASURY_BTC_WIF' }[wallet.vm];
    issues.push({
      path: at,
      message: hasKey ? 'both privateKey and keyFile are set; keep exactly one' : `no key: set privateKey (e.g. \${${example}}) or keyFile`,
    });
    return undefined;
  }
  if (wallet.keyFile === undefined) return { text: (wallet.privateKey ?? '').trim(), path: `${at}.privateKey` };
  const path = `${at}.keyFile`;
  const text = readKeyFile(resolve(configDir, wallet.keyFile), path, issues);
  if (text === undefined) return undefined;
  secrets.add(text);
  return { text, path };
}

function loadEvm(
  name: string,
  at: string,
  key: KeyText,
  address: string | undefined,
  issues: ConfigIssue[],
  secrets: Set<string>,
): LoadedEvmWallet | undefined {
  if (!HEX_KEY_RE.test(key.text)) {
    const hint =
      BASE58_KEY_RE.test(key.text) || key.text.startsWith('[')
        ? '; base58 and JSON-array keys belong to svm (Solana) or bvm (WIF) wallets: set vm'
        : '';
    issues.push({ path: key.path, message: `not a private key: expected 32 bytes as hex (0x followed by 64 hex digits)${hint}` });
    return undefined;
  }
  const hex = (key.text.startsWith('0x') ? key.text : `0x${key.text}`) as Hex; // HEX_KEY_RE guarantees hex digits
  secrets.add(hex);
  const result = evmSignerFromKey(hex);
  if (!result.ok) {
    issues.push({ path: key.path, message: result.problem });
    return undefined;
  }
  const { account } = result.signer;
  if (address !== undefined) {
    if (!isAddress(address)) {
      issues.push({
        path: `${at}.address`,
        message: 'not an EVM address: expected 0x + 40 hex digits; mixed case must be a valid EIP-55 checksum',
      });
      return undefined;
    }
    if (getAddress(address) !== account.address) {
      issues.push({ path: `${at}.address`, message: addressMismatch(getAddress(address), account.address, 'EIP-55') });
      return undefined;
    }
  }
  return withHidden({ name, vm: 'evm' as const, address: account.address }, 'account', account);
}

/** Decodes Solana secret-key text: a JSON array of byte values, or base58. */
function svmSecretBytes(key: KeyText, issues: ConfigIssue[]): Uint8Array | undefined {
  const wrong = (message: string): undefined => {
    issues.push({ path: key.path, message });
    return undefined;
  };
  if (key.text.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(key.text);
    } catch {
      return wrong('not a Solana secret key: the text starts like a JSON array but is not valid JSON; use the file solana-keygen wrote');
    }
    const ok = Array.isArray(parsed) && parsed.every((b) => Number.isInteger(b) && b >= 0 && b <= 255);
    if (!ok) return wrong('not a Solana secret key: expected a JSON array of byte values (integers 0-255), as solana-keygen writes it');
    return Uint8Array.from(parsed as number[]); // checked just above: an array of integers 0-255
  }
  if (HEX_KEY_RE.test(key.text) || /^0x[0-9a-fA-F]+$/.test(key.text)) {
    return wrong(
      'not a Solana secret key: this is hex (an EVM key?); svm wallets take the 64-byte secret key in base58 (Phantom export) or a solana-keygen JSON file',
    );
  }
  try {
    return base58.decode(key.text);
  } catch {
    return wrong('not a Solana secret key: expected base58 (as Phantom exports it) or a JSON array of 64 byte values (solana-keygen)');
  }
}

function loadSvm(name: string, at: string, key: KeyText, wallet: SvmWalletConfig, issues: ConfigIssue[]): LoadedSvmWallet | undefined {
  const bytes = svmSecretBytes(key, issues);
  if (bytes === undefined) return undefined;
  const result = svmSignerFromSecretKey(bytes);
  if (!result.ok) {
    // 37/38 bytes is what a base58check WIF decodes to (payload and checksum)
    const wif =
      result.reason === 'length' && (bytes.length === 37 || bytes.length === 38)
        ? ' (this looks like a Bitcoin WIF: use a bvm wallet)'
        : '';
    issues.push({ path: key.path, message: `not a Solana secret key: ${result.problem}${wif}` });
    return undefined;
  }
  const { address, keypair } = result.signer;
  if (wallet.address !== undefined) {
    const problem = svmAddressProblem(wallet.address);
    if (problem !== undefined || wallet.address !== address) {
      const message = problem ?? addressMismatch(wallet.address, address, 'Solana addresses are case-sensitive');
      issues.push({ path: `${at}.address`, message });
      return undefined;
    }
  }
  return withHidden({ name, vm: 'svm' as const, address }, 'signer', svmKeypairSigner(keypair));
}

function loadBvm(name: string, at: string, key: KeyText, wallet: BvmWalletConfig, issues: ConfigIssue[]): LoadedBvmWallet | undefined {
  if (HEX_KEY_RE.test(key.text) || key.text.startsWith('[')) {
    const what = key.text.startsWith('[') ? 'a JSON byte array (a Solana key file?)' : 'hex (an EVM key?)';
    issues.push({
      path: key.path,
      message: `not a WIF private key: this is ${what}; bvm wallets take a compressed WIF (K…/L… on mainnet, c… on testnet/regtest)`,
    });
    return undefined;
  }
  const result = bvmKeyFromWif(key.text, { network: wallet.network, addressType: wallet.addressType });
  if (!result.ok) {
    if (result.reason === 'network') issues.push({ path: `${at}.network`, message: result.problem });
    else {
      const solana =
        result.reason === 'malformed' && svmKeyLength(key.text) === SVM_SECRET_KEY_BYTES
          ? ' (this looks like a Solana secret key: use an svm wallet)'
          : '';
      issues.push({ path: key.path, message: `${result.problem}${solana}` });
    }
    return undefined;
  }
  const k = result.key;
  if (wallet.address !== undefined) {
    const problem = bvmAddressProblem(wallet.address, wallet.network, wallet.addressType);
    if (problem !== undefined || wallet.address !== k.address) {
      const message = problem ?? addressMismatch(wallet.address, k.address, 'bech32 addresses are written in lower case');
      issues.push({ path: `${at}.address`, message });
      return undefined;
    }
  }
  const loaded: Omit<LoadedBvmWallet, 'signer'> = {
    name,
    vm: 'bvm',
    address: k.address,
    network: k.network,
    addressType: k.addressType,
    publicKey: bytesToHex(k.publicKey).slice(2),
    ...(k.internalPubkey !== undefined ? { internalPubkey: bytesToHex(k.internalPubkey).slice(2) } : {}),
  };
  return withHidden(loaded, 'signer', k.signer);
}

/** Byte length of base58 text, or undefined when it is not base58. */
function svmKeyLength(text: string): number | undefined {
  try {
    return base58.decode(text).length;
  } catch {
    return undefined;
  }
}
