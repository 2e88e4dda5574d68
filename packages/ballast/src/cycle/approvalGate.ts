/**
 * The approval gate of the pipeline (docs/approvals.md): the last gate before signing, after the fee policy,
 * verification, the kill switch and the spending limits have passed. A transfer whose quoted USD value is above
 * `policy.approvals.aboveUsd` is signed only within an approved request for the same asset and route: quorum of
 * distinct configured approvers whose signatures verify now, not expired, amount not above the approved amount,
 * fee caps not looser than the approved ones, and both ends at the chain ids and addresses the approvers signed
 * (a request whose ends resolve elsewhere now is closed `not_needed` and a new one records the new addresses). Otherwise the request is recorded (one open request per asset and
 * route; an existing one is kept as it is, so signatures already given stay valid) and the transfer waits.
 * The approval policy applied is the one in force (src/approvals/standing.ts): while the config's is not the
 * approved one, every transfer above the approved threshold waits. Without any approval policy nothing here runs.
 */
import type { PlannedTransfer } from '../planner/types.ts';
import { feeCapsFor } from '../policy/routeFees.ts';
import { boundEndsMismatch, boundEndsOf, type BoundEnds } from '../approvals/bound.ts';
import type { ApprovalPolicyContent } from '../approvals/policyDoc.ts';
import type { PolicyStanding } from '../approvals/standing.ts';
import { routeRuleMatches } from '../planner/routes.ts';
import {
  approvalRuleFor,
  capsNotLooser,
  type ApprovalRule,
  isLive,
  needsApproval,
  quorumReached,
  validApprovers,
} from '../approvals/policy.ts';
import {
  closeRequest,
  createApprovalRequest,
  listApprovalRequests,
  openRequestFor,
  type ApprovalRequest,
  type ApprovalRoute,
} from '../store/approvalRequests.ts';
import type { CycleContext } from './context.ts';
import { approvalNotifier } from '../notify/approvalSink.ts';

/** An approved request a planned transfer may use, with the approvers whose signatures verified. */
export interface ApprovalMatch {
  request: ApprovalRequest;
  approvers: string[];
}

/**
 * The chain ids and addresses a planned transfer's ends resolve to: the origin wallet's address (the quote's
 * `user`) and the destination recipient (the quote's `recipient`).
 */
export function boundEndsOfPlanned(planned: Pick<PlannedTransfer, 'from' | 'to'>): BoundEnds {
  return {
    origin: { chainId: planned.from.chainId, address: planned.from.address },
    destination: { chainId: planned.to.chainId, address: planned.to.address },
  };
}

/** Why an open request no longer covers the planned transfer's ends (addresses, chain ids), or null. */
function endsChanged(request: ApprovalRequest, planned: PlannedTransfer): string | null {
  return boundEndsMismatch(boundEndsOf(request.message), boundEndsOfPlanned(planned));
}

/**
 * The threshold and quorum for a transfer on `route` under an approval policy (the one in force: src/approvals/
 * standing.ts): the first of its `routes` entries that matches, with its keys over the asset's over the defaults
 * (`approvalRuleFor`). The gate and `ballast approve` both count the quorum with it.
 */
export function approvalRuleOfRoute(policy: ApprovalPolicyContent, route: ApprovalRoute): ApprovalRule {
  const end = (h: ApprovalRoute['origin']) => ({ asset: route.asset, chain: h.chain, wallet: h.wallet });
  const entry = (policy.routes ?? []).find((r) => routeRuleMatches(r, end(route.origin), end(route.destination)));
  return approvalRuleFor(policy, route.asset, entry);
}

/** The asset and route of a planned transfer, as an approval request names them. */
export function routeOf(planned: Pick<PlannedTransfer, 'asset' | 'from' | 'to'>): ApprovalRoute {
  return {
    asset: planned.asset,
    origin: { chain: planned.from.chain, wallet: planned.from.wallet, currency: planned.from.currency },
    destination: { chain: planned.to.chain, wallet: planned.to.wallet, currency: planned.to.currency },
  };
}

