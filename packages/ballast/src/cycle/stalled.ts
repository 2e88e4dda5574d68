/**
 * Transfers that stay in flight too long (`tracking.stalledAfterSec`): a status that never becomes final, a
 * request the service files under another id than the quote's, a deposit it never indexed. They are never
 * dropped (their funds stay credited, so nothing is paid twice); they are flagged once (history event, metric
 * `ballast_transfers_stalled`, error log) for an operator, and a `deposited` one is helped along each cycle:
 * - its request is looked up by the deposit's transaction hash among the wallet's requests (docs/relay-contract.md "GET
 *   /requests/v3": by `user`; a record's `data.inTxs[].txHash`); a record under another id that names our
 *   deposit is adopted, so the status polls that follow read the right request;
 * - when no record names the deposit, it is announced again (docs/relay-contract.md "POST /transactions/index").
 */
import { stallPolicyOf } from '../chains/capabilities.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { sameTxId } from '../core/txId.ts';
import type { RequestsResponse } from '@ballast/protocol/relay/schemas.ts';
import { depositTxOf } from '../store/transferRows.ts';
import { IN_FLIGHT_STATUSES, adoptRequestId, markTransferStalled, type TransferRow } from '../store/transfers.ts';
import type { CycleContext } from './context.ts';
import { notify } from '../notify/notify.ts';
import { stalledEvent } from '../notify/eventOf.ts';

/** What handling stalled transfers uses: the store, the chain adapters, `tracking` config, the Relay client, the logger and the clock. */
export type StalledDeps = Pick<CycleContext, 'db' | 'chains' | 'config' | 'logger' | 'now' | 'relay'>;

/**
 * Whether an in-flight transfer counts as stalled at `nowMs`: in flight for at least `stalledAfterSec`, counted
 * from its creation for one not yet deposited and from its `deposited` event for a deposited one. Pure.
 */
export function isStalled(row: TransferRow, nowMs: number, stalledAfterSec: number): boolean {
  if (!IN_FLIGHT_STATUSES.includes(row.status)) return false;
  const deposited = [...row.events].reverse().find((e) => e.toStatus === 'deposited' && e.fromStatus !== 'deposited');
  const since = row.status === 'deposited' && deposited ? deposited.atMs : row.createdAtMs;
  return nowMs - since >= stalledAfterSec * 1000;
}

/**
 * Whether a deposited transfer counts as stalled by blocks: its deposit mined at least `afterBlocks` blocks below
 * `head` (the including block counted) while its request is still not final. Pure.
 */
export function isStalledByBlocks(row: TransferRow, head: bigint, afterBlocks: number): boolean {
  if (row.status !== 'deposited') return false;
  const mined = depositTxOf(row)?.blockNumber;
  return mined !== null && mined !== undefined && head - mined + 1n > BigInt(afterBlocks);
}

/** The deposit transaction of a deposited transfer: its last recorded origin transaction (a replacement included). */
export function depositTxHash(row: TransferRow): string | undefined {
  return depositTxOf(row)?.txHash;
}

/**
 * The id of the request record that names `txHash` among its deposits (`data.inTxs[].txHash`), or undefined.
 * Pure; record shapes other than the published v3 one are skipped.
 */
export function requestIdForDeposit(records: RequestsResponse['requests'], txHash: string): string | undefined {
  for (const r of records) {
    const inTxs = (r.data as { inTxs?: unknown } | undefined)?.inTxs; // loose object: checked just below
    if (!Array.isArray(inTxs)) continue;
    const names = inTxs.some(
      (t) => typeof (t as { txHash?: unknown })?.txHash === 'string' && sameTxId((t as { txHash: string }).txHash, txHash),
    );
    if (names) return r.id;
  }
  return undefined;
}

/**
 * Flags and helps the stalled transfers among `rows` (see the module doc). Failures of the lookups are logged
 * and change nothing; the transfer stays in flight either way.
 *
 * @returns how many of `rows` are stalled
 */
