/**
 * Signing through AWS KMS (src/chains/remote/awsKms.ts, secpSignature.ts, src/chains/evm/remoteAccount.ts) with the
 * real `@aws-sdk/client-kms` client against the sandbox's local KMS endpoint (the JSON 1.1 wire protocol of
 * GetPublicKey and Sign): public keys decode from their DER SubjectPublicKeyInfo; a high-s DER signature becomes the
 * low-s one with the right recovery id; an EVM transaction and an EIP-191 message signed through KMS recover the
 * wallet's address and equal what the same key signs locally (RFC 6979 aside, they verify the same); a signature by
 * another key, a corrupted one, a refusal and a timeout each fail with the signer named and nothing returned.
 */
import { expectEvmAccountSigns } from './evmAccountSigns.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secp256k1 } from '@noble/curves/secp256k1';
import { ed25519 } from '@noble/curves/ed25519';
import { hexToBytes, keccak256, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startLocalKms, type LocalKms } from '../../../../packages/sandbox/src/kms/kmsServer.ts';
import { awsKmsKey } from '../../../../packages/ballast/src/chains/remote/awsKms.ts';
import type { RemoteKey } from '../../../../packages/ballast/src/chains/remote/remoteKey.ts';
import { recoverableSignature } from '../../../../packages/ballast/src/chains/remote/secpSignature.ts';
import { checkEvmRemoteAddress, evmRemoteAccount } from '../../../../packages/ballast/src/chains/evm/remoteAccount.ts';
import { SignerError } from '../../../../packages/ballast/src/chains/remote/signerError.ts';

let kms: LocalKms;
beforeAll(async () => {
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIDLOCALKMS', AWS_SECRET_ACCESS_KEY: 'local-kms-secret' });
  kms = await startLocalKms();
});
afterAll(() => kms?.close());

function keyFor(keyId: string, timeoutMs = 2000): RemoteKey {
  return awsKmsKey('treasury', { kind: 'awsKms', keyId, region: kms.region, endpoint: kms.url, timeoutMs });
}

describe('a secp256k1 signature from a key service', () => {
  it('normalizes a high s and finds the recovery id; refuses another key and malformed DER', () => {
    const secret = secp256k1.utils.randomPrivateKey();
    const pub = secp256k1.getPublicKey(secret, false);
    let highSeen = false;
    for (let i = 0; i < 16; i++) {
      const digest = hexToBytes(keccak256(new Uint8Array([i])));
      const raw = secp256k1.sign(digest, secret, { lowS: false });
      highSeen ||= raw.hasHighS();
      const sig = recoverableSignature({ der: raw.toDERRawBytes() }, digest, pub, { wallet: 'w', kind: 'awsKms' });
      expect(recoverableSignature({ r: raw.r, s: raw.s }, digest, pub, { wallet: 'w', kind: 'turnkey' })).toEqual(sig);
      expect(sig.s <= secp256k1.CURVE.n / 2n).toBe(true);
      expect(
        secp256k1.Signature.fromCompact(raw.normalizeS().toCompactRawBytes())
          .addRecoveryBit(sig.recovery)
          .recoverPublicKey(digest)
          .toRawBytes(false),
      ).toEqual(pub);
    }
    expect(highSeen).toBe(true);
    const digest = hexToBytes(keccak256('0x01'));
    const other = secp256k1.sign(digest, secp256k1.utils.randomPrivateKey()).toDERRawBytes();
    expect(() => recoverableSignature({ der: other }, digest, pub, { wallet: 'w', kind: 'awsKms' })).toThrow(/does not verify/);
    expect(() => recoverableSignature({ der: new Uint8Array([1, 2, 3]) }, digest, pub, { wallet: 'w', kind: 'awsKms' })).toThrow(/not DER/);
    expect(() => recoverableSignature({ r: 0n, s: 1n }, digest, pub, { wallet: 'w', kind: 'turnkey' })).toThrow(/not in 1..n-1/);
  });
});

describe('AWS KMS through the SDK client', () => {
  it('reads both key types from their DER public keys', async () => {
    const secret = secp256k1.utils.randomPrivateKey();
    const seed = ed25519.utils.randomPrivateKey();
    const secp = await keyFor(kms.createKey('ECC_SECG_P256K1', secret)).publicKey();
    const ed = await keyFor(kms.createKey('ECC_NIST_EDWARDS25519', seed)).publicKey();
    expect(secp).toEqual({ curve: 'secp256k1', bytes: secp256k1.getPublicKey(secret, false) });
    expect(ed).toEqual({ curve: 'ed25519', bytes: ed25519.getPublicKey(seed) });
    const message = new TextEncoder().encode('ballast');
    const signature = await keyFor(kms.createKey('ECC_NIST_EDWARDS25519', seed)).signEd25519(message, (sig) => sig);
    expect(ed25519.verify(signature, message, ed.bytes)).toBe(true);
  });

  it('signs EVM transactions and messages that recover the wallet address', async () => {
    const local = generatePrivateKey();
    const address = privateKeyToAccount(local).address;
    const account = evmRemoteAccount('treasury', address, keyFor(kms.createKey('ECC_SECG_P256K1', hexToBytes(local))));
    await checkEvmRemoteAddress('treasury', address, keyFor(kms.createKey('ECC_SECG_P256K1', hexToBytes(local))));
    await expectEvmAccountSigns(account, address, 6);
  });

  it('refuses another key, a corrupted signature, a policy refusal and a timeout, naming the signer', async () => {
    const local = generatePrivateKey();
    const address: Address = privateKeyToAccount(local).address;
    const keyId = kms.createKey('ECC_SECG_P256K1', hexToBytes(local));
    const key = keyFor(keyId, 300);
    const outcomes: string[] = [];
    key.observer = (e) => outcomes.push(e.outcome);
    const account = evmRemoteAccount('treasury', address, key);
    const sign = () => account.signMessage({ message: 'x' });
    const cases = [
      [{ kind: 'wrongKey' }, 'SIGNER_BAD_SIGNATURE', /does not verify/],
      [{ kind: 'corrupt' }, 'SIGNER_BAD_SIGNATURE', /does not verify|not DER/],
      [{ kind: 'deny', reason: 'no' }, 'SIGNER_REFUSED', /refused: AccessDeniedException: no/],
      [{ kind: 'slowMs', ms: 2000 }, 'SIGNER_UNAVAILABLE', /failed/],
    ] as const;
    for (const [fault, code, message] of cases) {
      kms.setFault(keyId, fault);
      const error = await sign().catch((e: unknown) => e);
      expect(error, fault.kind).toBeInstanceOf(SignerError);
      expect((error as SignerError).code).toBe(code);
      expect((error as Error).message).toMatch(/^signer awsKms of wallet treasury: /);
      expect((error as Error).message).toMatch(message);
    }
    // GetPublicKey once (ok), then each Sign counted by what became of it.
    expect(outcomes).toEqual(['ok', 'bad_signature', 'bad_signature', 'refused', 'unavailable']);
    kms.setFault(keyId, undefined);
    const stranger = privateKeyToAccount(generatePrivateKey()).address;
    await expect(checkEvmRemoteAddress('treasury', stranger, keyFor(keyId))).rejects.toThrow(/SIGNER_KEY_MISMATCH|the key's address is/);
  });
});
