/**
 * In-flight transfers: refreshed from the status endpoint at the start of a cycle, then handed to the planner
 * as already moved (docs/design.md "Count in-flight transfers as already moved").
 */
import { followRefund, followRefunds } from './followRefund.ts';
import { isKnownRequestStatus } from '@ballast/protocol/relay/schemas.ts';
import { relayStatusLabel } from '../metrics/metrics.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { crashPoint } from '../core/crashPoints.ts';
import { applyRequestStatus } from '../executor/applyRequestStatus.ts';
import { reconcileOrigins } from './reconcile.ts';
import { recheckReorgs } from './reorgs.ts';
import { handleStalled } from './stalled.ts';
import { getTransfer, listInFlightTransfers, type TransferRow } from '../store/transfers.ts';
import type { CycleContext } from './context.ts';
import { backfillLedger, recordLedger } from './recordLedger.ts';

/**
 * What {@link refreshInFlight} uses: the store, the Relay client, the chain adapters, the config (tracking, kill
 * switch), the leader check, metrics, the logger and the clock.
 */
export type RefreshDeps = Pick<
  CycleContext,
  'config' | 'db' | 'relay' | 'chains' | 'leading' | 'metrics' | 'logger' | 'now' | 'background'
>;

/** What a refresh leaves: transfers still in flight, and those it closed (final now, in flight before). */
export interface RefreshedInFlight {
  inFlight: TransferRow[];
  closed: TransferRow[];
}

/**
 * Re-checks mined origin transactions that are not final yet (src/cycle/reorgs.ts), reconciles transfers whose
 * origin transactions are unconfirmed (src/cycle/reconcile.ts), flags and helps stalled ones
 * (src/cycle/stalled.ts), then polls the status of each deposited transfer once and closes those that reached
 * a terminal state naming our deposit.
 *
 * @returns the transfers still in flight after the refresh, and those it closed
 */
export async function refreshInFlight(ctx: RefreshDeps): Promise<RefreshedInFlight> {
  const before = await listInFlightTransfers(ctx.db);
  await recheckReorgs(ctx, before);
  await reconcileOrigins(ctx, await listInFlightTransfers(ctx.db));
  const rows = await listInFlightTransfers(ctx.db);
  await handleStalled(ctx, rows);
  for (const row of rows) {
    if (row.status !== 'deposited' || !row.requestId) continue;
    if (ctx.background?.has(row.id)) continue; // its tracker from an earlier cycle reads the status (src/cycle/backgroundTracking.ts)
    try {
      const status = await ctx.relay.getStatus(row.requestId);
      noteRelayStatus(ctx, status.status, { transferId: row.id, requestId: row.requestId });
      const applied = await applyRequestStatus(ctx.db, row, status, { nowMs: ctx.now(), closedBy: 'closed by the next cycle' });
      if (applied === 'foreign_deposit' || applied === 'terminal_not_ours') {
        ctx.logger.error(
          { transferId: row.id, requestId: row.requestId, inTxHashes: status.inTxHashes },
          'status does not name our deposit; not accepted',
        );
      } else if (applied === 'closed') {
        crashPoint('transfer:final');
        ctx.metrics.transfersTotal.inc({
          outcome: status.status,
          asset: row.asset,
          origin_chain: row.originChain,
          destination_chain: row.destinationChain,
        });
        ctx.logger.info({ transferId: row.id, requestId: row.requestId, status: status.status }, 'in-flight transfer closed');
        await recordLedger(ctx, row.id); // after the close is committed; never throws
        if (status.status !== 'success') await followRefund(ctx, row.id); // never throws
      }
    } catch (error) {
      ctx.logger.warn({ transferId: row.id, requestId: row.requestId, err: shortErrorMessage(error) }, 'in-flight status read failed');
    }
  }
  await backfillLedger(ctx); // closed by a webhook with no tracker, or a ledger write that failed
  await followRefunds(ctx); // the same for refund follow-ups
  const still = await listInFlightTransfers(ctx.db);
  ctx.metrics.transfersInFlight.set(still.length);
  ctx.metrics.transfersStalled.set(still.filter((r) => r.stalledAtMs !== null).length);
  const stillIds = new Set(still.map((r) => r.id));
  const closed: TransferRow[] = [];
  for (const r of before) if (!stillIds.has(r.id)) closed.push((await getTransfer(ctx.db, r.id)) ?? r);
  return { inFlight: still, closed };
}

/**
 * Meters a status read from the API and warns about a value Ballast does not know (it stays non-final and is
 * tracked on; docs/relay-contract.md "States and transitions", docs/design.md "Status enum").
 */
export function noteRelayStatus(
  ctx: Pick<CycleContext, 'metrics' | 'logger'>,
  status: string,
  fields: { transferId?: number; requestId?: string | null },
): void {
  ctx.metrics.relayStatusesTotal.inc({ status: relayStatusLabel(status) });
  if (!isKnownRequestStatus(status)) ctx.logger.warn({ ...fields, status }, 'unknown request status; treated as not final');
}
