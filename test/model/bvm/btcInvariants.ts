/**
 * What must hold after every cycle of a Bitcoin model schedule, judged against the in-memory chains and Relay
 * (the truth) and Ballast's store; what must hold once it has settled is in btcSettled.ts. "Our deposits" are
 * every transaction paying the depository that Ballast signed, "our cancels" every other one it signed (a
 * cancel spends a deposit's inputs back to the treasury): written ahead in the store or posted to the node.
 * - Every transaction Ballast signed is within its configured caps: a fee rate of at most
 *   `maxFeeRateSatPerVb`, and a fee of at most `maxMinerFeeSats` for a deposit, `maxCancelFeeSats` for a cancel.
 * - The need is paid at most once: deposits mined in time and not refunded, plus deposits still able to land
 *   (unmined, no input spent by a mined transaction), counting only as many of those as can land together
 *   (deposits sharing an input exclude each other), add up to at most one.
 * - No transfer is `origin_failed` while a deposit for its order is mined.
 */
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import { listRecentTransfers, type TransferRow } from '../../../packages/ballast/src/store/transfers.ts';
import { decodeOrderIdMemoScript } from '../../../packages/protocol/src/protocol/bitcoinDeposit.ts';
import { parseBtcTx, type BtcTx } from './btcChain.ts';
import { BTC_KEYS, type BtcWorld } from './btcWorld.ts';

/** The caps and policy the invariants hold Ballast to (its config), and the settling cycles' pace. */
export interface BtcLimits {
  /** `chains.bitcoin.maxFeeRateSatPerVb`, sat/vB: deposits and cancels. */
  maxFeeRateSatPerVb: number;
  /** `chains.bitcoin.maxMinerFeeSats`: a deposit's fee, satoshis. */
  maxMinerFeeSats: bigint;
  /** `chains.bitcoin.maxCancelFeeSats`: a cancel's fee, satoshis. */
  maxCancelFeeSats: bigint;
  /** `chains.bitcoin.cancelRepriceAfterBlocks`. */
  cancelRepriceAfterBlocks: number;
  /** `policy.pauseRouteAfterOriginFailures`. */
  pauseRouteAfterOriginFailures: number;
  /** Blocks between two settling cycles. */
  settleGapBlocks: number;
}

/** A transaction Ballast signed: a deposit (with its memo's order id) or a cancel. */
export interface Signed {
  tx: BtcTx;
  kind: 'deposit' | 'cancel';
  orderId: string | null;
}

/** Parsed raw transactions by hex: the checks run after every cycle over the same few transactions. */
const parsed = new Map<string, BtcTx | null>();

function tryParse(hex: string): BtcTx | null {
  const hit = parsed.get(hex);
  if (hit !== undefined) return hit;
  let tx: BtcTx | null = null;
  try {
    tx = /^(?:[0-9a-f]{2})+$/i.test(hex) ? parseBtcTx(hex) : null;
  } catch {
    tx = null; // not a transaction: nothing to check
  }
  if (parsed.size > 20_000) parsed.clear();
  parsed.set(hex, tx);
  return tx;
}

/** Every Bitcoin transaction Ballast signed that the store or the node saw. */
export function signedTxs(world: BtcWorld, rows: TransferRow[]): Signed[] {
  const all = new Map<string, BtcTx>(world.posted);
  for (const row of rows)
    for (const t of [...row.txs, ...row.cancels]) {
      const tx = tryParse(t.rawTx);
      if (tx && !all.has(tx.txid)) all.set(tx.txid, tx);
    }
  return [...all.values()].map((tx) => {
    const pays = tx.outputs.some((o) => o.script === BTC_KEYS.depositoryScript);
    const memo = tx.outputs.find((o) => o.script.startsWith('6a'));
    const orderId = pays && memo ? (decodeOrderIdMemoScript(Buffer.from(memo.script, 'hex'))?.orderId ?? null) : null;
    return { tx, kind: pays ? 'deposit' : 'cancel', orderId };
  });
}

/**
 * The transaction of another txid spending an input of `tx` in a block at least `depth` deep, with how deep,
 * or undefined when there is none (`tx` may still land).
 */
