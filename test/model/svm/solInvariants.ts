/**
 * What must hold after every cycle of a Solana model schedule, and after it has settled, judged against the
 * in-memory cluster and Relay (the truth) and Ballast's store. "Our deposits" are every signed transaction
 * carrying a depository `deposit_token` instruction: written ahead in the store or sent to the node.
 * - Every transaction of ours that landed paid a fee within the caps (one signature plus the highest priority
 *   fee the config allows).
 * - The need is paid at most once: deposits landed successfully in time and not refunded, plus deposits still
 *   able to land (not landed, their blockhash still valid), add up to at most one.
 * - No transfer is `origin_failed` while a deposit for its order landed successfully.
 * At the end (faults off, cycles settled):
 * - no deposit is stranded: each landed with its order settled by the solver, landed failed (nothing moved), or
 *   can provably never land (its blockhash expired at the finalized block height);
 * - no transfer is left `prepared`/`broadcast` with none of its transactions about to land, nor `deposited`
 *   once the solver settled its order;
 * - the treasury is back in band when every order ended in a fill or a refund.
 */
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import { listRecentTransfers, type TransferRow } from '../../../packages/ballast/src/store/transfers.ts';
import { MAX_FEE_LAMPORTS } from './solHarness.ts';
import { ALPHA, SOL } from './solAccounts.ts';
import { BLOCKHASH_VALID_BLOCKS, decodeSolTx, type DecodedSolTx } from './solChain.ts';
import { slotTimeMs } from './solRelay.ts';
import { SOL_BANDS, USDC } from './solSchedule.ts';
import type { SolWorld } from './solWorld.ts';

function tryDecode(raw: string): DecodedSolTx | null {
  try {
    return decodeSolTx(raw);
  } catch {
    return null;
  }
}

/** Every Solana transaction Ballast signed that the store or the node saw, by signature. */
function signedTxs(world: SolWorld, rows: TransferRow[]): DecodedSolTx[] {
  const all = new Map<string, DecodedSolTx>();
  const raws = [...world.posted.values(), ...rows.flatMap((r) => r.txs.map((t) => t.rawTx))];
  for (const raw of raws) {
    const d = tryDecode(raw);
    if (d && !all.has(d.signature)) all.set(d.signature, d);
  }
  return [...all.values()];
}

/** Whether `d` can still land: not landed and its blockhash accepted at the tip. */
function canLand(world: SolWorld, d: DecodedSolTx): boolean {
  const chain = world.solana;
  if (chain.bySignature.has(d.signature)) return false;
  const s = chain.slotOfBlockhash(d.blockhash);
  return s !== undefined && chain.tip <= s + BLOCKHASH_VALID_BLOCKS;
}

function summary(rows: TransferRow[]): string {
  return rows.map((r) => `#${r.id} ${r.status}${r.error ? ` (${r.error.slice(0, 160)})` : ''}`).join('; ');
}

const transfers = (db: StoreDb) => listRecentTransfers(db, 100_000);

/** The checks that hold between cycles. @returns one line per violation */
export async function checkSolAlways(world: SolWorld, db: StoreDb): Promise<string[]> {
  return check(world, await transfers(db));
}

function check(world: SolWorld, rows: TransferRow[]): string[] {
  const out: string[] = [];
  const chain = world.solana;
  const signed = signedTxs(world, rows);
  for (const d of signed) {
    const landed = chain.bySignature.get(d.signature);
    if (landed && landed.fee > MAX_FEE_LAMPORTS)
      out.push(`transaction ${d.signature} paid ${landed.fee} lamports, above the caps (${MAX_FEE_LAMPORTS})`);
  }
  const deposits = signed.filter((d) => d.deposit !== null);
  const paid: string[] = [];
  const live: string[] = [];
  for (const d of deposits) {
    const landed = chain.bySignature.get(d.signature);
    const record = world.relay.find(d.deposit!.id);
    if (landed && landed.err === null) {
      const late = record !== undefined && slotTimeMs(landed.slot) > record.order.deadlineSec * 1000;
      if (!late && record?.action?.kind !== 'refund') paid.push(`${d.signature} (landed at ${landed.slot})`);
    } else if (!landed && canLand(world, d)) live.push(d.signature);
  }
  if (paid.length + live.length > 1) {
    out.push(
      `the need is paid ${paid.length + live.length} times: landed ${paid.join(', ') || 'none'}; still able to land ${live.join(', ') || 'none'}; transfers: ${summary(rows)}`,
    );
  }
  for (const row of rows) {
    if (row.status !== 'origin_failed' || !row.orderId) continue;
    const hit = deposits.find(
      (d) => d.deposit!.id.toLowerCase() === row.orderId!.toLowerCase() && chain.bySignature.get(d.signature)?.err === null,
    );
    if (hit)
      out.push(
        `transfer #${row.id} is origin_failed but deposit ${hit.signature} for its order ${row.orderId} landed; transfers: ${summary(rows)}`,
      );
  }
  return out;
}

/** The checks that hold once the schedule has settled. @returns one line per violation */
export async function checkSolSettled(world: SolWorld, db: StoreDb): Promise<string[]> {
  const rows = await transfers(db);
  const out = check(world, rows);
  const chain = world.solana;
  const finalized = chain.levelSlot(chain.tip, 'finalized');
  for (const d of signedTxs(world, rows).filter((s) => s.deposit !== null)) {
    const landed = chain.bySignature.get(d.signature);
    const record = world.relay.find(d.deposit!.id);
    const settled = record?.action != null && (record.action.kind === 'failure' || record.action.kind === 'never' || record.settled);
    if (landed && (landed.err !== null || settled)) continue;
    const issued = chain.slotOfBlockhash(d.blockhash);
    if (!landed && (issued === undefined || finalized > issued + BLOCKHASH_VALID_BLOCKS)) continue;
    const where = landed
      ? `landed at ${landed.slot} but its order is not settled`
      : chain.pending.some((p) => p.signature === d.signature)
        ? 'pending at the node'
        : 'signed, unknown to the node, blockhash still valid';
    out.push(`deposit ${d.signature} (order ${d.deposit!.id}) is stranded: ${where}; transfers: ${summary(rows)}`);
  }
  for (const row of rows) {
    const record = row.orderId ? world.relay.find(row.orderId) : undefined;
    if (row.status === 'prepared' || row.status === 'broadcast') {
      if (!row.txs.some((t) => chain.pending.some((p) => p.signature === t.txHash && p.landAtSlot !== null)))
        out.push(`transfer #${row.id} is ${row.status} with none of its transactions about to land; transfers: ${summary(rows)}`);
    }
    if (row.status === 'deposited' && record?.action && (record.action.kind === 'failure' || record.settled)) {
      out.push(`transfer #${row.id} is deposited but the solver settled its order (${record.action.kind})`);
    }
  }
  const allSettled = world.relay.orders.every((r) => r.action === null || r.action.kind === 'fill' || r.action.kind === 'refund');
  if (allSettled) {
    const solana = chain.tokensAt(SOL.treasuryAta, chain.tip);
    const alpha = world.alpha.balanceOf(ALPHA.usdc, ALPHA.treasury);
    const inBand = (v: bigint, b: { min: bigint; max: bigint }) => v >= b.min * USDC && v <= b.max * USDC;
    if (!inBand(solana, SOL_BANDS.solana) || !inBand(alpha, SOL_BANDS.alpha))
      out.push(`treasury out of band after settling: Solana ${solana} USDC units, alpha ${alpha} USDC units`);
  }
  return out;
}
