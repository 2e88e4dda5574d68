/**
 * The approval policy as a signed document (src/approvals/policyDoc.ts), the chain of approved policies
 * (src/approvals/policyChain.ts) and the standing the gates apply (src/approvals/standing.ts): what the document
 * holds and leaves out, its canonical text and SHA-256 digest, which records the chain trusts (quorum of the previous
 * policy's approvers only), and the one line that holds transfers when the config is not the approved policy.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import {
  addressBookAllows,
  parsePolicyText,
  policyChanges,
  policyContentOf,
  policyDigest,
  policyText,
  type ApprovalPolicyContent,
  type PolicySource,
} from '../../../packages/ballast/src/approvals/policyDoc.ts';
import { approvedPolicyChain, type PolicyRecord } from '../../../packages/ballast/src/approvals/policyChain.ts';
import { policyStanding } from '../../../packages/ballast/src/approvals/standing.ts';
import { signWithKey } from '../../../packages/ballast/src/cli/approvalKey.ts';

const KEYS = { alice: generatePrivateKey(), bob: generatePrivateKey(), mallory: generatePrivateKey() };
const addr = (k: `0x${string}`) => privateKeyToAccount(k).address;
const TREASURY = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

function source(approvals: Record<string, unknown> = {}): PolicySource {
  return {
    policy: {
      approvals: {
        aboveUsd: '10000',
        required: 2,
        approvers: { alice: addr(KEYS.alice).toLowerCase(), bob: addr(KEYS.bob) },
        expiresAfterSec: 3600,
        addressBook: 'required',
        validateAboveUsd: '50000',
        validators: {
          risk: { url: 'https://risk.example/v', secret: 'not-in-the-document-0123', key: addr(KEYS.mallory), timeoutMs: 5000 },
        },
        ...approvals,
      },
      routes: [
        { from: 'alpha', to: '*', maxFees: { totalBps: 5 } },
        { from: '*', to: 'beta', approvals: { aboveUsd: '500' } },
      ],
    },
    assets: {
      USDC: [
        { chain: 'beta', chainId: 2, wallet: 'treasury', address: TREASURY.toLowerCase() },
        { chain: 'alpha', chainId: 1, wallet: 'treasury', address: TREASURY },
      ],
      ETH: [{ chain: 'alpha', chainId: 1, wallet: 'treasury', address: TREASURY }],
    },
  };
}

let seq = 0;
/** A stored record of `content` after `previous`, signed by `signers`, approved unless `proposal`. */
async function record(
  content: ApprovalPolicyContent,
  previous: string | null,
  signers: Array<keyof typeof KEYS>,
  proposal = false,
): Promise<PolicyRecord> {
  const text = policyText(content, previous as `0x${string}` | null);
  const signOffs = [];
  for (const who of signers) signOffs.push({ approver: who, signature: (await signWithKey(KEYS[who], text)).signature, recordedAtMs: 1 });
  seq += 1;
  return {
    id: seq,
    digest: policyDigest(text),
    text,
    previousDigest: previous,
    proposedAtMs: seq,
    proposedBy: 'ops',
    approvedAtMs: proposal ? null : seq,
    initializedBy: previous === null ? 'ops' : null,
    signOffs,
  };
}

