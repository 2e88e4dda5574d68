/**
 * The approval gate in the pipeline (src/cycle/approvalGate.ts through src/cycle/processTransfer.ts), on the
 * in-memory chains and Relay service with a real SQLite store: above the threshold a transfer waits and its request
 * is recorded once; monitor-only and `plan` record nothing; an approved request lets exactly its amount through on
 * its route and closes `executed` (good for one transfer); fee caps looser than approved close it `not_needed`;
 * another gate's refusal comes first.
 */
import { describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { processTransfer } from '../../../packages/ballast/src/cycle/processTransfer.ts';
import { boundEndsOfPlanned, closeStaleRequests, routeOf } from '../../../packages/ballast/src/cycle/approvalGate.ts';
import { loadPolicyStanding } from '../../../packages/ballast/src/cycle/approvalStanding.ts';
import { feeCapsFor } from '../../../packages/ballast/src/policy/routeFees.ts';
import { signWithKey } from '../../../packages/ballast/src/cli/approvalKey.ts';
import {
  createApprovalRequest,
  getApprovalRequest,
  listApprovalRequests,
  recordSignOff,
} from '../../../packages/ballast/src/store/approvalRequests.ts';
import { listRecentTransfers } from '../../../packages/ballast/src/store/transfers.ts';
import type { FeeCaps } from '../../../packages/ballast/src/policy/feePolicy.ts';
import { pipelineSuite, processArgs as args, withPolicy, type PipelineWorld } from './pipelineWorld.ts';
// After the world helper (see processTransfer.test.ts).
import { ADDR } from '../../model/world.ts';

const suite = pipelineSuite();
const KEYS = { alice: generatePrivateKey(), bob: generatePrivateKey() };
const APPROVALS = {
  aboveUsd: '0',
  required: 2,
  approvers: { alice: privateKeyToAccount(KEYS.alice).address, bob: privateKeyToAccount(KEYS.bob).address },
  expiresAfterSec: 3600,
  addressBook: 'off' as const,
};

function withApprovals(extra: Parameters<typeof withPolicy>[1] = {}) {
  return withPolicy(suite.env.config, { approvals: APPROVALS, ...extra });
}

/** An approved request on the world's route for `amountIn`, with `maxFees`, signed by both approvers. */
async function approved(w: PipelineWorld, amountIn: bigint, maxFees: FeeCaps): Promise<number> {
  const now = w.deps.now();
  const request = await createApprovalRequest(w.db, {
    ...routeOf(w.planned),
    bound: boundEndsOfPlanned(w.planned),
    cycleId: w.cycleId,
    planId: w.planId,
    amountIn,
    amountUsd: '1',
    maxFees,
    reason: w.planned.reason,
    required: 2,
    createdAtMs: now,
    expiresAtMs: now + 3_600_000,
  });
  for (const [approver, key] of Object.entries(KEYS)) {
    const { signature } = await signWithKey(key, request.message);
    await recordSignOff(w.db, { requestId: request.id, approver, signature, required: 2, nowMs: now });
  }
  return request.id;
}

describe('the approval gate', () => {
  it('above the threshold: records one request per route, signs nothing, and keeps it on the next attempt', async () => {
    const w = await suite.world('awaits', { config: withApprovals() });
    const attempt = await processTransfer(w.deps, args(w, 'execute'));
    expect(attempt.outcome).toBe('awaiting_approval');
    expect(attempt.verdict?.ok).toBe(true);
    const [request] = await listApprovalRequests(w.db);
    expect(request).toMatchObject({ status: 'pending', amountIn: w.planned.amountIn, asset: w.planned.asset, reason: w.planned.reason });
    expect(request!.maxFees).toEqual(feeCapsFor(w.deps.config.policy, w.planned));
    expect(attempt.error).toContain(`approval request ${request!.id} recorded (0 sign-offs of 2)`);
    const again = await processTransfer(w.deps, args(w, 'execute'));
    expect(again.error).toContain(`awaiting approval request ${request!.id}`);
    expect((await listApprovalRequests(w.db, { all: true })).length).toBe(1);
    expect(await listRecentTransfers(w.db, 10)).toEqual([]);
    expect(w.world.chains.alpha.mempool.size).toBe(0);
  });

  it('monitor-only reports `awaiting_approval` and records nothing; `plan` ignores approvals', async () => {
    const w = await suite.world('monitor', { config: withApprovals() });
    expect((await processTransfer(w.deps, args(w, 'monitor'))).outcome).toBe('awaiting_approval');
    expect((await processTransfer(w.deps, args(w, 'plan'))).outcome).toBe('quoted');
    expect(await listApprovalRequests(w.db, { all: true })).toEqual([]);
  });

  it('an approved request moves exactly its amount, closes `executed`, and is good for one transfer', async () => {
    const w = await suite.world('approved', { config: withApprovals() });
    const half = w.planned.amountIn / 2n;
    const id = await approved(w, half, feeCapsFor(w.deps.config.policy, w.planned));
    const before = w.world.chains.alpha.balanceOf(ADDR.USDC, ADDR.treasury);
    const attempt = await processTransfer(w.deps, args(w, 'execute'));
    expect(attempt.outcome, attempt.error).toBe('success');
    expect(attempt.planned.amountIn).toBe(half);
    expect(before - w.world.chains.alpha.balanceOf(ADDR.USDC, ADDR.treasury)).toBe(half);
    expect(await getApprovalRequest(w.db, id)).toMatchObject({ status: 'executed', transferId: attempt.transferId });
    const next = await processTransfer(w.deps, args(w, 'execute'));
    expect(next.outcome).toBe('awaiting_approval');
    expect((await listRecentTransfers(w.db, 10)).length).toBe(1);
  });

  it('fee caps looser than approved close the request `not_needed` and record a new one', async () => {
    const w = await suite.world('looser', { config: withApprovals() });
    const caps = feeCapsFor(w.deps.config.policy, w.planned);
    const id = await approved(w, w.planned.amountIn, { ...caps, totalBps: (caps.totalBps ?? 1) - 1 });
    const attempt = await processTransfer(w.deps, args(w, 'execute'));
    expect(attempt.outcome).toBe('awaiting_approval');
    expect(await getApprovalRequest(w.db, id)).toMatchObject({ status: 'not_needed' });
    expect((await getApprovalRequest(w.db, id))!.closeDetail).toMatch(/fee caps in force are looser/);
    expect((await listApprovalRequests(w.db)).map((r) => r.status)).toEqual(['pending']);
    expect(await listRecentTransfers(w.db, 10)).toEqual([]);
  });

  it('an approval covers the addresses it signed: a repointed destination closes it `not_needed`, a new request names the new address, nothing moves', async () => {
    const w = await suite.world('repointed', { config: withApprovals() });
    const id = await approved(w, w.planned.amountIn, feeCapsFor(w.deps.config.policy, w.planned));
    // The config kept the wallet's name and changed its key: the destination resolves to a stranger's address.
    const stranger = privateKeyToAccount(generatePrivateKey()).address;
    const repointed: PipelineWorld = { ...w, planned: { ...w.planned, to: { ...w.planned.to, address: stranger } } };
    // The same person lets the spending limits pass it: the recipient is a configured wallet's address.
    const wallets = new Map(w.deps.wallets).set('vault', { name: 'vault', vm: 'evm', address: stranger });
    const limits = { killSwitch: false, ...suite.env.config.policy.limits, allowedRecipients: ['treasury', 'vault'] };
    const deps = { ...w.deps, wallets, config: withApprovals({ limits }) };
    const before = w.world.chains.alpha.balanceOf(ADDR.USDC, ADDR.treasury);
    const attempt = await processTransfer(deps, args(repointed, 'execute'));
    expect(attempt.outcome, attempt.error).toBe('awaiting_approval');
    const closed = (await getApprovalRequest(w.db, id))!;
    expect(closed.status).toBe('not_needed');
    expect(closed.closeDetail).toContain(`the destination address is ${stranger} now, approved ${w.planned.to.address}`);
    const [fresh] = await listApprovalRequests(w.db);
    expect(fresh!.status).toBe('pending');
    expect(JSON.parse(fresh!.message)).toMatchObject({
      kind: 'ballast-approval-request/v2',
      destination: { address: stranger, chainId: w.planned.to.chainId },
    });
    expect(await listRecentTransfers(w.db, 10)).toEqual([]);
    expect(w.world.chains.alpha.balanceOf(ADDR.USDC, ADDR.treasury)).toBe(before);
    expect(w.world.chains.alpha.mempool.size).toBe(0);
  });

  it('a request whose signed text is the older v1 (no addresses) closes `not_needed` at the start of a signing cycle', async () => {
    const w = await suite.world('v1', { config: withApprovals() });
    const id = await approved(w, w.planned.amountIn, feeCapsFor(w.deps.config.policy, w.planned));
    const v1 = (await getApprovalRequest(w.db, id))!.message.replace('ballast-approval-request/v2', 'ballast-approval-request/v1');
    await w.db.run('UPDATE approval_requests SET message = ? WHERE id = ?', v1, id); // as the previous release wrote it
    expect(await closeStaleRequests(w.deps, [w.planned], await loadPolicyStanding(w.deps))).toEqual([id]);
    expect(await getApprovalRequest(w.db, id)).toMatchObject({ status: 'not_needed' });
    expect((await getApprovalRequest(w.db, id))!.closeDetail).toMatch(/binds no addresses/);
  });

  it("a policy.routes entry's threshold replaces the default on its route: above the default, below the route's, it moves without a request", async () => {
    const routes = [{ from: '*', to: '*', allow: true, approvals: { aboveUsd: '1000000000' } }];
    const w = await suite.world('route-threshold', { config: withApprovals({ routes }) });
    const attempt = await processTransfer(w.deps, args(w, 'execute'));
    expect(attempt.outcome, attempt.error).toBe('success');
    expect(await listApprovalRequests(w.db, { all: true })).toEqual([]);
  });

  it('another gate refuses first: the kill switch leaves the approved request unused', async () => {
    const config = withApprovals({ limits: { ...suite.env.config.policy.limits, killSwitch: true } });
    const w = await suite.world('halted', { config });
    const id = await approved(w, w.planned.amountIn, feeCapsFor(config.policy, w.planned));
    expect((await processTransfer(w.deps, args(w, 'execute'))).outcome).toBe('skipped_limit');
    expect((await getApprovalRequest(w.db, id))!.status).toBe('approved');
  });
});