export async function handleStalled(ctx: StalledDeps, rows: TransferRow[]): Promise<number> {
  const stalledAfterSec = ctx.config.tracking.stalledAfterSec;
  // One GET /requests/v3 per wallet per pass, however many of its transfers are stalled.
  const requestsOf = new Map<string, Promise<RequestsResponse['requests']>>();
  const lookup = (user: string) => {
    if (!requestsOf.has(user))
      requestsOf.set(
        user,
        ctx.relay.getRequests({ user }).then((r) => r.requests),
      );
    return requestsOf.get(user)!; // set just above
  };
  let count = 0;
  const heads = new Map<string, Promise<bigint | null>>();
  for (const row of rows) {
    const byBlocks = await stalledBlocks(ctx, row, heads);
    if (!isStalled(row, ctx.now(), stalledAfterSec) && byBlocks === null) continue;
    count += 1;
    const log = ctx.logger.child({ component: 'stalled', transferId: row.id, requestId: row.requestId, orderId: row.orderId });
    const ageSec = Math.floor((ctx.now() - row.createdAtMs) / 1000);
    const why = byBlocks ?? `${row.status} for over ${stalledAfterSec} s`;
    try {
      if (await markTransferStalled(ctx.db, row.id, { nowMs: ctx.now(), detail: `${why} (transfer ${ageSec} s old); still credited` })) {
        log.error(
          { status: row.status, ageSec, relayStatus: row.relayStatus },
          'transfer stalled: still in flight and credited; needs an operator look',
        );
        await notify(ctx, stalledEvent(row, why));
      }
    } catch (error) {
      log.warn({ err: shortErrorMessage(error) }, 'could not flag the transfer stalled');
      continue;
    }
    if (row.status === 'deposited') await helpDeposited(ctx, row, lookup, log);
  }
  return count;
}

/**
 * Why a deposited transfer on a chain with a block-based stall policy is stalled (its deposit's depth), or null.
 * The head of each such chain is read once per pass; a head that cannot be read decides nothing.
 */
async function stalledBlocks(ctx: StalledDeps, row: TransferRow, heads: Map<string, Promise<bigint | null>>): Promise<string | null> {
  const chain = ctx.chains.get(row.originChain);
  const afterBlocks = chain ? stallPolicyOf(chain)?.stalledAfterBlocks(row.amountIn) : undefined;
  if (!chain || afterBlocks === undefined || row.status !== 'deposited') return null;
  if (!heads.has(chain.name))
    heads.set(
      chain.name,
      chain.head().catch(() => null),
    );
  const head = await heads.get(chain.name)!; // set just above
  if (head === null || !isStalledByBlocks(row, head, afterBlocks)) return null;
  return `deposit mined ${head - depositTxOf(row)!.blockNumber! + 1n} blocks deep without a final status (stalled after ${afterBlocks})`; // isStalledByBlocks checked the block
}

async function helpDeposited(
  ctx: StalledDeps,
  row: TransferRow,
  requestsOf: (user: string) => Promise<RequestsResponse['requests']>,
  log: CycleContext['logger'],
): Promise<void> {
  const deposit = depositTxHash(row);
  if (!deposit) return;
  let found: string | undefined;
  try {
    found = requestIdForDeposit(await requestsOf(row.user), deposit);
  } catch (error) {
    log.warn({ err: shortErrorMessage(error), txHash: deposit }, 'request lookup by deposit hash failed; tried again next cycle');
    return;
  }
  if (found !== undefined && found !== row.requestId) {
    try {
      await adoptRequestId(ctx.db, row.id, found, {
        nowMs: ctx.now(),
        detail: `the service files deposit ${deposit} under request ${found}, not ${row.requestId ?? '(none)'}; tracking ${found}`,
      });
      log.error({ txHash: deposit, was: row.requestId, now: found }, 'deposit filed under another request id; tracking that one');
      row.requestId = found; // keep the row read at the start in step with the store
    } catch (error) {
      log.error({ err: shortErrorMessage(error), txHash: deposit, found }, 'could not adopt the request id naming our deposit');
    }
    return;
  }
  if (found !== undefined) return; // known under our id: only its status is slow
  try {
    await ctx.relay.indexTransaction({ chainId: row.originChainId, txHash: deposit });
    log.warn({ txHash: deposit }, 'no request names our deposit; announced it again (POST /transactions/index)');
  } catch (error) {
    log.warn({ err: shortErrorMessage(error), txHash: deposit }, 're-announcing the deposit failed; tried again next cycle');
  }
}
