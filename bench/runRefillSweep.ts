/**
 * `npx tsx bench/runRefillSweep.ts`: the refill point sweep (bench/refillSweep.ts; docs/simulate.md "Refill
 * point") — every shipped and Hyperlane scenario once per refill point — printed, and its section of
 * bench/RESULTS.md rewritten (the other sections are left as they are). Exits 1 when a row misses its target.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatValue } from './lib.ts';
import { REFILL_HEADING, refillSweep } from './refillSweep.ts';
import { rowOk, targetText, verdictText, writeKeptSection } from './results.ts';

const { rows, section } = await refillSweep();
for (const r of rows) {
  console.log(
    `${r.label.padEnd(64)} ${formatValue(r.value, r.unit).padStart(10)}  ${targetText(r).padEnd(11)} ${verdictText(r, 'OVER TARGET')}${r.note ? `  (${r.note})` : ''}`,
  );
}
const file = path.join(path.dirname(fileURLToPath(import.meta.url)), 'RESULTS.md');
writeKeptSection(file, REFILL_HEADING, section);
console.log(`wrote ${file}`);
process.exitCode = rows.every(rowOk) ? 0 : 1;
