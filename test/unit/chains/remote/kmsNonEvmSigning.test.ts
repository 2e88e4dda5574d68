/**
 * Solana and Bitcoin signing through AWS KMS (src/chains/svm/remoteSigner.ts, src/chains/bvm/remoteSigner.ts) with
 * the real `@aws-sdk/client-kms` client against the sandbox's local KMS endpoint:
 * - a Solana v0 transaction and a withdrawal digest signed through an Ed25519 KMS key are byte for byte what the
 *   same key signs on the host (Ed25519 is deterministic, RFC 8032) and verify against the wallet's address;
 * - a deposit PSBT signed through a secp256k1 KMS key (P2WPKH) has, in every input, a low-s signature that
 *   verifies over the BIP-143 sighash computed here, independently of bitcoinjs's PSBT code;
 * - a signature by another key, a corrupted one and a refusal each fail with a SignerError naming the signer and
 *   nothing is returned; another key than the address is refused before any Sign; the PSBT checks still refuse
 *   before the service is asked.
 */
import { ed25519 } from '@noble/curves/ed25519';
import { secp256k1 } from '@noble/curves/secp256k1';
import { Keypair, PublicKey, SystemProgram, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { networks, payments, script as btcScript, Transaction } from 'bitcoinjs-lib';
import { ECPairFactory } from 'ecpair';
import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalKms, type LocalKms } from '../../../../packages/sandbox/src/kms/kmsServer.ts';
import { awsKmsKey } from '../../../../packages/ballast/src/chains/remote/awsKms.ts';
import type { RemoteKey } from '../../../../packages/ballast/src/chains/remote/remoteKey.ts';
import { SignerError } from '../../../../packages/ballast/src/chains/remote/signerError.ts';
import { checkSvmRemoteAddress, svmRemoteSigner } from '../../../../packages/ballast/src/chains/svm/remoteSigner.ts';
import { svmKeypairSigner } from '../../../../packages/ballast/src/chains/svm/signer.ts';
import { signSvmWithdrawalDigest } from '../../../../packages/ballast/src/chains/svm/withdrawalSigning.ts';
import { bvmRemoteKey, checkBvmRemoteAddress } from '../../../../packages/ballast/src/chains/bvm/remoteSigner.ts';
import { signBvmPsbt } from '../../../../packages/ballast/src/chains/bvm/signPsbt.ts';
import { bvmKeyFromWif } from '../../../../packages/ballast/src/chains/bvm/wallet.ts';
import { buildPsbt, bvmCase, SIGN_LIMITS, standardSpec, type BvmCase } from '../../../fixtures/bvmQuote.ts';

let kms: LocalKms;
beforeAll(async () => {
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIDLOCALKMS', AWS_SECRET_ACCESS_KEY: 'local-kms-secret' });
  kms = await startLocalKms();
});
afterAll(() => kms?.close());

function keyFor(keyId: string): RemoteKey {
  return awsKmsKey('treasury', { kind: 'awsKms', keyId, region: kms.region, endpoint: kms.url, timeoutMs: 2000 });
}

const FAULTS = [
  [{ kind: 'wrongKey' }, 'SIGNER_BAD_SIGNATURE', /signer awsKms of wallet treasury: the signature does not verify/],
  [{ kind: 'corrupt' }, 'SIGNER_BAD_SIGNATURE', /signer awsKms of wallet treasury: the signature (does not verify|is not DER)/],
  [
    { kind: 'deny', reason: 'kms:Sign denied' },
    'SIGNER_REFUSED',
    /signer awsKms of wallet treasury: Sign on key .* refused: AccessDeniedException/,
  ],
] as const;

/** Rejects with a SignerError of `code` whose message matches `pattern`. */
async function expectSignerError(promise: Promise<unknown>, code: string, pattern: RegExp): Promise<void> {
  const error = await promise.then(
    (value) => ({ returned: value }),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SignerError);
  expect(error).toMatchObject({ code, message: expect.stringMatching(pattern) });
}

