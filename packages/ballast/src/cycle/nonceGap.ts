/**
 * EVM nonce gaps below an unmined transaction of ours. A transaction is mined only after every lower nonce of its
 * sender is used, so one waiting above a free nonce (a reorg removed the approval of an earlier transfer that this
 * transfer's deposit relied on; a send was lost) can neither land nor be proven dead: a replacement of it signed
 * elsewhere (an operator's speed-up, whose hash we cannot look up) may sit in any pool and lands the moment the
 * gap closes, which the next transfer's first transaction would do. Failing the transfer then strands the deposit.
 *
 * Reconciliation therefore keeps such a transfer in flight whatever its deadline, and closes the gap at once with
 * what was already signed: every recorded transaction of the same wallet at a free nonce below, from this transfer
 * or an earlier one, is sent again exactly as signed. From another transfer only items that are not its deposit
 * are sent (approvals): that transfer's deposit is its own reconciliation's to send, and a failed transfer's
 * deposit must never land. Nothing new is signed. Once the gap is closed, what waited lands (and is found and
 * tracked) or its nonce is taken (`dropped`), and the usual proofs decide.
 */
import type { ChainAdapter } from '../chains/adapter.ts';
import { nonceOrderOf, type NonceGap } from '../chains/capabilities.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { listRecentTransfersOf, type TransferRow } from '../store/transfers.ts';
import type { CycleContext } from './context.ts';
import { isDepositItem, quoteFacts } from './quoteFacts.ts';
import { killSwitchVerdict } from './spendingGate.ts';

/** How far back the wallet's transfers are searched for transactions at the free nonces. */
const GAP_SEARCH_TRANSFERS = 50;

/** What closing a gap uses: the store, the kill switch config, the leader check, metrics and the logger. */
export type NonceGapDeps = Pick<CycleContext, 'db' | 'config' | 'leading' | 'metrics' | 'logger'>;

/**
 * Whether `tx` (unmined: pending or unknown to the node) waits above a free nonce of its wallet; if so, sends
 * again every recorded transaction found for the free nonces (see the module comment) and says why the transfer
 * stays in flight. Sends nothing while the kill switch is engaged or by a replica that no longer leads.
 * Counted in `ballast_origin_rebroadcasts_total{chain, kind="nonce_gap"}`.
 *
 * @returns why `tx` cannot be judged yet, or null when no nonce below it is free (or the chain has no nonces)
 * @throws on node or store errors (nothing is proven; the transfer stays in flight)
 */
export async function waitsBehindNonceGap(
  ctx: NonceGapDeps,
  chain: ChainAdapter,
  row: TransferRow,
  tx: TransferRow['txs'][number],
  log: CycleContext['logger'],
): Promise<string | null> {
  const order = nonceOrderOf(chain);
  const gap = order ? await order.gapBelow(tx, row.user) : null;
  if (!order || !gap) return null;
  const { fillers, deposits } = await recordedFillers(ctx, row, gap, (t) => order.nonceOf(t));
  const missing: number[] = [];
  const sent: string[] = [];
  const halted = killSwitchVerdict(ctx);
  const leads = !ctx.leading || ctx.leading();
  for (let nonce = gap.mined; nonce < gap.nonce; nonce++) {
    const filler = fillers.get(nonce);
    if (!filler) {
      if (!deposits.has(nonce)) missing.push(nonce);
      continue;
    }
    if (halted || !leads) continue;
    ctx.metrics.originRebroadcastsTotal.inc({ chain: row.originChain, kind: 'nonce_gap' });
    try {
      await chain.broadcast(filler.rawTx); // exactly as signed and recorded
      sent.push(`${filler.txHash} (nonce ${nonce})`);
    } catch (error) {
      // Often "already known" or "nonce too low": the gap closed meanwhile. The next lookup says.
      log.warn({ txHash: filler.txHash, nonce, err: shortErrorMessage(error) }, 'sending a recorded transaction at a free nonce failed');
    }
  }
  const free = gap.nonce - 1 === gap.mined ? `nonce ${gap.mined} is free` : `nonces ${gap.mined}..${gap.nonce - 1} are free`;
  const parts = [`${tx.stepId} ${tx.txHash} (nonce ${gap.nonce}) cannot land while ${free}`];
  if (sent.length > 0) parts.push(`broadcast again exactly as signed: ${sent.join(', ')}`);
  if (halted) parts.push(`nothing broadcast again: ${halted.detail}`);
  else if (!leads) parts.push('nothing broadcast again: this replica no longer leads');
  for (const [nonce, id] of deposits)
    parts.push(`nonce ${nonce} is the deposit of transfer ${id}, which that transfer's own reconciliation sends again`);
  if (missing.length > 0) parts.push(`no recorded transaction of ours holds nonce(s) ${missing.join(', ')}`);
  return parts.join('; ');
}

/**
 * Recorded transactions of the wallet at the gap's free nonces, by nonce: any of `row`'s own, and the items of
 * other transfers that are not their deposit (`fillers`); and the free nonces another transfer's deposit holds,
 * with that transfer's id (`deposits`: never sent from here).
 */
async function recordedFillers(
  ctx: NonceGapDeps,
  row: TransferRow,
  gap: NonceGap,
  nonceOf: (tx: TransferRow['txs'][number]) => number | undefined,
): Promise<{ fillers: Map<number, TransferRow['txs'][number]>; deposits: Map<number, number> }> {
  const fillers = new Map<number, TransferRow['txs'][number]>();
  const deposits = new Map<number, number>();
  for (const transfer of await listRecentTransfersOf(ctx.db, row.originChain, row.user, GAP_SEARCH_TRANSFERS)) {
    const facts = transfer.id === row.id ? null : await quoteFacts(ctx, transfer);
    if (transfer.id !== row.id && !facts) continue; // which item is its deposit cannot be told: none is sent
    for (const tx of transfer.txs) {
      const nonce = nonceOf(tx);
      if (nonce === undefined || nonce < gap.mined || nonce >= gap.nonce || fillers.has(nonce)) continue;
      if (tx.rawTx === '' || tx.rawTx === '0x') continue;
      if (facts && isDepositItem(tx, facts)) deposits.set(nonce, transfer.id);
      else fillers.set(nonce, tx);
    }
  }
  for (const nonce of fillers.keys()) deposits.delete(nonce); // a nonce some other transaction of ours can fill
  return { fillers, deposits };
}
