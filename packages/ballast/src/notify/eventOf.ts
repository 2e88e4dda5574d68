/**
 * The events of each place that reports one (docs/notifications.md "Events"): one builder per site, so the site
 * itself is a single `notify(ctx, …Event(…))` line. Pure: each builds a {@link NotifyEvent} from what the site holds.
 * Amounts are base-unit decimal strings, with whole units beside them where the decimals are known.
 */
import type { PlannedTransfer } from '../planner/types.ts';
import type { DeprecationNotice } from '../relay/deprecation.ts';
import type { TransferRefund, TransferRow } from '../store/transferRows.ts';
import type { WithdrawalRow } from '../store/withdrawalRows.ts';
import type { PausedRoute } from '../cycle/pausedRoutes.ts';
import { transferStage } from '../core/transferStage.ts';
import { deprecationFix } from '../relay/deprecationFix.ts';
import { amountFields, type NotifyEvent, type NotifyJson } from './events.ts';

const routeOf = (asset: string, from: string, to: string): string => `${asset} ${from} -> ${to}`;

/**
 * A planned transfer refused before signing by a spending limit, or by the kill switch (`reason` `kill_switch` or
 * `kill_switch_file`, reported as `kill_switch_engaged`). A limit that keeps refusing (a daily cap reached) would
 * refuse every cycle: the event is once per UTC day per limit and route; the kill switch's once per UTC day.
 *
 * @param hit.atMs when it was refused, Unix ms (names the day)
 */
export function limitHitEvent(
  planned: PlannedTransfer,
  hit: { cycleId: number; planId: number; reason: string; detail: string; atMs: number },
): NotifyEvent {
  const kill = hit.reason === 'kill_switch' || hit.reason === 'kill_switch_file';
  const route = routeOf(planned.asset, planned.from.chain, planned.to.chain);
  return {
    kind: kill ? 'kill_switch_engaged' : 'spending_limit_hit',
    subject: kill ? 'kill_switch' : `limit:${hit.reason}:${planned.asset}:${planned.from.chain}:${planned.to.chain}`,
    status: new Date(hit.atMs).toISOString().slice(0, 10),
    summary: kill ? `kill switch engaged: nothing is signed (${hit.detail})` : `${route} refused before signing: ${hit.detail}`,
    payload: {
      cycleId: hit.cycleId,
      planId: hit.planId,
      asset: planned.asset,
      originChain: planned.from.chain,
      destinationChain: planned.to.chain,
      ...amountFields('amountIn', planned.amountIn, planned.from.decimals),
      reason: hit.reason,
      detail: hit.detail,
      plannerReason: planned.reason,
    },
  };
}

/** The common fields of a transfer row. */
function transferFields(t: TransferRow): NotifyEvent['payload'] {
  return {
    transferId: t.id,
    requestId: t.requestId,
    asset: t.asset,
    originChain: t.originChain,
    destinationChain: t.destinationChain,
    ...amountFields('amountIn', t.amountIn, undefined),
    ...amountFields('minOut', t.minOut, undefined),
    status: t.status,
  };
}

/**
 * A transfer closed `refund` (`transfer_refunded`) or `failure` (`transfer_failed`), once its way back is known
 * (src/cycle/followRefund.ts): the refund transaction and amount, or why it was not refunded. The summary names
 * the stage reached: refunded to the origin wallet, or deposited and not filled (and not refunded).
 */
export function transferClosedEvent(t: TransferRow, refund: Pick<TransferRefund, 'amount' | 'txHash' | 'failReason'>): NotifyEvent {
  const refunded = t.status === 'refund';
  const route = routeOf(t.asset, t.originChain, t.destinationChain);
  const request = `request ${t.requestId ?? 'unknown'}`;
  const what =
    refund.failReason !== null
      ? `deposited, not filled and not refunded (${refund.failReason}; ${request}): the route is paused until an operator acts`
      : refunded
        ? `refunded to the origin wallet (${request})`
        : `deposited, not filled: the request failed (${request}); no refund recorded`;
  return {
    kind: refunded ? 'transfer_refunded' : 'transfer_failed',
    subject: `transfer:${t.id}`,
    summary: `${route} ${what}`,
    payload: {
      ...transferFields(t),
      ...(refund.amount !== null ? amountFields('refundedAmount', refund.amount, undefined) : {}),
      refundTxHash: refund.txHash,
      refundFailReason: refund.failReason,
      error: t.error,
    },
  };
}

/** A transfer flagged stalled (in flight past `tracking.stalledAfterSec`), naming the stage it stalled at; once per transfer. */
export function stalledEvent(t: TransferRow, detail: string): NotifyEvent {
  return {
    kind: 'transfer_stalled',
    subject: `transfer:${t.id}`,
    summary: `${routeOf(t.asset, t.originChain, t.destinationChain)} stalled while ${transferStage(t.status)}: ${detail}`,
    payload: { ...transferFields(t), relayStatus: t.relayStatus, detail },
  };
}

/**
 * A transfer whose deposit could not be ended within the cancel's fee cap (Bitcoin: the cancel pays its cap
 * `maxCancelFeeSats`, or no cancel fits under it); once per transfer, apart from the time-based stall.
 */