/**
 * The open request for the planned transfer's route that has reached its quorum and has not expired, or
 * undefined (also without an approval policy, and while the config's policy is not the approved one). Signatures
 * are verified again against the approved policy's keys.
 *
 * @param standing the approval policy in force this cycle (src/cycle/approvalStanding.ts)
 */
export async function approvedRequestFor(
  ctx: Pick<CycleContext, 'db' | 'now'>,
  planned: PlannedTransfer,
  standing: PolicyStanding | null,
): Promise<ApprovalMatch | undefined> {
  if (!standing || standing.hold !== null) return undefined;
  const request = await openRequestFor(ctx.db, routeOf(planned));
  if (!request || !isLive(request.expiresAtMs, ctx.now())) return undefined;
  if (endsChanged(request, planned) !== null) return undefined; // approvalVerdict closes it and records a new one
  const approvers = await validApprovers(standing.policy.approvers, request.message, request.signOffs);
  return quorumReached(approvers, approvalRuleOfRoute(standing.policy, routeOf(planned)).required) ? { request, approvers } : undefined;
}

/**
 * The planned transfer within an approval: amount at most the approved amount, and no other donor (route choice
 * must not move it to another route than the approved one).
 */
export function withinApproval(planned: PlannedTransfer, match: ApprovalMatch): PlannedTransfer {
  const { alternatives: _alternatives, ...rest } = planned;
  const amountIn = planned.amountIn < match.request.amountIn ? planned.amountIn : match.request.amountIn;
  return { ...rest, amountIn };
}

/** The gate's answer: sign (within `requestId` when an approval is used), or wait with a one-line reason. */
export type ApprovalVerdict = { ok: true; requestId?: number } | { ok: false; requestId?: number; detail: string };

/**
 * Decides whether a checked transfer may be signed.
 *
 * @param input.amountUsd the quote's `details.currencyIn.amountUsd` (USD decimal string), null when absent
 *   (then it needs approval: fail closed)
 * @param input.match the approved request found before quoting, if any
 * @param input.record false (monitor-only): decide without writing anything
 * @param input.standing the approval policy in force this cycle; while the config's is not the approved one, a
 *   transfer above the approved threshold waits with the standing's line and no request is recorded
 * @throws only on store failures
 */
export async function approvalVerdict(
  ctx: Pick<CycleContext, 'config' | 'db' | 'now' | 'logger'>,
  input: {
    cycleId: number;
    planId: number;
    quoteId: number;
    planned: PlannedTransfer;
    amountUsd: string | null;
    match: ApprovalMatch | undefined;
    record: boolean;
    standing: PolicyStanding | null;
  },
): Promise<ApprovalVerdict> {
  const { planned, match, standing } = input;
  if (!standing) return { ok: true };
  const policy = standing.policy;
  const caps = feeCapsFor(ctx.config.policy, planned);
  if (match) {
    const approved = match.request;
    if (planned.amountIn <= approved.amountIn && capsNotLooser(caps, approved.maxFees)) return { ok: true, requestId: approved.id };
    if (input.record) {
      const why =
        planned.amountIn > approved.amountIn
          ? `the amount ${planned.amountIn} is above the approved ${approved.amountIn}`
          : 'the fee caps in force are looser than the approved ones';
      await closeRequest(ctx.db, approved.id, 'not_needed', `${why}; a new request is needed`, ctx.now(), approvalNotifier(ctx));
    }
  }
  const rule = approvalRuleOfRoute(policy, routeOf(planned));
  if (!needsApproval(rule, input.amountUsd)) return { ok: true };
  const value = input.amountUsd === null ? 'of unknown USD value' : `worth ${input.amountUsd} USD`;
  if (standing.hold !== null) return { ok: false, detail: `${value}, above the approval threshold ${rule.aboveUsd}: ${standing.hold}` };
  let open = await openRequestFor(ctx.db, routeOf(planned));
  const changed = open ? endsChanged(open, planned) : null;
  if (open && changed !== null) {
    // The signatures are over other addresses: they cover nothing now, whatever the config names say.
    if (!input.record)
      return { ok: false, detail: `${value}: approval request ${open.id} no longer covers it (${changed}); would need a new one` };
    await closeRequest(ctx.db, open.id, 'not_needed', `${changed}; a new request is needed`, ctx.now(), approvalNotifier(ctx));
    ctx.logger.warn(
      { component: 'approvals', requestId: open.id, asset: planned.asset, from: planned.from.chain, to: planned.to.chain },
      `approval request ${open.id} closed: ${changed}`,
    );
    open = undefined;
  }
  if (open) {
    return {
      ok: false,
      requestId: open.id,
      detail: `${value}, above policy.approvals aboveUsd ${rule.aboveUsd}: awaiting approval request ${open.id} (${open.signOffs.length} sign-off(s) of ${rule.required})`,
    };
  }
  if (!input.record) return { ok: false, detail: `${value}, above policy.approvals aboveUsd ${rule.aboveUsd}: would need approval` };
  const nowMs = ctx.now();
  const created = await createApprovalRequest(
    ctx.db,
    {
      ...routeOf(planned),
      bound: boundEndsOfPlanned(planned),
      cycleId: input.cycleId,
      planId: input.planId,
      quoteId: input.quoteId,
      amountIn: planned.amountIn,
      amountUsd: input.amountUsd,
      maxFees: caps,
      reason: planned.reason,
      required: rule.required,
      createdAtMs: nowMs,
      expiresAtMs: nowMs + policy.expiresAfterSec * 1000,
    },
    approvalNotifier(ctx),
  );
  ctx.logger.warn(
    { component: 'approvals', requestId: created.id, asset: planned.asset, from: planned.from.chain, to: planned.to.chain },
    `transfer ${value} awaits ${rule.required} sign-off(s): ballast approvals show ${created.id}`,
  );
  return {
    ok: false,
    requestId: created.id,
    detail: `${value}, above policy.approvals aboveUsd ${rule.aboveUsd}: approval request ${created.id} recorded (0 sign-offs of ${rule.required})`,
  };
}