describe('a Solana wallet with an Ed25519 KMS key', () => {
  const keypair = Keypair.generate();
  const transferTx = () => {
    const message = new TransactionMessage({
      payerKey: keypair.publicKey,
      recentBlockhash: PublicKey.unique().toBase58(),
      instructions: [SystemProgram.transfer({ fromPubkey: keypair.publicKey, toPubkey: PublicKey.unique(), lamports: 5_000n })],
    }).compileToV0Message();
    return new VersionedTransaction(message);
  };

  it('signs a v0 transaction and a withdrawal digest exactly as the key on the host does', async () => {
    const keyId = kms.createKey('ECC_NIST_EDWARDS25519', keypair.secretKey.slice(0, 32));
    const remote = svmRemoteSigner('treasury', keypair.publicKey, keyFor(keyId));
    await checkSvmRemoteAddress('treasury', keypair.publicKey.toBase58(), keyFor(keyId));
    const viaKms = transferTx();
    viaKms.addSignature(remote.publicKey, await remote.signMessage(viaKms.message.serialize()));
    const local = new VersionedTransaction(viaKms.message);
    local.sign([keypair]);
    expect(Buffer.from(viaKms.serialize()).equals(Buffer.from(local.serialize()))).toBe(true);
    expect(ed25519.verify(viaKms.signatures[0]!, viaKms.message.serialize(), keypair.publicKey.toBytes())).toBe(true);

    const digest = 'ab'.repeat(32);
    const signed = await signSvmWithdrawalDigest(remote, digest);
    expect(signed).toBe(await signSvmWithdrawalDigest(svmKeypairSigner(keypair), digest));
    expect(ed25519.verify(signed.slice(2), new TextEncoder().encode(digest), keypair.publicKey.toBytes())).toBe(true);
    expect(kms.signCount(keyId)).toBe(2);
  });

  it.each(FAULTS)('refuses a %o answer: nothing is returned', async (fault, code, pattern) => {
    const keyId = kms.createKey('ECC_NIST_EDWARDS25519', keypair.secretKey.slice(0, 32));
    const remote = svmRemoteSigner('treasury', keypair.publicKey, keyFor(keyId));
    kms.setFault(keyId, fault);
    await expectSignerError(remote.signMessage(transferTx().message.serialize()), code, pattern);
    await expectSignerError(signSvmWithdrawalDigest(remote, 'cd'.repeat(32)), code, pattern);
  });

  it('refuses another key than the address, and a secp256k1 key, before any Sign', async () => {
    const other = kms.createKey('ECC_NIST_EDWARDS25519');
    const remote = svmRemoteSigner('treasury', keypair.publicKey, keyFor(other));
    await expectSignerError(
      remote.signMessage(new Uint8Array([1])),
      'SIGNER_KEY_MISMATCH',
      new RegExp(`wallets.treasury.address is ${keypair.publicKey.toBase58()}`),
    );
    const secp = kms.createKey('ECC_SECG_P256K1');
    await expectSignerError(
      checkSvmRemoteAddress('treasury', keypair.publicKey.toBase58(), keyFor(secp)),
      'SIGNER_UNSUPPORTED',
      /needs an Ed25519 key \(KMS: ECC_NIST_EDWARDS25519\), this one is secp256k1/,
    );
    expect([kms.signCount(other), kms.signCount(secp)]).toEqual([0, 0]);
  });
});