export function cancelAtCapEvent(t: TransferRow, detail: string): NotifyEvent {
  return { ...stalledEvent(t, detail), subject: `transfer:${t.id}:cancel` };
}

/** A route paused (failed deposits, or origin transactions failing in a row); once per pause. */
export function routePausedEvent(r: PausedRoute): NotifyEvent {
  const why = r.reason === 'originFailures' ? 'origin transactions failed on chain in a row' : 'a failed deposit is unresolved';
  return {
    kind: 'route_paused',
    subject: `route:${r.asset}:${r.originChain}:${r.destinationChain}`,
    status: `${r.reason ?? 'failure'}:${r.transferIds[0] ?? 0}`,
    summary: `${routeOf(r.asset, r.originChain, r.destinationChain)} paused: ${why}; \`ballast resume\` after recovery`,
    payload: {
      asset: r.asset,
      originChain: r.originChain,
      destinationChain: r.destinationChain,
      reason: r.reason ?? 'failure',
      transferIds: r.transferIds,
    },
  };
}

/**
 * A stalled transfer that reached a final status (src/notify/incidents.ts): it ends the `transfer_stalled` event
 * whose dedupe key is `opened` (the PagerDuty sink resolves that incident). Once per stall.
 */
export function transferUnstalledEvent(t: TransferRow, opened: string): NotifyEvent {
  return {
    kind: 'transfer_unstalled',
    subject: opened,
    summary: `${routeOf(t.asset, t.originChain, t.destinationChain)} no longer stalled: transfer ${t.id} ${transferStage(t.status)} (request ${t.requestId ?? 'unknown'})`,
    payload: { ...transferFields(t), relayStatus: t.relayStatus, resolves: opened },
  };
}

/**
 * A paused route whose pause is over (its failed deposit resolved, or a deposit landed after the origin failures):
 * ends the `route_paused` event whose dedupe key is `opened`, with that event's payload. Once per pause.
 */
export function routeResumedEvent(paused: { [key: string]: NotifyJson }, opened: string): NotifyEvent {
  const text = (key: string): string => (typeof paused[key] === 'string' ? (paused[key] as string) : '?');
  return {
    kind: 'route_resumed',
    subject: opened,
    summary: `${routeOf(text('asset'), text('originChain'), text('destinationChain'))} resumed: the transfers that paused it are resolved`,
    payload: { ...paused, resolves: opened },
  };
}

/** A withdrawal of an unfilled deposit that ended: `executed` (back in the treasury) or `failed` (needs an operator). */
export function withdrawalEvent(w: WithdrawalRow, outcome: 'executed' | 'failed', detail: string): NotifyEvent {
  return {
    kind: 'withdrawal',
    subject: `withdrawal:${w.id}`,
    status: outcome,
    summary:
      outcome === 'executed'
        ? `deposit of transfer ${w.transferId} on ${w.chain} withdrawn back to the treasury`
        : `withdrawal of the deposit of transfer ${w.transferId} on ${w.chain} gave up: ${detail}`,
    payload: {
      withdrawalId: w.id,
      transferId: w.transferId,
      requestId: w.requestId,
      chain: w.chain,
      wallet: w.wallet,
      currency: w.currency,
      ...amountFields('amount', w.amount, undefined),
      outcome,
      detail,
    },
  };
}

/** Days before a Relay endpoint's `Sunset` date from which it is reported. */
export const SUNSET_NOTICE_DAYS = 30;

/**
 * A Relay endpoint whose `Sunset` date lies within {@link SUNSET_NOTICE_DAYS} days (or has passed), or undefined
 * when the notice has no such date. Once per endpoint and date.
 */
export function sunsetEvent(notice: DeprecationNotice, nowSec: number): NotifyEvent | undefined {
  const sunset = notice.sunsetAtSec;
  if (sunset === undefined || sunset - nowSec > SUNSET_NOTICE_DAYS * 86_400) return undefined;
  const day = new Date(sunset * 1000).toISOString().slice(0, 10);
  const successor = notice.links.find((l) => l.rel === 'successor-version')?.uri ?? null;
  return {
    kind: 'relay_sunset_soon',
    subject: `endpoint:${notice.endpoint}`,
    status: day,
    summary: `Relay endpoint ${notice.endpoint} stops answering on ${day} (Sunset); before then: ${deprecationFix(notice.endpoint)}`,
    payload: {
      endpoint: notice.endpoint,
      sunsetAt: new Date(sunset * 1000).toISOString(),
      daysLeft: Math.floor((sunset - nowSec) / 86_400),
      successor,
    },
  };
}

/** This replica became the leader (a new lease term); once per term. */
export function leaderGainedEvent(lease: string, instance: string, epoch: bigint): NotifyEvent {
  return {
    kind: 'leader_changed',
    subject: `lease:${lease}`,
    status: `epoch:${epoch.toString(10)}`,
    summary: `${instance} is now the leader (lease ${lease}, term ${epoch.toString(10)})`,
    payload: { lease, instance, epoch: epoch.toString(10) },
  };
}
