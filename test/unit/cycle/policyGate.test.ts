/**
 * The approval policy in the pipeline (src/approvals/standing.ts through src/cycle/processTransfer.ts), on the
 * in-memory chains and Relay service with a real SQLite store: a policy changed in the config without a quorum of the
 * previous approvers (approver added, threshold raised, address book widened) moves nothing above the approved
 * threshold and nothing to an address the approved book lacks; the same change with the quorum takes effect; before
 * `ballast policy init` nothing above the threshold moves; a record set `approved` by hand counts for nothing.
 */
import { describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { processTransfer } from '../../../packages/ballast/src/cycle/processTransfer.ts';
import { signWithKey } from '../../../packages/ballast/src/cli/approvalKey.ts';
import { policyContentOf, policyText, type ApprovalPolicyContent } from '../../../packages/ballast/src/approvals/policyDoc.ts';
import { initPolicy, proposePolicy, readPolicyChain, signPolicy } from '../../../packages/ballast/src/store/approvalPolicies.ts';
import { listApprovalRequests } from '../../../packages/ballast/src/store/approvalRequests.ts';
import { listLimitHits } from '../../../packages/ballast/src/store/limitHits.ts';
import { listRecentTransfers } from '../../../packages/ballast/src/store/transfers.ts';
import type { LoadedConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import { pipelineSuite, processArgs as args, withPolicy, type PipelineWorld } from './pipelineWorld.ts';
// After the world helper (see processTransfer.test.ts).
import { ADDR } from '../../model/world.ts';

const suite = pipelineSuite();
const KEYS = { alice: generatePrivateKey(), bob: generatePrivateKey() };
const APPROVERS = { alice: privateKeyToAccount(KEYS.alice).address, bob: privateKeyToAccount(KEYS.bob).address };
const HIGH = '1000000000'; // above any transfer here

function config(change: Record<string, unknown> = {}): LoadedConfig {
  const approvals = { aboveUsd: '0', required: 2, approvers: APPROVERS, expiresAfterSec: 3600, addressBook: 'off' as const, ...change };
  return withPolicy(suite.env.config, { approvals });
}

/** Records `content` as the bootstrapped policy of the world's store. */
async function init(w: PipelineWorld, content: ApprovalPolicyContent): Promise<void> {
  expect((await initPolicy(w.db, { text: policyText(content, null), by: 'ops', nowMs: w.deps.now() })).ok).toBe(true);
}

/** Proposes the config's policy and has `signers` sign it; returns whether it is approved. */
async function changeWith(w: PipelineWorld, signers: ReadonlyArray<keyof typeof KEYS>): Promise<boolean> {
  const approved = (await readPolicyChain(w.db)).approved!;
  const text = policyText(policyContentOf(w.deps.config)!, approved.digest);
  const proposal = await proposePolicy(w.db, { text, by: 'ops', nowMs: w.deps.now() });
  if (!proposal.ok) throw new Error(proposal.detail);
  let done = false;
  for (const who of signers) {
    const { signature } = await signWithKey(KEYS[who], text);
    const signed = await signPolicy(w.db, { digest: proposal.digest, approver: who, signature, nowMs: w.deps.now() });
    if (!signed.ok) throw new Error(signed.detail);
    done = signed.approved;
  }
  return done;
}

/** Nothing was signed or sent in the world. */
async function nothingMoved(w: PipelineWorld, before: bigint): Promise<void> {
  expect(await listRecentTransfers(w.db, 10)).toEqual([]);
  expect(w.world.chains.alpha.mempool.size).toBe(0);
  expect(w.world.chains.alpha.balanceOf(ADDR.USDC, ADDR.treasury)).toBe(before);
}

describe('the approval policy in force', () => {
  it('before `ballast policy init`: above the threshold nothing moves and no request is recorded', async () => {
    const w = await suite.world('uninitialized', { config: config(), initApprovalPolicy: false });
    const before = w.world.chains.alpha.balanceOf(ADDR.USDC, ADDR.treasury);
    const attempt = await processTransfer(w.deps, args(w, 'execute'));
    expect(attempt.outcome).toBe('awaiting_approval');
    expect(attempt.error).toMatch(/no approval policy has been approved yet: run `ballast policy init`/);
    expect(await listApprovalRequests(w.db, { all: true })).toEqual([]);
    await nothingMoved(w, before);
  });

  it('an approver added and the threshold raised without a quorum: nothing moves above the approved threshold; with the quorum it moves', async () => {
    const w = await suite.world('raised', { config: config({ aboveUsd: HIGH, required: 1 }), initApprovalPolicy: false });
    await init(w, policyContentOf(config())!); // approved: threshold 0, alice and bob
    w.deps.config = config({
      aboveUsd: HIGH,
      required: 1,
      approvers: { ...APPROVERS, mallory: privateKeyToAccount(generatePrivateKey()).address },
    });
    const before = w.world.chains.alpha.balanceOf(ADDR.USDC, ADDR.treasury);
    const held = await processTransfer(w.deps, args(w, 'execute'));
    expect(held.outcome).toBe('awaiting_approval');
    expect(held.error).toMatch(/above the approval threshold 0: the config's approval policy is not the approved one/);
    expect(await listApprovalRequests(w.db, { all: true })).toEqual([]);
    await nothingMoved(w, before);
    // One approver is not a quorum of the previous policy (2): still held.
    expect(await changeWith(w, ['alice'])).toBe(false);
    expect((await processTransfer(w.deps, args(w, 'execute'))).outcome).toBe('awaiting_approval');
    await nothingMoved(w, before);
    expect(await changeWith(w, ['bob'])).toBe(true);
    const moved = await processTransfer(w.deps, args(w, 'execute'));
    expect(moved.outcome, moved.error).toBe('success');
    expect(before - w.world.chains.alpha.balanceOf(ADDR.USDC, ADDR.treasury)).toBe(w.planned.amountIn);
  });

  it("a policy sign-off that is not the approver's signature, or by someone who is no approver, is refused and not stored", async () => {
    const w = await suite.world('bad-sign-off', { config: config({ aboveUsd: HIGH }), initApprovalPolicy: false });
    await init(w, policyContentOf(config())!);
    const approved = (await readPolicyChain(w.db)).approved!;
    const text = policyText(policyContentOf(w.deps.config)!, approved.digest);
    const proposal = await proposePolicy(w.db, { text, by: 'ops', nowMs: w.deps.now() });
    if (!proposal.ok) throw new Error(proposal.detail);
    const byBob = await signWithKey(KEYS.bob, text);
    const forged = await signPolicy(w.db, { digest: proposal.digest, approver: 'alice', signature: byBob.signature, nowMs: w.deps.now() });
    expect(forged).toMatchObject({ ok: false, reason: 'wrong_key' });
    const stranger = await signPolicy(w.db, {
      digest: proposal.digest,
      approver: 'mallory',
      signature: byBob.signature,
      nowMs: w.deps.now(),
    });
    expect(stranger).toMatchObject({ ok: false, reason: 'unknown_approver' });
    expect(await w.db.all('SELECT approver FROM approval_policy_signoffs')).toEqual([]);
  });

  it('a lowered threshold is not in force either: transfers below the approved one run unchanged', async () => {
    const w = await suite.world('lowered', { config: config(), initApprovalPolicy: false });
    await init(w, policyContentOf(config({ aboveUsd: HIGH }))!);
    const attempt = await processTransfer(w.deps, args(w, 'execute'));
    expect(attempt.outcome, attempt.error).toBe('success');
    expect(await listApprovalRequests(w.db, { all: true })).toEqual([]);
  });

  it('addressBook required: an address the approved book lacks gets nothing, whatever the amount; widened with the quorum, it does', async () => {
    const cfg = config({ aboveUsd: HIGH, addressBook: 'required' });
    const w = await suite.world('book', { config: cfg, initApprovalPolicy: false });
    const content = policyContentOf(cfg)!;
    const narrow = content.addressBook.addresses.filter((e) => e.chainId !== w.planned.to.chainId);
    expect(narrow.length).toBeLessThan(content.addressBook.addresses.length);
    await init(w, { ...content, addressBook: { required: true, addresses: narrow } });
    const before = w.world.chains.alpha.balanceOf(ADDR.USDC, ADDR.treasury);
    const refused = await processTransfer(w.deps, args(w, 'execute'));
    expect(refused.outcome).toBe('skipped_limit');
    expect(refused.error).toContain(
      `the recipient ${w.planned.to.address} on chain ${w.planned.to.chainId} is not in the approved policy's address book`,
    );
    expect((await listLimitHits(w.db, 10))[0]).toMatchObject({ reason: 'address_book' });
    await nothingMoved(w, before);
    expect(await changeWith(w, ['alice', 'bob'])).toBe(true);
    const moved = await processTransfer(w.deps, args(w, 'execute'));
    expect(moved.outcome, moved.error).toBe('success');
  });

  it('a proposal set `approved` in the store by hand counts for nothing: the approved policy still applies, and everything above it waits', async () => {
    const w = await suite.world('forged', { config: config({ aboveUsd: HIGH }), initApprovalPolicy: false });
    await init(w, policyContentOf(config())!);
    const approved = (await readPolicyChain(w.db)).approved!;
    const text = policyText(policyContentOf(w.deps.config)!, approved.digest);
    const proposal = await proposePolicy(w.db, { text, by: 'mallory', nowMs: w.deps.now() });
    await w.db.run('UPDATE approval_policies SET approved_at_ms = ? WHERE digest = ?', w.deps.now(), proposal.ok ? proposal.digest : '');
    const chain = await readPolicyChain(w.db);
    expect(chain.approved!.digest).toBe(approved.digest);
    expect(chain.problems.join()).toMatch(/marked approved but is ignored: 0 valid signature\(s\) of the 2 required/);
    const before = w.world.chains.alpha.balanceOf(ADDR.USDC, ADDR.treasury);
    expect((await processTransfer(w.deps, args(w, 'execute'))).outcome).toBe('awaiting_approval');
    await nothingMoved(w, before);
  });
});