export function killerOf(world: BtcWorld, tx: BtcTx, depth: number): { txid: string; depth: number } | undefined {
  const chain = world.bitcoin;
  for (const i of tx.inputs) {
    const s = chain.spenderOf(i.txid, i.vout, { height: chain.head(), mempool: false });
    if (s !== undefined && s.txid !== tx.txid && chain.depth(s.txid) >= depth) return { txid: s.txid, depth: chain.depth(s.txid) };
  }
  return undefined;
}

/** Whether an input of `tx` is spent by another mined transaction at least `depth` deep. */
export function deadAt(world: BtcWorld, tx: BtcTx, depth: number): boolean {
  return killerOf(world, tx, depth) !== undefined;
}

/** Largest number of transactions of `txs` that share no input (they can all land together). */
function mostTogether(txs: BtcTx[]): number {
  let best = 0;
  for (let mask = 0; mask < 1 << txs.length; mask++) {
    const picked = txs.filter((_, i) => mask & (1 << i));
    const spent = picked.flatMap((t) => t.inputs.map((i) => `${i.txid}:${i.vout}`));
    if (new Set(spent).size === spent.length) best = Math.max(best, picked.length);
  }
  return best;
}

/** `#id status (error)` of every transfer, for failure reports. */
export function summary(rows: TransferRow[]): string {
  return rows
    .map((r) => `#${r.id} ${r.status}${r.stalledAtMs !== null ? ' stalled' : ''}${r.error ? ` (${r.error.slice(0, 160)})` : ''}`)
    .join('; ');
}

/** Every transfer in the store, oldest first. */
export async function transfersOf(db: StoreDb): Promise<TransferRow[]> {
  return (await listRecentTransfers(db, 100_000)).sort((a, b) => a.id - b.id);
}

/** The checks that hold between cycles. @returns one line per violation */
export async function checkBtcAlways(world: BtcWorld, db: StoreDb, limits: BtcLimits): Promise<string[]> {
  return checkBtc(world, await transfersOf(db), limits);
}

/** {@link checkBtcAlways} over transfers already read. @returns one line per violation */
export function checkBtc(world: BtcWorld, rows: TransferRow[], limits: BtcLimits): string[] {
  const out: string[] = [];
  const chain = world.bitcoin;
  const signed = signedTxs(world, rows);
  for (const { tx, kind } of signed) {
    const fee = chain.fee(tx);
    if (fee === null) continue; // spends an output nobody has seen: it can never land
    const feeCap = kind === 'deposit' ? limits.maxMinerFeeSats : limits.maxCancelFeeSats;
    if (fee * 1000n > BigInt(limits.maxFeeRateSatPerVb * 1000) * BigInt(tx.vsize) || fee > feeCap) {
      out.push(
        `${kind} ${tx.txid} pays ${fee} sat over ${tx.vsize} vB to miners, above the caps (${limits.maxFeeRateSatPerVb} sat/vB, ${feeCap} sat)`,
      );
    }
  }
  const deposits = signed.filter((s) => s.orderId !== null);
  const paid: string[] = [];
  const live: BtcTx[] = [];
  for (const d of deposits) {
    const height = chain.heightOf(d.tx.txid);
    const record = world.relay.find(d.orderId!);
    if (height !== undefined) {
      const late = record !== undefined && chain.blocks[height]!.timeMs > record.order.deadlineSec * 1000;
      if (!late && record?.action?.kind !== 'refund') paid.push(`${d.tx.txid} (mined at ${height})`);
    } else if (!deadAt(world, d.tx, 1)) live.push(d.tx);
  }
  const together = mostTogether(live);
  if (paid.length + together > 1) {
    out.push(
      `the need is paid ${paid.length + together} times: mined ${paid.join(', ') || 'none'}; still able to land ${live.map((t) => t.txid).join(', ') || 'none'}; transfers: ${summary(rows)}`,
    );
  }
  for (const row of rows) {
    if (row.status !== 'origin_failed' || !row.orderId) continue;
    const hit = deposits.find((d) => d.orderId === row.orderId!.toLowerCase() && chain.heightOf(d.tx.txid) !== undefined);
    if (hit)
      out.push(
        `transfer #${row.id} is origin_failed but deposit ${hit.tx.txid} for its order ${row.orderId} is mined; transfers: ${summary(rows)}`,
      );
  }
  return out;
}
