/**
 * Human view of one stored transfer: the stage it reached, amounts, ids, every origin transaction with its full
 * hash, the fill transactions and the state history.
 */
import type { TransferRow } from '../store/transferRows.ts';
import type { TransferDecimals } from '../store/ledgerUnits.ts';
import { formatUsdText, formatWhole, table } from './format.ts';
import { transferStage } from '../core/transferStage.ts';

/**
 * Renders a transfer as a two-column table. Amounts are shown in whole units with the asset symbol when the
 * decimals are known (the output with the symbol of the asset a gas top-up bought), each followed by the store's exact base units.
 *
 * @param t the stored transfer
 * @param decimals decimals of its input and output currencies (src/store/ledgerUnits.ts); absent: base units only
 */
export function renderTransfer(t: TransferRow, decimals: TransferDecimals = { decimalsIn: null, decimalsOut: null }): string {
  const amount = (value: bigint, d: number | null, symbol = t.asset) =>
    d === null ? `${value} base units` : `${formatWhole(value, d, symbol)} (${value} base units)`;
  const rows: [string, string][] = [
    ['transfer', `#${t.id} (cycle ${t.cycleId}) ${t.asset} ${t.originChain} → ${t.destinationChain}`],
    ['status', `${t.status}: ${transferStage(t.status)} (relay: ${t.relayStatus ?? '—'})`],
    ['amount in', amount(t.amountIn, decimals.decimalsIn)],
    ['guaranteed out (minimumAmount)', amount(t.minOut, decimals.decimalsOut, decimals.symbolOut)],
    ['quoted estimate (expectedAmount, not trusted)', amount(t.expectedOut, decimals.decimalsOut, decimals.symbolOut)],
    // What the quote said, rounded for people; what was paid is in `history` and `report` (the ledger).
    ['fees quoted', formatUsdText(t.feesUsd)],
    ['requestId', t.requestId ?? '—'],
    ['orderId', t.orderId ?? '—'],
    ...t.txs.map((tx): [string, string] => [`origin tx: ${tx.stepId}`, `${tx.txHash} (${tx.status})`]),
    ...t.cancels.map((tx): [string, string] => [`replacement ending the deposit: ${tx.stepId}`, `${tx.txHash} (${tx.status})`]),
    ...t.outTxHashes.map((h): [string, string] => [t.status === 'refund' ? 'refund tx' : 'fill tx', h]),
    ['history', t.events.map((e) => `${e.fromStatus ?? '∅'} → ${e.toStatus} at ${new Date(e.atMs).toISOString()}`).join('\n')],
  ];
  return table(['field', 'value'], rows);
}
