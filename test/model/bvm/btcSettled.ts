/**
 * What must hold once a Bitcoin model schedule has settled (faults off, the settling cycles run), on top of
 * what holds after every cycle (btcInvariants.ts). The fee market keeps moving while the schedule settles (it
 * is the world, not a fault), so a transfer may rightly be left waiting, but never silently:
 * - No stranding: every transfer is final, or provably waiting with an alert (its `stalledAtMs` is set: the
 *   product flags a transfer whose cancel reached its fee cap, or whose deposit is mined without a final
 *   status), once its order deadline is {@link STRANDED_AFTER_CYCLES} settling cycles past (48 blocks); one
 *   still in flight whose deposits are all dead (an input spent by another transaction) for longer than the reorg
 *   depth and {@link DEAD_IN_FLIGHT_CYCLES} settling cycles (42 blocks) is stranded whatever its flag; no transfer is left `prepared`/`broadcast` with none of its transactions (deposit
 *   or cancel) pending unless flagged, its deposit is dead (then the bound above applies), or the node refuses its
 *   deposit (under the minimum fee, or its parent dropped) and its deadline is less than a settling cycle past;
 *   nor `deposited` once the solver settled its order.
 * - No deposit is stranded: each is mined with its order settled by the solver, provably dead (an input spent
 *   by another transaction mined {@link BTC_PROOF_DEPTH} deep), or its transfer is waiting as above.
 * - Fee loops are bounded by the route pause: on one route, the cancels mined in a row (each a deposit fee and
 *   a cancel fee paid for nothing; a deposit that lands ends the row) are at most
 *   `policy.pauseRouteAfterOriginFailures` plus the transfers already in flight when the transfer of the last
 *   allowed one failed (the moment the route pauses): no transfer created after that moment may end in a
 *   mined cancel.
 * - Re-pricing steps up and is paced: each cancel of a transfer pays more than the one before it, and a
 *   transfer has at most 1 + (blocks from its first cancel to its last) ÷ `cancelRepriceAfterBlocks` cancels,
 *   plus one for each cancel the node refused (re-priced at once).
 * - The treasury is back in band when every order ended in a fill, a refund or nothing, no transfer is in
 *   flight, no route reached its pause, and the market has been steady and payable (clearing at most
 *   {@link PAYABLE_SHARE_OF_CAP} of `maxFeeRateSatPerVb`) for the last
 *   {@link CALM_CYCLES} settling cycles: Ballast then had room to pay the need.
 */
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import { IN_FLIGHT_STATUSES, type TransferRow } from '../../../packages/ballast/src/store/transfers.ts';
import { parseBtcTx, type BtcTx } from './btcChain.ts';
import { checkBtc, deadAt, killerOf, signedTxs, summary, transfersOf, type BtcLimits } from './btcInvariants.ts';
import { BTC_BANDS, SATS } from './btcSchedule.ts';
import {
  ALPHA,
  BTC_BLOCK_MS,
  BTC_KEYS,
  BTC_PROOF_DEPTH,
  MINER_FEE_RESERVE_SATS,
  MODEL_QUOTE_DEADLINE_SEC,
  type BtcWorld,
} from './btcWorld.ts';

/**
 * Settling cycles after its order deadline by which a transfer is final or flagged: one sees the deposit
 * unmined past its deadline and signs a cancel; one re-prices it if it sits under the market
 * (`cancelRepriceAfterBlocks` is less than a cycle) or flags it at its cap; the cancel, mined within a block, is
 * past the reorg depth ({@link BTC_PROOF_DEPTH}, less than a cycle's blocks) at the next, which records the first
 * proof of absence; the one after fails the transfer on the second proof. With six settling cycles, every
 * deadline that passed before the second of them is judged.
 */
export const STRANDED_AFTER_CYCLES = 4;

/**
 * Settling cycles a transfer may stay in flight once all its deposits are dead (the killing spend mined), on
 * top of the spend reaching the reorg depth ({@link BTC_PROOF_DEPTH}): two for the two proofs of absence, and
 * one of slack.
 */
export const DEAD_IN_FLIGHT_CYCLES = 3;

/** Settling cycles at the end over which the market must have been steady for the band to be owed. */
export const CALM_CYCLES = 3;

