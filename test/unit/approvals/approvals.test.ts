/**
 * The pure core of approvals (src/approvals/): the canonical JSON approvers sign (stable, documented example),
 * EIP-191 and ed25519 verification against configured keys with keys made here, refusal of forged and wrong-key
 * signatures, quorum of distinct approvers, expiry, per-asset rules, and fee caps that must not loosen.
 */
import { describe, expect, it } from 'vitest';
import { hashMessage } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import {
  APPROVAL_REQUEST_KIND,
  approvalMessage,
  canonicalJson,
  type ApprovalRequestBody,
} from '../../../packages/ballast/src/approvals/canonical.ts';
import { verifyApproval } from '../../../packages/ballast/src/approvals/verify.ts';
import { approverFor, signWithKey } from '../../../packages/ballast/src/cli/approvalKey.ts';
import {
  approvalRuleFor,
  capsNotLooser,
  isLive,
  needsApproval,
  quorumReached,
  validApprovers,
} from '../../../packages/ballast/src/approvals/policy.ts';

/** The worked example of docs/approvals.md. */
const EXAMPLE: ApprovalRequestBody = {
  kind: APPROVAL_REQUEST_KIND,
  id: 7,
  asset: 'USDC',
  origin: {
    chain: 'base',
    chainId: 8453,
    wallet: 'treasury',
    address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    currency: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
  },
  destination: {
    chain: 'arbitrum',
    chainId: 42161,
    wallet: 'treasury',
    address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    currency: '0xaf88d065e77c8cc2239327c5edb3a432268e5831',
  },
  amountIn: '25000000000',
  amountUsd: '24998.75',
  maxFees: { totalBps: 30, totalUsd: '50', components: { execution: { usd: '10' } } },
  reason: 'arbitrum below min: 5000 < 20000 USDC; base above max: 90000 > 80000 USDC',
  createdAtMs: 1767225600000,
  expiresAtMs: 1767312000000,
};

const EXAMPLE_TEXT =
  '{"amountIn":"25000000000","amountUsd":"24998.75","asset":"USDC","createdAtMs":1767225600000,' +
  '"destination":{"address":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","chain":"arbitrum","chainId":42161,' +
  '"currency":"0xaf88d065e77c8cc2239327c5edb3a432268e5831","wallet":"treasury"},' +
  '"expiresAtMs":1767312000000,"id":7,"kind":"ballast-approval-request/v2",' +
  '"maxFees":{"components":{"execution":{"usd":"10"}},"totalBps":30,"totalUsd":"50"},' +
  '"origin":{"address":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","chain":"base","chainId":8453,' +
  '"currency":"0x833589fcd6edb6e08f4c7c32d4f71b54bda02913","wallet":"treasury"},' +
  '"reason":"arbitrum below min: 5000 < 20000 USDC; base above max: 90000 > 80000 USDC"}';

function solanaKeypair(): { json: string; publicKey: string } {
  const seed = ed25519.utils.randomSecretKey();
  const pub = ed25519.getPublicKey(seed);
  return { json: JSON.stringify([...seed, ...pub]), publicKey: base58.encode(pub) };
}

describe('canonical JSON', () => {
  it('sorts keys at every depth, has no whitespace and equals the documented example', () => {
    expect(approvalMessage(EXAMPLE)).toBe(EXAMPLE_TEXT);
    const shuffled = Object.fromEntries(Object.entries(EXAMPLE).reverse()) as unknown as ApprovalRequestBody;
    expect(approvalMessage(shuffled)).toBe(EXAMPLE_TEXT);
  });

  it('has the documented EIP-191 digest: keccak256 of the prefix, the byte length and the text', () => {
    expect(new TextEncoder().encode(EXAMPLE_TEXT).length).toBe(685);
    expect(hashMessage(EXAMPLE_TEXT)).toBe('0xe7d24492112edd8bcad29cd9cd9f3957d0516544d07a859022f4667633e00881');
  });

  it('leaves out undefined members and refuses non-integer numbers and bigints', () => {
    expect(canonicalJson({ b: 1, a: undefined, c: [true, null, 'x'] })).toBe('{"b":1,"c":[true,null,"x"]}');
    expect(() => canonicalJson({ a: 1.5 })).toThrow(TypeError);
    expect(() => canonicalJson({ a: 1n })).toThrow(TypeError);
  });
});