describe('a Bitcoin P2WPKH wallet with a secp256k1 KMS key', () => {
  const ECPair = ECPairFactory(ecc);
  const pair = ECPair.makeRandom({ network: networks.regtest });
  const loaded = bvmKeyFromWif(pair.toWIF(), { network: 'regtest', addressType: 'p2wpkh' });
  if (!loaded.ok) throw new Error(loaded.problem);
  const local = loaded.key;
  /** The fixtures' deposit case of the wallet (its two UTXOs, the depository, the memo). */
  const c: BvmCase = bvmCase({
    name: 'kms',
    kind: 'p2wpkh',
    network: networks.regtest,
    address: local.address,
    script: payments.p2wpkh({ pubkey: local.publicKey, network: networks.regtest }).output!, // a valid key has an output
    signer: local.signer,
  });
  const kmsKeyOf = () => kms.createKey('ECC_SECG_P256K1', Uint8Array.from(pair.privateKey!)); // makeRandom has a private key

  it('signs every input with a low-s signature that verifies over the BIP-143 sighash', async () => {
    const keyId = kmsKeyOf();
    const remote = bvmRemoteKey('treasury', local.address, 'regtest', keyFor(keyId));
    const spec = standardSpec(c);
    const signed = await signBvmPsbt(remote, buildPsbt(c, spec).toHex(), SIGN_LIMITS);
    const tx = Transaction.fromHex(signed.rawTx);
    expect(signed.txid).toBe(tx.getId());
    const scriptCode = payments.p2pkh({ pubkey: local.publicKey }).output!; // p2pkh of a key has an output
    tx.ins.forEach((input, i) => {
      const [der, pub] = input.witness;
      const decoded = btcScript.signature.decode(der!);
      const hash = tx.hashForWitnessV0(i, scriptCode, spec.inputs[i]!.value, decoded.hashType);
      expect(decoded.hashType).toBe(Transaction.SIGHASH_ALL);
      expect(Buffer.from(pub!).equals(Buffer.from(local.publicKey))).toBe(true);
      expect(ecc.verify(hash, local.publicKey, decoded.signature, true)).toBe(true); // strict: low s only
      expect(secp256k1.Signature.fromCompact(decoded.signature).hasHighS()).toBe(false);
    });
    expect(kms.signCount(keyId)).toBe(tx.ins.length);
    expect(await checkBvmRemoteAddress('treasury', local.address, 'regtest', keyFor(keyId))).toMatchObject({ compressed: local.publicKey });
  });

  it.each(FAULTS)('refuses a %o answer: nothing is returned', async (fault, code, pattern) => {
    const keyId = kmsKeyOf();
    kms.setFault(keyId, fault);
    const remote = bvmRemoteKey('treasury', local.address, 'regtest', keyFor(keyId));
    await expectSignerError(signBvmPsbt(remote, buildPsbt(c, standardSpec(c)).toHex(), SIGN_LIMITS), code, pattern);
  });

  it('refuses another key than the address before any Sign; the PSBT checks refuse before the service is asked', async () => {
    const other = kms.createKey('ECC_SECG_P256K1');
    const wrong = bvmRemoteKey('treasury', local.address, 'regtest', keyFor(other));
    await expectSignerError(
      signBvmPsbt(wrong, buildPsbt(c, standardSpec(c)).toHex(), SIGN_LIMITS),
      'SIGNER_KEY_MISMATCH',
      /the key's p2wpkh address is bcrt1q/,
    );
    const ed = kms.createKey('ECC_NIST_EDWARDS25519');
    await expectSignerError(
      checkBvmRemoteAddress('treasury', local.address, 'regtest', keyFor(ed)),
      'SIGNER_UNSUPPORTED',
      /needs a secp256k1 key \(KMS: ECC_SECG_P256K1\), this one is ed25519/,
    );
    const keyId = kmsKeyOf();
    const remote = bvmRemoteKey('treasury', local.address, 'regtest', keyFor(keyId));
    await expect(
      signBvmPsbt(remote, buildPsbt(c, standardSpec(c)).toHex(), { ...SIGN_LIMITS, maxFeeRateSatPerVb: 5 }),
    ).rejects.toMatchObject({
      code: 'BVM_ADAPTER_REFUSED',
      message: expect.stringMatching(/above the cap of 5 sat\/vB/),
    });
    expect([kms.signCount(other), kms.signCount(ed), kms.signCount(keyId)]).toEqual([0, 0, 0]);
  });
});
