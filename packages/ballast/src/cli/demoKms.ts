/**
 * `ballast demo --signer kms-local` (docs/keys.md "Trying it locally"): the sandbox's local KMS endpoint holds
 * every demo wallet's key and Ballast signs through the real AWS SDK client, with nothing but public addresses in its
 * config. The sandbox's funded dev keys are imported into the endpoint (they are sandbox-only keys), and a copy of
 * config/demo.yaml is written whose wallets name the KMS keys instead of the keys themselves.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { base58, createBase58check } from '@scure/base';
import { hexToBytes, sha256 } from 'viem';
import type { SandboxHandle } from './sandboxHandle.ts';

/** What `ballast demo` needs of the sandbox's local KMS endpoint (packages/sandbox/src/kms/kmsServer.ts). */
export interface LocalKmsHandle {
  url: string;
  region: string;
  createKey(spec: 'ECC_SECG_P256K1' | 'ECC_NIST_EDWARDS25519', secret?: Uint8Array): string;
  close(): Promise<void>;
}

/** Credentials the AWS SDK's default provider chain reads; the local endpoint does not check them. */
export const LOCAL_KMS_CREDENTIALS = {
  AWS_ACCESS_KEY_ID: 'AKIDLOCALKMS',
  AWS_SECRET_ACCESS_KEY: 'local-kms-only',
  // The SDK's one-time note that its releases after January 2027 need Node 22 (docs/keys.md): noise in the demo.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
} as const;

/** base58check of a WIF (version byte, 32-byte key, 0x01 when compressed; a double SHA-256 checksum). */
const wifCodec = createBase58check((data) => hexToBytes(sha256(data)));

/**
 * Imports the demo's treasury keys (EVM, Solana, Bitcoin) into `kms` and writes `demo.yaml` with every wallet
 * signing through it: EVM and Bitcoin (P2WPKH) as ECC_SECG_P256K1 keys, Solana as an ECC_NIST_EDWARDS25519 key (the
 * 32-byte seed, the first half of its 64-byte secret key).
 *
 * @param demoConfig path of config/demo.yaml
 * @param dir where the copy is written (next to the demo store)
 * @returns the path of the written config
 */
export function writeKmsDemoConfig(demoConfig: string, dir: string, sandbox: SandboxHandle, kms: LocalKmsHandle): string {
  const doc = parseDocument(readFileSync(demoConfig, 'utf8'));
  const kmsSigner = (keyId: string) => ({ kind: 'awsKms', keyId, region: kms.region, endpoint: kms.url });
  const keyId = kms.createKey('ECC_SECG_P256K1', hexToBytes(sandbox.accounts.treasury.privateKey as `0x${string}`));
  doc.setIn(['wallets', 'treasury'], {
    vm: 'evm',
    address: sandbox.accounts.treasury.address,
    signer: kmsSigner(keyId),
  });
  const solana = sandbox.solana;
  if (solana) {
    const seed = base58.decode(solana.treasury.secretKeyBase58).slice(0, 32);
    const solKey = kms.createKey('ECC_NIST_EDWARDS25519', seed);
    doc.setIn(['wallets', 'treasury_sol'], { vm: 'svm', address: solana.treasury.address, signer: kmsSigner(solKey) });
  }
  const bitcoin = sandbox.bitcoin;
  if (bitcoin) {
    const secret = wifCodec.decode(bitcoin.treasury.wif).slice(1, 33); // after the version byte
    const btcKey = kms.createKey('ECC_SECG_P256K1', secret);
    doc.setIn(['wallets', 'treasury_btc'], {
      vm: 'bvm',
      network: 'regtest',
      addressType: 'p2wpkh',
      address: bitcoin.treasury.address,
      signer: kmsSigner(btcKey),
    });
  }
  const file = path.join(dir, 'ballast-demo-kms.yaml');
  writeFileSync(file, doc.toString());
  return file;
}