/** Share of `maxFeeRateSatPerVb` up to which the market counts as payable for the band to be owed (see `band`). */
export const PAYABLE_SHARE_OF_CAP = 0.8;

const FINAL = ['success', 'failure', 'refund', 'origin_failed', 'withdrawn'];
const LANDED = ['deposited', 'success', 'failure', 'refund'];

/** When the order of a transfer expires, ms (its quote's deadline; else ten minutes after it was created). */
function deadlineMs(world: BtcWorld, row: TransferRow): number {
  const record = row.orderId ? world.relay.find(row.orderId) : undefined;
  return record ? record.order.deadlineSec * 1000 : row.createdAtMs + MODEL_QUOTE_DEADLINE_SEC * 1000;
}

/** When a transfer became final, ms (its first event to a final status), or +∞ while in flight. */
function finalAtMs(row: TransferRow): number {
  return row.events.find((e) => FINAL.includes(e.toStatus))?.atMs ?? Number.POSITIVE_INFINITY;
}

const blocksBetween = (fromMs: number, toMs: number) => Math.floor((toMs - fromMs) / BTC_BLOCK_MS);

/** Height of the canonical chain's tip at `ms`: its last block mined at or before then. */
function heightAt(world: BtcWorld, ms: number): number {
  let height = 0;
  for (const b of world.bitcoin.blocks) if (b.timeMs <= ms) height = b.height;
  return height;
}

/** The checks that hold once the schedule has settled. @returns one line per violation */
export async function checkBtcSettled(world: BtcWorld, db: StoreDb, limits: BtcLimits): Promise<string[]> {
  const rows = await transfersOf(db);
  const out = checkBtc(world, rows, limits);
  out.push(...strandedTransfers(world, rows, limits), ...strandedDeposits(world, rows, limits));
  const streaks = loops(world, rows, limits);
  out.push(...streaks.violations, ...repricing(world, rows, limits));
  out.push(...band(world, rows, limits, streaks.paused));
  return out;
}

/** Blocks after its deadline by which a transfer is final or flagged; blocks it may stay in flight with dead deposits. */
function boundsOf(limits: BtcLimits): { strandedAfter: number; deadInFlight: number } {
  return {
    strandedAfter: STRANDED_AFTER_CYCLES * limits.settleGapBlocks,
    deadInFlight: BTC_PROOF_DEPTH + DEAD_IN_FLIGHT_CYCLES * limits.settleGapBlocks,
  };
}

/** Whether a transfer is in flight and waiting with an alert, or still within the bound after its deadline. */
function excused(world: BtcWorld, row: TransferRow, limits: BtcLimits): boolean {
  if (!IN_FLIGHT_STATUSES.includes(row.status)) return false;
  return row.stalledAtMs !== null || blocksBetween(deadlineMs(world, row), world.nowMs) < boundsOf(limits).strandedAfter;
}

/** Whether the node refuses `tx` now for its fee (under the mempool minimum) or a parent it does not hold. */
function nodeRefuses(world: BtcWorld, tx: BtcTx): boolean {
  const chain = world.bitcoin;
  const fee = chain.fee(tx);
  if (fee === null || fee < chain.minFeeSatPerVb * BigInt(tx.vsize)) return true;
  return tx.inputs.some((i) => !chain.mined(i.txid) && !chain.inMempool(i.txid));
}

