/**
 * `npm run bench:simulate`: the simulation benchmark alone (bench/simulate.ts) — every Hyperlane rebalancer-sim
 * scenario through `ballast simulate`'s runner, the flow-* ones next to the published strategies by Hyperlane's rule
 * and their perturbed families — printed, and its section of bench/RESULTS.md rewritten (the other sections are left
 * as they are). Exits 1 when a row misses its target.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatValue } from './lib.ts';
import { rowOk, targetText, verdictText, writeKeptSection } from './results.ts';
import { SIMULATE_HEADING, simulateBench } from './simulate.ts';

const { rows, section } = await simulateBench();
for (const r of rows) {
  console.log(
    `${r.label.padEnd(52)} ${formatValue(r.value, r.unit).padStart(10)}  ${targetText(r).padEnd(11)} ${verdictText(r, 'OVER TARGET')}${r.note ? `  (${r.note})` : ''}`,
  );
}
if (section.length > 0) {
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), 'RESULTS.md');
  writeKeptSection(file, SIMULATE_HEADING, section);
  console.log(`wrote ${file}`);
}
process.exitCode = rows.every(rowOk) ? 0 : 1;