/**
 * At the start of a signing cycle's transfers: closes open requests that expired (`expired`), those whose signed
 * text binds no addresses (the v1 format, `not_needed`) and those whose asset and route the cycle's plan no longer
 * holds (`not_needed`). Without an approval policy (`standing` null) does nothing.
 *
 * @param planned this cycle's planned transfers (the planner's donor and every alternative donor count)
 * @returns the ids closed
 */
export async function closeStaleRequests(
  ctx: Pick<CycleContext, 'config' | 'db' | 'now'> & Partial<Pick<CycleContext, 'logger'>>,
  planned: readonly PlannedTransfer[],
  standing: PolicyStanding | null,
): Promise<number[]> {
  if (!standing) return [];
  const keys = new Set<string>();
  for (const p of planned) {
    keys.add(routeKey(routeOf(p)));
    for (const alt of p.alternatives ?? []) keys.add(routeKey(routeOf({ ...p, from: alt.from })));
  }
  const closed: number[] = [];
  const nowMs = ctx.now();
  const sink = approvalNotifier(ctx);
  for (const request of await listApprovalRequests(ctx.db)) {
    if (!isLive(request.expiresAtMs, nowMs)) {
      const what =
        request.status === 'approved' ? 'approved; not signed yet' : `${request.signOffs.length} sign-off(s) of ${request.required}`;
      const detail = `${what} by ${new Date(request.expiresAtMs).toISOString()}`;
      if (await closeRequest(ctx.db, request.id, 'expired', detail, nowMs, sink)) closed.push(request.id);
    } else if (boundEndsOf(request.message) === null) {
      const detail = 'its signed text binds no addresses (the older approval format); a new request binds them';
      if (await closeRequest(ctx.db, request.id, 'not_needed', detail, nowMs, sink)) closed.push(request.id);
    } else if (!keys.has(routeKey(request))) {
      const detail = `the planner no longer plans ${request.asset} ${request.origin.chain} → ${request.destination.chain}`;
      if (await closeRequest(ctx.db, request.id, 'not_needed', detail, nowMs, sink)) closed.push(request.id);
    }
  }
  return closed;
}

function routeKey(r: ApprovalRoute): string {
  return JSON.stringify([
    r.asset,
    r.origin.chain,
    r.origin.wallet,
    r.origin.currency,
    r.destination.chain,
    r.destination.wallet,
    r.destination.currency,
  ]);
}
