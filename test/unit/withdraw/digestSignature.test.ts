/**
 * The withdrawal digest and the owners' signatures against independent computations (docs/relay-contract.md "Withdrawal
 * endpoints", Signing): the digest is SHA-256 (node:crypto) over JSON text written by hand with sorted keys and no
 * whitespace; an EVM owner's signature recovers (viem recoverMessageAddress over the raw digest bytes) to the
 * owner; a Solana owner's signature verifies (@noble/curves and node:crypto ed25519) over the UTF-8 hex text.
 */
import { createHash, createPublicKey, verify as nodeVerify } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519';
import { Keypair } from '@solana/web3.js';
import { createPublicClient, hexToBytes, http, recoverMessageAddress, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { createEvmAdapter } from '../../../packages/ballast/src/chains/evm/adapter.ts';
import { createSvmAdapter } from '../../../packages/ballast/src/chains/svm/adapter.ts';
import { svmKeypairSigner } from '../../../packages/ballast/src/chains/svm/signer.ts';
import { withdrawalDigest, withdrawalSigningText } from '../../../packages/protocol/src/protocol/withdrawalDigest.ts';

const OWNER_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' as const; // anvil dev key #1
const owner = privateKeyToAccount(OWNER_KEY);

const fields = {
  chainId: 'base',
  currency: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
  amount: '250000000',
  ownerChainId: 'base',
  owner: owner.address,
  recipient: owner.address,
  nonce: '0x5f3c',
};

/** The signed object written out by hand: keys in code-point order, no whitespace. */
const handText =
  `{"amount":"250000000","chainId":"base","currency":"0x833589fcd6edb6e08f4c7c32d4f71b54bda02913","nonce":"0x5f3c",` +
  `"operation":"withdrawal","owner":"${owner.address}","ownerChainId":"base","recipient":"${owner.address}"}`;

const sha256Hex = (text: string) => createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');

function evmAdapter() {
  // Signing a digest needs no node: the client points nowhere and is never called.
  const client = createPublicClient({ transport: http('http://127.0.0.1:9') });
  return createEvmAdapter({ name: 'base', chainId: 8453, client, accounts: new Map([['treasury', owner]]), confirmations: 1 });
}

describe('withdrawal digest', () => {
  it('is SHA-256 hex over the hand-written canonical JSON', () => {
    expect(withdrawalSigningText(fields)).toBe(handText);
    expect(withdrawalDigest(fields)).toBe(sha256Hex(handText));
    expect(withdrawalDigest(fields)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('sorts nested additionalData keys and changes with every field', () => {
    const withData = { ...fields, additionalData: { zeta: 1, alpha: { b: 'x', a: [2, 1] } } };
    const text = handText.replace('{"amount"', '{"additionalData":{"alpha":{"a":[2,1],"b":"x"},"zeta":1},"amount"');
    expect(withdrawalDigest(withData)).toBe(sha256Hex(text));
    const base = withdrawalDigest(fields);
    for (const key of Object.keys(fields) as (keyof typeof fields)[]) {
      expect(withdrawalDigest({ ...fields, [key]: `${fields[key]}0` }), key).not.toBe(base);
    }
  });
});

describe('owner signatures', () => {
  it('EVM: a personal-message signature over the raw 32 digest bytes that recovers to the owner', async () => {
    const digest = sha256Hex(handText);
    const signature = (await evmAdapter().capabilities.withdrawalSigner.signWithdrawalDigest('treasury', digest)) as Hex;
    expect(signature).toMatch(/^0x[0-9a-f]{130}$/);
    expect(await recoverMessageAddress({ message: { raw: `0x${digest}` }, signature })).toBe(owner.address);
    // Not a signature over the hex text: that recovers to someone else.
    expect(await recoverMessageAddress({ message: digest, signature })).not.toBe(owner.address);
  });

  it('EVM: refuses a malformed digest and a wallet it does not hold', async () => {
    await expect(evmAdapter().capabilities.withdrawalSigner.signWithdrawalDigest('treasury', `0x${sha256Hex(handText)}`)).rejects.toThrow(
      /64 hex digits/,
    );
    await expect(evmAdapter().capabilities.withdrawalSigner.signWithdrawalDigest('other', sha256Hex(handText))).rejects.toThrow(
      /not an evm wallet/,
    );
  });

  it('Solana: ed25519 over the UTF-8 hex text, hex-encoded with 0x', async () => {
    const keypair = Keypair.fromSeed(new Uint8Array(32).fill(7));
    const adapter = createSvmAdapter({
      name: 'solana',
      chainId: 792703809,
      rpcUrl: 'http://127.0.0.1:9',
      wsUrl: 'ws://127.0.0.1:9',
      commitment: 'confirmed',
      maxMicroLamportsPerCu: 1n,
      maxComputeUnits: 1,
      signers: new Map([['sol', svmKeypairSigner(keypair)]]),
    });
    const digest = withdrawalDigest({
      ...fields,
      owner: keypair.publicKey.toBase58(),
      recipient: keypair.publicKey.toBase58(),
      chainId: 'solana',
      ownerChainId: 'solana',
    });
    const signature = await adapter.capabilities.withdrawalSigner.signWithdrawalDigest('sol', digest);
    expect(signature).toMatch(/^0x[0-9a-f]{128}$/);
    const sig = hexToBytes(signature as Hex);
    const message = new TextEncoder().encode(digest);
    expect(ed25519.verify(sig, message, keypair.publicKey.toBytes())).toBe(true);
    // node:crypto agrees (SPKI DER prefix of an Ed25519 public key, RFC 8410).
    const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(keypair.publicKey.toBytes())]);
    expect(nodeVerify(null, Buffer.from(message), createPublicKey({ key: spki, format: 'der', type: 'spki' }), Buffer.from(sig))).toBe(
      true,
    );
    // Over the raw digest bytes it would not verify.
    expect(ed25519.verify(sig, hexToBytes(`0x${digest}`), keypair.publicKey.toBytes())).toBe(false);
  });
});
