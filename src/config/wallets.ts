/**
 * Wallet key loading: a private key from the config value (normally `${ENV_VAR}`) or from a key file, turned
 * into a viem `LocalAccount` (secp256k1, EVM address = last 20 bytes of keccak256(pubkey)), and checked against
 * the configured `address` at load time (DESIGN.md: "Check at boot that each configured wallet address equals
 * the address derived from its key").
 *
 * Key file rule: the file must be a regular file that other users cannot read or write (mode bits `o=`, e.g.
 * 600, 640 or 400). A world-readable key file is an error, not a warning: the key may already be exposed, and
 * starting anyway would hide that. Group access is allowed for setups that share secrets through a group.
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { getAddress, isAddress, type Address, type Hex, type LocalAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { ConfigIssue } from './errors.ts';
import type { WalletConfig } from './schema.ts';

/** A wallet ready to sign. `account` is non-enumerable so serialising the config cannot expose it. */
export interface LoadedWallet {
  /** Wallet name (key under `wallets:`). */
  name: string;
  /** VM family; only `evm` wallets load so far. */
  vm: 'evm';
  /** Checksummed address derived from the key (EIP-55). */
  address: Address;
  /** Signing account (viem `privateKeyToAccount`); holds the key in a closure, not as a property. */
  readonly account: LocalAccount;
}

const HEX_KEY_RE = /^(0x)?[0-9a-fA-F]{64}$/;

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
  if (wallet.privateKey !== undefined) secrets.add(wallet.privateKey);
  if (wallet.vm !== 'evm') {
    issues.push({ path: `${at}.vm`, message: `${wallet.vm} wallets cannot sign yet; only evm wallets are supported` });
    return undefined;
  }
  const hasKey = wallet.privateKey !== undefined;
  const hasFile = wallet.keyFile !== undefined;
  if (hasKey === hasFile) {
    issues.push({
      path: at,
      message: hasKey
        ? 'both privateKey and keyFile are set; keep exactly one'
        : 'no key: set privateKey (e.g. ${TREASURY_EVM_KEY}) or keyFile',
    });
    return undefined;
  }
  let keyText: string | undefined;
  let keyPath = `${at}.privateKey`;
  if (wallet.keyFile !== undefined) {
    keyPath = `${at}.keyFile`;
    keyText = readKeyFile(resolve(configDir, wallet.keyFile), keyPath, issues);
    if (keyText === undefined) return undefined;
    secrets.add(keyText);
  } else {
    keyText = (wallet.privateKey ?? '').trim();
  }
  if (!HEX_KEY_RE.test(keyText)) {
    issues.push({
      path: keyPath,
      message: 'not a private key: expected 32 bytes as hex (0x followed by 64 hex digits)',
    });
    return undefined;
  }
  const key = (keyText.startsWith('0x') ? keyText : `0x${keyText}`) as Hex; // regex above guarantees hex
  secrets.add(key);
  let account: LocalAccount;
  try {
    account = privateKeyToAccount(key);
  } catch {
    issues.push({ path: keyPath, message: 'not a valid secp256k1 private key (zero or above the curve order)' });
    return undefined;
  }
  if (wallet.address !== undefined) {
    if (!isAddress(wallet.address)) {
      issues.push({
        path: `${at}.address`,
        message: 'not an EVM address: expected 0x + 40 hex digits; mixed case must be a valid EIP-55 checksum',
      });
      return undefined;
    }
    if (getAddress(wallet.address) !== account.address) {
      issues.push({
        path: `${at}.address`,
        message: `${getAddress(wallet.address)} differs from ${account.address}, the address of the configured key; fix the address or the key`,
      });
      return undefined;
    }
  }
  const loaded = { name, vm: 'evm' as const, address: account.address } as LoadedWallet; // account added below
  Object.defineProperty(loaded, 'account', { value: account, enumerable: false, writable: false });
  return loaded;
}

function readKeyFile(file: string, path: string, issues: ConfigIssue[]): string | undefined {
  let mode: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) {
      issues.push({ path, message: `${file} is not a regular file; point keyFile at the key file` });
      return undefined;
    }
    mode = st.mode;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code; // fs errors carry an errno code
    issues.push({
      path,
      message:
        code === 'ENOENT'
          ? `${file} does not exist; create it or fix the path (relative paths start at the config file's directory)`
          : `${file} cannot be inspected (${code ?? 'error'}); check the path and permissions`,
    });
    return undefined;
  }
  if ((mode & 0o007) !== 0) {
    const octal = (mode & 0o777).toString(8);
    issues.push({
      path,
      message: `${file} is accessible by other users (mode ${octal}); run chmod 600 ${file} and consider rotating the key`,
    });
    return undefined;
  }
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code; // fs errors carry an errno code
    issues.push({ path, message: `${file} cannot be read (${code ?? 'error'}); make it readable by the Ballast user` });
    return undefined;
  }
}