function strandedTransfers(world: BtcWorld, rows: TransferRow[], limits: BtcLimits): string[] {
  const out: string[] = [];
  const chain = world.bitcoin;
  const { strandedAfter, deadInFlight } = boundsOf(limits);
  for (const row of rows) {
    if (!IN_FLIGHT_STATUSES.includes(row.status)) continue;
    const late = blocksBetween(deadlineMs(world, row), world.nowMs);
    if (late >= strandedAfter && row.stalledAtMs === null)
      out.push(
        `transfer #${row.id} is stranded: ${row.status} ${late} blocks after its order deadline (bound ${strandedAfter}), neither final nor flagged stalled; transfers: ${summary(rows)}`,
      );
    const deposits = row.txs.flatMap((t) => {
      try {
        return [parseBtcTx(t.rawTx)];
      } catch {
        return []; // a deposit found on chain is recorded without its raw transaction
      }
    });
    const killers = deposits.map((d) => killerOf(world, d, 1));
    const youngest = Math.min(...killers.map((k) => k?.depth ?? 0));
    if (row.status !== 'deposited' && deposits.length > 0 && youngest > deadInFlight)
      out.push(
        `transfer #${row.id} is stranded: ${row.status} while its deposit ${deposits[0]!.txid} is dead (an input spent by ${killers[0]!.txid}, mined ${killers[0]!.depth} blocks deep; bound ${deadInFlight}); transfers: ${summary(rows)}`, // every killer is set when youngest > 0
      );
    // A transfer whose deposit is dead waits for its proofs of absence (bounded just above), not for a block; one
    // whose deposit the node refuses (under its minimum fee, or a parent it dropped) waits for its deadline and
    // the cycle after it, which may cancel.
    const refused = deposits.length > 0 && deposits.every((d) => nodeRefuses(world, d));
    const waiting = row.stalledAtMs !== null || killers.some((k) => k !== undefined) || (refused && late < limits.settleGapBlocks);
    if ((row.status === 'prepared' || row.status === 'broadcast') && !waiting) {
      if (![...row.txs, ...row.cancels].some((t) => chain.mempool.has(t.txHash.toLowerCase())))
        out.push(`transfer #${row.id} is stranded: ${row.status} with none of its transactions pending, and not flagged stalled`);
    }
    const record = row.orderId ? world.relay.find(row.orderId) : undefined;
    if (row.status === 'deposited' && record?.action && (record.action.kind === 'failure' || record.settled)) {
      out.push(`transfer #${row.id} is deposited but the solver settled its order (${record.action.kind})`);
    }
  }
  return out;
}

function strandedDeposits(world: BtcWorld, rows: TransferRow[], limits: BtcLimits): string[] {
  const out: string[] = [];
  const chain = world.bitcoin;
  for (const d of signedTxs(world, rows).filter((s) => s.orderId !== null)) {
    const record = world.relay.find(d.orderId!);
    const mined = chain.heightOf(d.tx.txid) !== undefined;
    const settled = record?.action != null && (record.action.kind === 'failure' || record.action.kind === 'never' || record.settled);
    if (mined && settled) continue;
    if (!mined && deadAt(world, d.tx, BTC_PROOF_DEPTH)) continue;
    const row = rows.find((r) => r.orderId?.toLowerCase() === d.orderId);
    if (row && excused(world, row, limits)) continue;
    const where = mined
      ? 'mined but its order is not settled'
      : chain.mempool.has(d.tx.txid)
        ? 'in the mempool'
        : world.elsewhere.has(d.tx.txid)
          ? "in another node's mempool"
          : 'signed, unknown to the node';
    out.push(
      `deposit ${d.tx.txid} (order ${d.orderId}) is stranded: ${where}, and no input of it is spent ${BTC_PROOF_DEPTH} blocks deep; transfers: ${summary(rows)}`,
    );
  }
  return out;
}

/** The fee-loop bound per route; `paused`: whether some route reached its pause (a row of `threshold` mined cancels). */
function loops(world: BtcWorld, rows: TransferRow[], limits: BtcLimits): { violations: string[]; paused: boolean } {
  const chain = world.bitcoin;
  const threshold = limits.pauseRouteAfterOriginFailures;
  const cancelled = (r: TransferRow) => r.cancels.some((c) => chain.heightOf(c.txHash.toLowerCase()) !== undefined);
  const routes = new Map<string, TransferRow[]>();
  for (const r of rows) {
    const key = `${r.asset} ${r.originChain}→${r.destinationChain}`;
    routes.set(key, [...(routes.get(key) ?? []), r]);
  }
  const violations: string[] = [];
  let paused = false;
  for (const [route, list] of routes) {
    const streaks: TransferRow[][] = [[]];
    for (const r of list) {
      if (cancelled(r)) streaks.at(-1)!.push(r);
      else if (LANDED.includes(r.status)) streaks.push([]);
    }
    for (const streak of streaks) {
      if (streak.length >= threshold) paused = true;
      if (streak.length <= threshold) continue;
      const pauseMs = finalAtMs(streak[threshold - 1]!); // the streak is longer than threshold
      const first = new Set(streak.slice(0, threshold).map((r) => r.id));
      // Created strictly before: a transfer planned in the cycle that failed the last allowed one comes after the pause.
      const inFlight = list.filter((r) => !first.has(r.id) && r.createdAtMs < pauseMs && finalAtMs(r) > pauseMs).length;
      if (streak.length > threshold + inFlight)
        violations.push(
          `route ${route}: ${streak.length} cancels mined in a row (transfers ${streak.map((r) => `#${r.id}`).join(', ')}), each a deposit fee and a cancel fee for nothing; at most ${threshold + inFlight} (policy.pauseRouteAfterOriginFailures ${threshold} + ${inFlight} in flight when #${streak[threshold - 1]!.id} failed); transfers: ${summary(rows)}`,
        );
    }
  }
  return { violations, paused };
}

