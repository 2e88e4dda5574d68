/**
 * What must hold after every cycle of a Bitcoin model schedule, and after it has settled, judged against the
 * in-memory chains and Relay (the truth) and Ballast's store. "Our deposits" are every transaction paying the
 * depository that Ballast signed: written ahead in the store or posted to the node.
 * - Every signed transaction's miner fee is within the caps (rate × vsize and an absolute cap).
 * - The need is paid at most once: deposits mined in time and not refunded, plus deposits still able to land
 *   (unmined, no input spent by a mined transaction), counting only as many of those as can land together
 *   (deposits sharing an input exclude each other), add up to at most one.
 * - No transfer is `origin_failed` while a deposit for its order is mined.
 * At the end (faults off, cycles settled):
 * - no deposit is stranded: each is mined with its order settled by the solver, or provably dead (an input
 *   spent by another transaction mined {@link BTC_PROOF_DEPTH} deep);
 * - no transfer is left `prepared`/`broadcast` with nothing of it in the mempool, nor `deposited` once the
 *   solver settled its order;
 * - the treasury is back in band when every order ended in a fill or a refund.
 */
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import { listRecentTransfers, type TransferRow } from '../../../packages/ballast/src/store/transfers.ts';
import { decodeOrderIdMemoScript } from '../../../packages/protocol/src/protocol/bitcoinDeposit.ts';
import { parseBtcTx, type BtcTx } from './btcChain.ts';
import { BTC_BANDS, SATS } from './btcSchedule.ts';
import {
  ALPHA,
  BTC_KEYS,
  BTC_PROOF_DEPTH,
  MAX_FEE_RATE_SAT_PER_VB,
  MAX_MINER_FEE_SATS,
  MINER_FEE_RESERVE_SATS,
  type BtcWorld,
} from './btcWorld.ts';

/** A transaction Ballast signed; `orderId` when it is a deposit (its memo's order id). */
interface Signed {
  tx: BtcTx;
  orderId: string | null;
}

function tryParse(hex: string): BtcTx | null {
  try {
    return /^(?:[0-9a-f]{2})+$/i.test(hex) ? parseBtcTx(hex) : null;
  } catch {
    return null;
  }
}

/** Every Bitcoin transaction Ballast signed that the store or the node saw. */
function signedTxs(world: BtcWorld, rows: TransferRow[]): Signed[] {
  const all = new Map<string, BtcTx>(world.posted);
  for (const row of rows)
    for (const t of row.txs) {
      const tx = tryParse(t.rawTx);
      if (tx && !all.has(tx.txid)) all.set(tx.txid, tx);
    }
  return [...all.values()].map((tx) => {
    const pays = tx.outputs.some((o) => o.script === BTC_KEYS.depositoryScript);
    const memo = tx.outputs.find((o) => o.script.startsWith('6a'));
    const orderId = pays && memo ? (decodeOrderIdMemoScript(Buffer.from(memo.script, 'hex'))?.orderId ?? null) : null;
    return { tx, orderId };
  });
}

/** Whether an input of `tx` is spent by another mined transaction at least `depth` deep. */
function deadAt(world: BtcWorld, tx: BtcTx, depth: number): boolean {
  const chain = world.bitcoin;
  return tx.inputs.some((i) => {
    const s = chain.spenderOf(i.txid, i.vout, { height: chain.head(), mempool: false });
    return s !== undefined && s.txid !== tx.txid && chain.depth(s.txid) >= depth;
  });
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
function summary(rows: TransferRow[]): string {
  return rows.map((r) => `#${r.id} ${r.status}${r.error ? ` (${r.error.slice(0, 160)})` : ''}`).join('; ');
}

const transfers = (db: StoreDb) => listRecentTransfers(db, 100_000);

/** The checks that hold between cycles. @returns one line per violation */
export async function checkBtcAlways(world: BtcWorld, db: StoreDb): Promise<string[]> {
  return check(world, await transfers(db));
}

function check(world: BtcWorld, rows: TransferRow[]): string[] {
  const out: string[] = [];
  const chain = world.bitcoin;
  const signed = signedTxs(world, rows);
  for (const { tx } of signed) {
    const fee = chain.fee(tx);
    if (fee === null) continue; // spends an output nobody has seen: it can never land
    if (fee * 1000n > BigInt(MAX_FEE_RATE_SAT_PER_VB * 1000) * BigInt(tx.vsize) || fee > MAX_MINER_FEE_SATS) {
      out.push(
        `transaction ${tx.txid} pays ${fee} sat over ${tx.vsize} vB to miners, above the caps (${MAX_FEE_RATE_SAT_PER_VB} sat/vB, ${MAX_MINER_FEE_SATS} sat)`,
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

/** The checks that hold once the schedule has settled. @returns one line per violation */
export async function checkBtcSettled(world: BtcWorld, db: StoreDb): Promise<string[]> {
  const rows = await transfers(db);
  const out = check(world, rows);
  const chain = world.bitcoin;
  for (const d of signedTxs(world, rows).filter((s) => s.orderId !== null)) {
    const record = world.relay.find(d.orderId!);
    const mined = chain.heightOf(d.tx.txid) !== undefined;
    const settled = record?.action != null && (record.action.kind === 'failure' || record.action.kind === 'never' || record.settled);
    if (mined && settled) continue;
    if (!mined && deadAt(world, d.tx, BTC_PROOF_DEPTH)) continue;
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
  for (const row of rows) {
    const record = row.orderId ? world.relay.find(row.orderId) : undefined;
    if (row.status === 'prepared' || row.status === 'broadcast') {
      if (!row.txs.some((t) => chain.mempool.has(t.txHash.toLowerCase())))
        out.push(`transfer #${row.id} is ${row.status} with none of its transactions pending`);
    }
    if (row.status === 'deposited' && record?.action && (record.action.kind === 'failure' || record.settled)) {
      out.push(`transfer #${row.id} is deposited but the solver settled its order (${record.action.kind})`);
    }
  }
  const allSettled = world.relay.orders.every((r) => r.action === null || r.action.kind === 'fill' || r.action.kind === 'refund');
  if (allSettled) {
    const stats = chain.addressStats(BTC_KEYS.treasuryScript, chain.tipView());
    const bitcoin = stats.chain.funded - stats.chain.spent - stats.mempool.spent - MINER_FEE_RESERVE_SATS;
    const alpha = world.alpha.balanceOf(ALPHA.wbtc, ALPHA.treasury);
    const inBand = (v: bigint, b: { min: bigint; max: bigint }) => v >= b.min * SATS && v <= b.max * SATS;
    if (!inBand(bitcoin, BTC_BANDS.bitcoin) || !inBand(alpha, BTC_BANDS.alpha)) {
      out.push(`treasury out of band after settling: Bitcoin ${bitcoin} sat spendable, alpha ${alpha} WBTC sat`);
    }
  }
  return out;
}
