/**
 * Writes the ledger entry of a finished transfer (src/ledger/ledgerEntry.ts, table `transfer_ledger`) and meters
 * a success's fees and settle time. Called after a close has been committed (by the executor's tracker, the
 * next cycle's refresh, or the backfill of transfers closed by webhooks), so it never holds a close up: every
 * failure is logged, and the transfer is picked up again by {@link backfillLedger}.
 */
import type { ChainAdapter } from '../chains/adapter.ts';
import { gasMeterOf } from '../chains/capabilities.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { computeLedgerEntry, isLedgerStatus, type LedgerEntry } from '../ledger/ledgerEntry.ts';
import { FEE_COMPONENTS } from '../policy/feeBreakdown.ts';
import type { RelayClient } from '../relay/client.ts';
import { getLedgerEntry, insertLedgerEntry, transfersMissingLedger } from '../store/ledger.ts';
import { getQuote } from '../store/quotes.ts';
import { getTransfer } from '../store/transfers.ts';
import type { CycleContext } from './context.ts';

/** What the ledger writer uses from the cycle context. */
export type LedgerDeps = Pick<CycleContext, 'db' | 'chains' | 'metrics' | 'logger' | 'now'> & {
  relay: Pick<RelayClient, 'getRequests'>;
};

/** How far back {@link backfillLedger} looks for finished transfers without an entry, ms (7 days). */
export const LEDGER_BACKFILL_WINDOW_MS = 7 * 86_400_000;

/**
 * Records the ledger entry of transfer `transferId` if it is final (success, failure, refund, origin_failed) and
 * has none yet. Reads GET /requests/v3 (realized fees, delivered amount; success only) and the origin chain (gas
 * paid per mined origin transaction, replacements included); a failed read leaves that part to its fallback
 * (quoted fees, guaranteed minimum, no gas). On the first write it increments
 * `ballast_fees_paid_usd_total{component="gas"}` by the origin gas paid (whatever the outcome: the chain charged
 * it), and for a success also the other components (execution, swap, platform, app) and observes
 * `ballast_transfer_fees_usd` and `ballast_transfer_settle_seconds`.
 *
 * @returns the entry written now, or null (not final, already recorded, or an error, which is logged)
 */
export async function recordLedger(deps: LedgerDeps, transferId: number): Promise<LedgerEntry | null> {
  const log = deps.logger.child({ component: 'ledger', transferId });
  try {
    const t = await getTransfer(deps.db, transferId);
    if (!t || !isLedgerStatus(t.status)) return null;
    if (await getLedgerEntry(deps.db, transferId)) return null;
    const quoteRaw = t.quoteId === null ? null : ((await getQuote(deps.db, t.quoteId))?.raw ?? null);
    let requestData: unknown = null;
    if (t.status === 'success' && t.requestId) {
      try {
        const answer = await deps.relay.getRequests({ id: t.requestId });
        requestData = answer.requests.find((r) => r.id === t.requestId)?.data ?? null;
      } catch (error) {
        log.warn({ requestId: t.requestId, err: shortErrorMessage(error) }, 'request record unreadable; ledger uses the quoted fees');
      }
    }
    const chain = deps.chains.get(t.originChain);
    // A mined replacement that ended an unwanted deposit (`cancels`) was paid for too.
    const mined = [...t.txs, ...t.cancels].filter((x) => x.status === 'confirmed' || x.status === 'reverted');
    const gasPaid = chain
      ? await originGasPaid(
          chain,
          mined.map((x) => x.txHash),
          log,
        )
      : null;
    const entry = computeLedgerEntry({
      transfer: t,
      quoteRaw,
      requestData,
      gasPaid,
      gasDecimals: chain?.nativeDecimals ?? 0,
      isOriginNative: (c) => chain !== undefined && chain.currencyKey(c) === chain.currencyKey(chain.nativeCurrency),
      nowMs: deps.now(),
    });
    if (!(await insertLedgerEntry(deps.db, entry, deps.now()))) return null;
    meter(deps, entry);
    log.info(
      {
        status: entry.status,
        received: entry.receivedOut,
        receivedSource: entry.receivedSource,
        feesSource: entry.feesSource,
        gasPaid: entry.gasPaid,
        settleMs: entry.settleMs,
      },
      'ledger entry recorded',
    );
    return entry;
  } catch (error) {
    log.error({ err: shortErrorMessage(error) }, 'ledger entry not recorded; the next cycle retries');
    return null;
  }
}

/**
 * Records the entries still missing for transfers finished in the last {@link LEDGER_BACKFILL_WINDOW_MS} (a
 * transfer closed by a webhook with no tracker waiting, or a write that failed), at most `limit` per call.
 */
export async function backfillLedger(deps: LedgerDeps, limit = 20): Promise<number> {
  let written = 0;
  for (const id of await transfersMissingLedger(deps.db, deps.now() - LEDGER_BACKFILL_WINDOW_MS, limit)) {
    if (await recordLedger(deps, id)) written += 1;
  }
  return written;
}

/** Sum of the network fees of the given origin transactions; null when any is unknown or unreadable. */
async function originGasPaid(chain: ChainAdapter, hashes: string[], log: CycleContext['logger']): Promise<bigint | null> {
  const meter = gasMeterOf(chain);
  if (!meter || hashes.length === 0) return null;
  let sum = 0n;
  for (const hash of hashes) {
    try {
      const paid = await meter.gasPaid(hash);
      if (paid === null) return null;
      sum += paid;
    } catch (error) {
      log.warn({ txHash: hash, err: shortErrorMessage(error) }, 'origin gas paid unreadable; ledger records none');
      return null;
    }
  }
  return sum;
}

/** Converts at the metrics edge: micro-USD bigint → float USD. */
function usd(micros: bigint): number {
  return Number(micros) / 1e6;
}

function meter(deps: LedgerDeps, e: LedgerEntry): void {
  if (e.status !== 'success') {
    deps.metrics.feesPaidUsdTotal.inc({ component: 'gas' }, usd(e.gasUsdMicros ?? 0n));
    return;
  }
  for (const c of FEE_COMPONENTS) deps.metrics.feesPaidUsdTotal.inc({ component: c }, usd(e.fees?.[c] ?? 0n));
  deps.metrics.feesPaidUsdTotal.inc({ component: 'gas' }, usd(e.gasUsdMicros ?? 0n));
  deps.metrics.transferFeesUsd.observe(usd(e.totalFeesUsdMicros));
  if (e.settleMs !== null) deps.metrics.transferSettleSeconds.observe(e.settleMs / 1000);
}