function repricing(world: BtcWorld, rows: TransferRow[], limits: BtcLimits): string[] {
  const out: string[] = [];
  for (const row of rows) {
    const cancels = [...row.cancels].sort((a, b) => a.signedAtMs - b.signedAtMs || a.id - b.id);
    if (cancels.length < 2) continue;
    const fees = cancels.map((c) => {
      try {
        return world.bitcoin.fee(parseBtcTx(c.rawTx));
      } catch {
        return null;
      }
    });
    for (let i = 1; i < cancels.length; i++) {
      const [before, after] = [fees[i - 1], fees[i]];
      if (before != null && after != null && after <= before)
        out.push(
          `transfer #${row.id}: cancel ${cancels[i]!.txHash} pays ${after} sat, not more than the cancel before it (${before} sat): re-pricing must step up, not loop`,
        );
    }
    const refused = cancels.filter((c) => world.refused.has(c.txHash.toLowerCase())).length;
    // In blocks of the chain as it stands (a reorg that replaces one block with two moves the tip by two at once).
    const span = heightAt(world, cancels.at(-1)!.signedAtMs) - heightAt(world, cancels[0]!.signedAtMs);
    const bound = 1 + Math.floor(span / limits.cancelRepriceAfterBlocks) + refused;
    if (cancels.length > bound)
      out.push(
        `transfer #${row.id}: ${cancels.length} cancels signed over ${span} blocks, more than ${bound} (one per cancelRepriceAfterBlocks ${limits.cancelRepriceAfterBlocks}, plus ${refused} the node refused)`,
      );
  }
  return out;
}

function band(world: BtcWorld, rows: TransferRow[], limits: BtcLimits, paused: boolean): string[] {
  const chain = world.bitcoin;
  const ordersDone = world.relay.orders.every((r) => r.action === null || r.action.kind === 'fill' || r.action.kind === 'refund');
  const idle = rows.every((r) => !IN_FLIGHT_STATUSES.includes(r.status));
  const from = chain.head() - CALM_CYCLES * limits.settleGapBlocks;
  // Payable with room: the Relay sizes its deposits with the sandbox's estimate, some 15 % above Ballast's
  // worst-case size, so a deposit it prices at the market pays up to that much more per vbyte as Ballast's
  // fee-cap measures it, and a market just under the cap yields quotes Ballast rightly refuses.
  const payable = BigInt(Math.floor(limits.maxFeeRateSatPerVb * PAYABLE_SHARE_OF_CAP));
  const calm = world.market.steady(from, chain.head(), payable);
  if (!ordersDone || !idle || paused || !calm) return [];
  const stats = chain.addressStats(BTC_KEYS.treasuryScript, chain.tipView());
  const bitcoin = stats.chain.funded - stats.chain.spent - stats.mempool.spent - MINER_FEE_RESERVE_SATS;
  const alpha = world.alpha.balanceOf(ALPHA.wbtc, ALPHA.treasury);
  const inBand = (v: bigint, b: { min: bigint; max: bigint }) => v >= b.min * SATS && v <= b.max * SATS;
  if (inBand(bitcoin, BTC_BANDS.bitcoin) && inBand(alpha, BTC_BANDS.alpha)) return [];
  return [`treasury out of band after settling: Bitcoin ${bitcoin} sat spendable, alpha ${alpha} WBTC sat; transfers: ${summary(rows)}`];
}