describe('the approval policy document', () => {
  it('holds approvers, thresholds, every route entry in order, validators without their secret, and the address book', () => {
    const content = policyContentOf(source())!;
    expect(content.approvers.alice).toBe(addr(KEYS.alice)); // EIP-55, however the config spells it
    expect(content.routes).toEqual([
      { from: 'alpha', to: '*' },
      { from: '*', to: 'beta', aboveUsd: '500' },
    ]);
    expect(content.validators).toEqual({ risk: { url: 'https://risk.example/v', key: addr(KEYS.mallory), timeoutMs: 5000 } });
    expect(JSON.stringify(content)).not.toContain('not-in-the-document');
    expect(content.addressBook).toEqual({
      required: true,
      addresses: [
        { chain: 'alpha', chainId: 1, wallet: 'treasury', address: TREASURY },
        { chain: 'beta', chainId: 2, wallet: 'treasury', address: TREASURY },
      ],
    });
    expect(policyContentOf({ ...source(), policy: {} })).toBeNull();
  });

  it('has one canonical text, read back only in that form, whose digest is its SHA-256', () => {
    const text = policyText(policyContentOf(source())!, null);
    expect(text.startsWith('{"kind":"ballast-approval-policy/v1","policy":{"aboveUsd":"10000","addressBook":')).toBe(true);
    expect(policyDigest(text)).toBe(`0x${createHash('sha256').update(text, 'utf8').digest('hex')}`);
    expect(parsePolicyText(text)).toEqual({ previous: null, policy: policyContentOf(source()) });
    expect(parsePolicyText(JSON.stringify(JSON.parse(text), null, 1))).toBeNull(); // same JSON, not canonical
    expect(parsePolicyText(text.replace('ballast-approval-policy/v1', 'ballast-approval-request/v2'))).toBeNull();
  });

  it('says what a change does, and its address book admits only listed addresses (EVM in any case)', () => {
    const before = policyContentOf(source())!;
    const after = policyContentOf(source({ aboveUsd: '99999', approvers: { alice: addr(KEYS.alice), mallory: addr(KEYS.mallory) } }))!;
    expect(policyChanges(before, after)).toEqual([
      'aboveUsd: "10000" → "99999"',
      `approver removed: bob`,
      `approver added: mallory ${addr(KEYS.mallory)}`,
    ]);
    expect(policyChanges(before, before)).toEqual([]);
    expect(addressBookAllows(before, 2, TREASURY.toLowerCase())).toBe(true);
    expect(addressBookAllows(before, 3, TREASURY)).toBe(false);
    expect(addressBookAllows({ ...before, addressBook: { ...before.addressBook, required: false } }, 3, TREASURY)).toBe(true);
  });
});

describe('the chain of approved policies', () => {
  const first = policyContentOf(source())!;
  const raised = policyContentOf(
    source({ aboveUsd: '1000000', approvers: { ...first.approvers, mallory: addr(KEYS.mallory) }, required: 1 }),
  )!;

  it('follows a change signed by a quorum of the previous approvers, and the quorum of the new one after it', async () => {
    const init = await record(first, null, []);
    const change = await record(raised, init.digest, ['alice', 'bob']);
    const next = await record(first, change.digest, ['mallory']); // the new policy's quorum is 1 of alice, bob, mallory
    const chain = await approvedPolicyChain([next, init, change]);
    expect(chain.problems).toEqual([]);
    expect(chain.approved).toMatchObject({ digest: next.digest, height: 3, signers: ['mallory'] });
  });

  it('ignores a change marked approved with too few valid signatures, or signed by approvers it adds itself', async () => {
    const init = await record(first, null, []);
    const short = await record(raised, init.digest, ['alice']);
    const selfSigned = await record({ ...raised, aboveUsd: '2000000' }, init.digest, ['mallory', 'alice']);
    const chain = await approvedPolicyChain([init, short, selfSigned]);
    expect(chain.approved).toMatchObject({ digest: init.digest, height: 1, initializedBy: 'ops' });
    expect(chain.problems).toHaveLength(2);
    expect(chain.problems.join('\n')).toMatch(/1 valid signature\(s\) of the 2 required/);
  });

  it('trusts nothing when two records claim to be the first, or the first one is not its digest', async () => {
    const a = await record(first, null, []);
    const b = await record(raised, null, []);
    expect(await approvedPolicyChain([a, b])).toMatchObject({ approved: null, problems: [expect.stringMatching(/2 bootstrapped/)] });
    const forged = { ...a, text: a.text.replace('"10000"', '"99999999"') };
    expect((await approvedPolicyChain([forged])).approved).toBeNull();
  });
});

describe('the standing the gates apply', () => {
  const configured = policyContentOf(source())!;

  it('nothing at all: no gate; configured but never approved: the config applies and holds with the init line', async () => {
    expect(policyStanding(null, { approved: null, problems: [] })).toBeNull();
    const fresh = policyStanding(configured, { approved: null, problems: [] })!;
    expect(fresh.policy).toEqual(configured);
    expect(fresh.hold).toContain('run `ballast policy init` once');
  });

  it('the approved policy applies; the config holds transfers unless it is that policy (or when it drops policy.approvals)', async () => {
    const chain = await approvedPolicyChain([await record(configured, null, [])]);
    expect(policyStanding(configured, chain)).toMatchObject({ hold: null, approvedDigest: chain.approved!.digest });
    const edited = policyStanding({ ...configured, aboveUsd: '1' }, chain)!;
    expect(edited.policy.aboveUsd).toBe('10000');
    expect(edited.hold).toContain(
      `the config's approval policy is not the approved one: approved policy ${chain.approved!.digest} applies`,
    );
    expect(policyStanding(null, chain)!.hold).toMatch(/^the config has no policy.approvals/);
  });
});
