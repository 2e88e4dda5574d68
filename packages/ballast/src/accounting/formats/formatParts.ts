/**
 * Cells the export formats share: UTC date texts, a row's short label, unique transaction references. Pure; no I/O.
 */
import type { AccountingRow } from '../exportRows.ts';

/** `YYYY-MM-DD HH:MM:SS`, UTC. */
export function utcSeconds(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** `payment`, `receipt`, … or `fee/<kind>`. */
export function rowLabel(r: Pick<AccountingRow, 'kind' | 'feeKind'>): string {
  return r.feeKind ? `fee/${r.feeKind}` : r.kind;
}

/**
 * One reference per row, unique in the file: the row's transaction hash the first time it appears, the hash with
 * `-<label>` appended after that, and `ballast-<transfer>-<label>` when the row has no hash.
 */
export function uniqueHashes(rows: readonly AccountingRow[]): string[] {
  const seen = new Set<string>();
  return rows.map((r) => {
    const label = rowLabel(r).replace('/', '-');
    let ref = r.txHash ?? `ballast-${r.transferId}-${label}`;
    if (seen.has(ref)) ref = `${ref}-${label}`;
    for (let n = 2; seen.has(ref); n++) ref = `${r.txHash ?? `ballast-${r.transferId}`}-${label}-${n}`;
    seen.add(ref);
    return ref;
  });
}

/** Where a row's USD figure comes from, for notes: `USD from <source> (at quote time | as the order settled)`. */
export function usdNote(r: Pick<AccountingRow, 'usdSource'>): string {
  if (r.usdSource === 'none') return 'no USD price (none at quote time)';
  return `USD from ${r.usdSource} (${r.usdSource.startsWith('quote') ? 'at quote time' : 'as the order settled'})`;
}