describe('signatures', () => {
  it('EIP-191: a signature by the approver verifies; another key, a forged text and garbage are refused', async () => {
    const key = generatePrivateKey();
    const approvers = { alice: privateKeyToAccount(key).address };
    const signed = await signWithKey(key, EXAMPLE_TEXT);
    expect(signed.publicKey).toBe(approvers.alice);
    expect(await verifyApproval(approvers, 'alice', EXAMPLE_TEXT, signed.signature)).toEqual({ ok: true });
    const other = await signWithKey(generatePrivateKey(), EXAMPLE_TEXT);
    expect(await verifyApproval(approvers, 'alice', EXAMPLE_TEXT, other.signature)).toMatchObject({ ok: false, reason: 'wrong_key' });
    const tampered = EXAMPLE_TEXT.replace('25000000000', '95000000000');
    expect(await verifyApproval(approvers, 'alice', tampered, signed.signature)).toMatchObject({ ok: false, reason: 'wrong_key' });
    expect(await verifyApproval(approvers, 'alice', EXAMPLE_TEXT, '0x1234')).toMatchObject({ ok: false, reason: 'malformed_signature' });
    expect(await verifyApproval(approvers, 'mallory', EXAMPLE_TEXT, signed.signature)).toMatchObject({
      ok: false,
      reason: 'unknown_approver',
    });
  });

  it('ed25519: a Solana keypair signs over the UTF-8 text; hex and base58 signatures verify; another key is refused', async () => {
    const bob = solanaKeypair();
    const approvers = { bob: bob.publicKey };
    const signed = await signWithKey(bob.json, EXAMPLE_TEXT);
    expect(signed.publicKey).toBe(bob.publicKey);
    expect(await verifyApproval(approvers, 'bob', EXAMPLE_TEXT, signed.signature)).toEqual({ ok: true });
    const asBase58 = base58.encode(Buffer.from(signed.signature.slice(2), 'hex'));
    expect(await verifyApproval(approvers, 'bob', EXAMPLE_TEXT, asBase58)).toEqual({ ok: true });
    const other = await signWithKey(solanaKeypair().json, EXAMPLE_TEXT);
    expect(await verifyApproval(approvers, 'bob', EXAMPLE_TEXT, other.signature)).toMatchObject({ ok: false, reason: 'wrong_key' });
    expect(await verifyApproval(approvers, 'bob', `${EXAMPLE_TEXT} `, signed.signature)).toMatchObject({ ok: false, reason: 'wrong_key' });
  });

  it('finds the approver a key belongs to, and none for a stranger', async () => {
    const key = generatePrivateKey();
    const address = privateKeyToAccount(key).address;
    const approvers = { alice: address.toLowerCase(), bob: solanaKeypair().publicKey };
    expect(approverFor(approvers, address)).toBe('alice');
    expect(approverFor(approvers, privateKeyToAccount(generatePrivateKey()).address)).toBeUndefined();
    await expect(signWithKey('not a key', EXAMPLE_TEXT)).rejects.toThrow(/neither an EVM private key .* nor a Solana keypair/);
  });
});

describe('quorum and expiry', () => {
  it('counts distinct approvers whose signatures verify with the keys configured now', async () => {
    const aliceKey = generatePrivateKey();
    const bob = solanaKeypair();
    const approvers = { alice: privateKeyToAccount(aliceKey).address, bob: bob.publicKey };
    const alice = (await signWithKey(aliceKey, EXAMPLE_TEXT)).signature;
    const bobSig = (await signWithKey(bob.json, EXAMPLE_TEXT)).signature;
    const forged = (await signWithKey(generatePrivateKey(), EXAMPLE_TEXT)).signature;
    const twice = [
      { approver: 'alice', signature: alice },
      { approver: 'alice', signature: alice },
    ];
    expect(await validApprovers(approvers, EXAMPLE_TEXT, twice)).toEqual(['alice']);
    expect(quorumReached(await validApprovers(approvers, EXAMPLE_TEXT, twice), 2)).toBe(false);
    const withForgery = [...twice, { approver: 'bob', signature: forged }];
    expect(quorumReached(await validApprovers(approvers, EXAMPLE_TEXT, withForgery), 2)).toBe(false);
    const both = [...twice, { approver: 'bob', signature: bobSig }];
    expect(await validApprovers(approvers, EXAMPLE_TEXT, both)).toEqual(['alice', 'bob']);
    expect(quorumReached(await validApprovers(approvers, EXAMPLE_TEXT, both), 2)).toBe(true);
    // bob removed from the config: his sign-off no longer counts.
    expect(await validApprovers({ alice: approvers.alice }, EXAMPLE_TEXT, both)).toEqual(['alice']);
  });

  it('a request is live strictly before expiresAt', () => {
    expect(isLive(EXAMPLE.expiresAtMs, EXAMPLE.expiresAtMs - 1)).toBe(true);
    expect(isLive(EXAMPLE.expiresAtMs, EXAMPLE.expiresAtMs)).toBe(false);
  });
});

describe('threshold, per-asset rules and fee caps', () => {
  const policy = { aboveUsd: '10000', required: 2, approvers: {}, expiresAfterSec: 86_400, assets: { ETH: { aboveUsd: '500' } } };

  it('applies the asset entry over the defaults; above the threshold or of unknown value needs approval', () => {
    expect(approvalRuleFor(policy, 'USDC')).toEqual({ aboveUsd: '10000', required: 2 });
    expect(approvalRuleFor(policy, 'ETH')).toEqual({ aboveUsd: '500', required: 2 });
    const usdc = approvalRuleFor(policy, 'USDC');
    expect(needsApproval(usdc, '10000')).toBe(false);
    expect(needsApproval(usdc, '10000.000001')).toBe(true);
    expect(needsApproval(usdc, null)).toBe(true);
  });

  it("applies a route entry's keys over the asset's over the defaults, key by key", () => {
    expect(approvalRuleFor(policy, 'ETH', { required: 3 })).toEqual({ aboveUsd: '500', required: 3 });
    expect(approvalRuleFor(policy, 'ETH', { aboveUsd: '100000' })).toEqual({ aboveUsd: '100000', required: 2 });
    expect(approvalRuleFor(policy, 'USDC', {})).toEqual({ aboveUsd: '10000', required: 2 });
  });

  it('caps may tighten or be added, never loosen or be dropped', () => {
    const approved = { totalBps: 30, components: { execution: { usd: '10' } } };
    expect(capsNotLooser(approved, approved)).toBe(true);
    expect(capsNotLooser({ totalBps: 20, totalUsd: '5', components: { execution: { usd: '9.5' } } }, approved)).toBe(true);
    expect(capsNotLooser({ totalBps: 31, components: { execution: { usd: '10' } } }, approved)).toBe(false);
    expect(capsNotLooser({ totalBps: 30, components: { execution: { usd: '10.01' } } }, approved)).toBe(false);
    expect(capsNotLooser({ components: { execution: { usd: '10' } } }, approved)).toBe(false);
    expect(capsNotLooser({ totalBps: 30 }, approved)).toBe(false);
  });
});
