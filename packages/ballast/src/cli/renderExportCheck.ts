/**
 * The text `ballast export --check` prints: one line per wallet and asset (received, sent, fees, the change the rows
 * add up to and the ledger's, in whole units), then the transfers it could not price and what the store does not
 * record. Pure; no I/O.
 */
import { formatUnits } from 'viem';
import type { Reconciliation } from '../accounting/reconcile.ts';
import { table } from './format.ts';

/**
 * @param rec the reconciliation
 * @param period the period's bounds, ms since the epoch
 */
export function exportCheckText(rec: Reconciliation, period: { sinceMs: number; untilMs: number }): string {
  const when = `${new Date(period.sinceMs).toISOString()} → ${new Date(period.untilMs).toISOString()}`;
  const out: string[] = [];
  if (rec.lines.length === 0) out.push(`reconciliation ${when}: no movement in the period`);
  else {
    const bad = rec.lines.filter((l) => !l.ok).length;
    out.push(
      `reconciliation ${when}: ${rec.lines.length} wallet/asset line(s), ${
        bad === 0 ? 'every one adds up to the ledger to the base unit' : `${bad} DO NOT add up to the ledger`
      } (received − sent − fees = change)`,
    );
    const whole = (v: bigint, d: number) => formatUnits(v, d);
    out.push(
      table(
        ['chain', 'wallet', 'asset', 'received', 'sent', 'fees', 'change (rows)', 'change (ledger)', ''],
        rec.lines.map((l) => [
          l.wallet.chain,
          l.wallet.address,
          l.asset,
          whole(l.received, l.decimals),
          whole(l.sent, l.decimals),
          whole(l.fees, l.decimals),
          whole(l.rowsChange, l.decimals),
          whole(l.ledgerChange, l.decimals),
          l.ok ? 'ok' : `MISMATCH ${whole(l.rowsChange - l.ledgerChange, l.decimals)}`,
        ]),
      ),
    );
  }
  if (rec.unpriced.length > 0) {
    out.push('could not price (no USD at quote time):');
    for (const u of rec.unpriced) out.push(`  transfer ${u.transferId} (requestId ${u.requestId ?? 'none'}): ${u.rows.join(', ')}`);
  }
  if (rec.gaps.length > 0) {
    out.push('not recorded in the store (not in the rows):');
    for (const g of rec.gaps) out.push(`  transfer ${g.transferId} (requestId ${g.requestId ?? 'none'}): ${g.gap}`);
  }
  return out.join('\n');
}
