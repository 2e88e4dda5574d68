/**
 * Human view of one stored transfer: amounts, ids, every origin transaction with its full hash, the fill
 * transactions and the state history.
 */
import type { TransferRow } from '../store/transferRows.ts';
import { table } from './format.ts';

/**
 * Renders a transfer as a two-column table. Amounts are base units (the store's exact values).
 */
export function renderTransfer(t: TransferRow): string {
  const rows: [string, string][] = [
    ['transfer', `#${t.id} (cycle ${t.cycleId}) ${t.asset} ${t.originChain} → ${t.destinationChain}`],
    ['status', `${t.status} (relay: ${t.relayStatus ?? '—'})`],
    ['amount in (base units)', t.amountIn.toString()],
    ['guaranteed out (minimumAmount, base units)', `${t.minOut}`],
    ['quoted estimate (expectedAmount, not trusted)', `${t.expectedOut}`],
    ['fees (USD)', t.feesUsd ?? '—'],
    ['requestId', t.requestId ?? '—'],
    ['orderId', t.orderId ?? '—'],
    ...t.txs.map((tx): [string, string] => [`origin tx: ${tx.stepId}`, `${tx.txHash} (${tx.status})`]),
    ...t.outTxHashes.map((h): [string, string] => [t.status === 'refund' ? 'refund tx' : 'fill tx', h]),
    ['history', t.events.map((e) => `${e.fromStatus ?? '∅'} → ${e.toStatus} at ${new Date(e.atMs).toISOString()}`).join('\n')],
  ];
  return table(['field', 'value'], rows);
}
