/**
 * Writes bench/RESULTS.md: the machine (CPU model, cores, memory, Node version, OS), the date, every row with
 * its target and verdict, and the detail lines the benchmarks printed.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { formatValue, type BenchRow } from './lib.ts';

/** Whether a row meets its target. */
export function rowOk(row: BenchRow): boolean {
  return row.value <= row.limit;
}

/** The verdict column: ok, missed, or "—" for a row reported without a target. */
export function verdictText(row: BenchRow, missed = 'missed'): string {
  if (!Number.isFinite(row.limit) && !Number.isNaN(row.value)) return '—';
  return rowOk(row) ? 'ok' : missed;
}

/** The target column: "≤ 20 ms", or "reported" for rows without one. */
export function targetText(row: BenchRow): string {
  return Number.isFinite(row.limit) ? `≤ ${formatValue(row.limit, row.unit)}` : 'reported';
}

/** Describes this machine in one line. */
export function machineLine(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}, ${os.type()} ${os.release()} ${os.arch()}`;
}

/**
 * Writes the results file.
 *
 * @param file path of RESULTS.md
 * @param rows every checked row, in the order printed
 * @param details the lines the benchmarks printed
 * @param totalSec wall time of the whole run, seconds
 */
export function writeResults(file: string, rows: readonly BenchRow[], details: readonly string[], totalSec: number): void {
  const cell = (s: string) => s.replaceAll('|', '\\|');
  const failed = rows.filter((r) => !rowOk(r)).length;
  const lines = [
    '# Benchmark results',
    '',
    'Written by `npm run bench` (bench/run.ts); every ratio is measured side by side in the same run. The run exits',
    'non-zero when a row misses its target.',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${machineLine()}`,
    `- Whole run: ${totalSec.toFixed(0)} s; ${failed === 0 ? 'every target met' : `${failed} target(s) missed`}`,
    '',
    '| Benchmark | Result | Target | | Detail |',
    '| --- | ---: | ---: | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${cell(r.label)} | ${formatValue(r.value, r.unit)} | ${targetText(r)} | ${verdictText(r, '**missed**')} | ${cell(r.note ?? '')} |`,
    ),
    '',
    '## How each row is measured',
    '',
    '- Order id, verification, plan 200: µs per operation over 200–2,000 runs after a warm-up, as ratios to',
    '  the settlement SDK or to one order-id hash.',
    '- Planner scaling (bench/planner.ts): process CPU time (user + system) per plan, median of batches; growth',
    '  exponent = log-log least-squares slope over 100, 1,000 and 10,000 targets. "Many assets": 20 chains × N/20',
    '  assets, one wallet; "one asset, many wallets": one asset on 20 chains × N/20 wallets (every target matched',
    '  against every other). A third of the targets below min, a third in band, a third above max.',
    '- CLI start (bench/cliStart.ts): wall time of the whole process, median of 10, alternating with `node -e 0`.',
    '  "Compiled dist/" is the package built for the run into .ballast-cache/bench-build (dist/, bin/ballast.mjs,',
    '  package.json, no src/), as shipped; "this checkout" is `node bin/ballast.mjs` here, which runs the sources',
    '  through tsx whenever src/ is newer than dist/.',
    '- Balance reads (bench/balanceReads.ts): one anvil node with 50 ERC-20 tokens; each chain is a counting',
    '  JSON-RPC proxy in front of it (HTTP round trips and eth_call counted per chain); chains read in parallel;',
    '  median of 5 cycles. Batched = the EVM adapter (eth_chainId, eth_blockNumber, one Multicall3 eth_call);',
    '  naive = the same checks and one balanceOf eth_call per token.',
    '- Cycle parts (bench/cycleParts.ts): 12 cycles of one 1,000 USDC transfer on the sandbox, timing hooks on the',
    '  Relay client and the chain adapters, fill = origin receipt → `success` recorded; fill read / recorded =',
    "  sandbox `updatedAt` of `success` → first status read answering it / the store's closing event, with",
    '  `tracking.pollMs: 250` and no webhooks.',
    '- Fill detection webhook vs polling once a second (bench/webhookLatency.ts): 5 transfers each.',
    '- Daemon memory (bench/daemonMemory.ts): a child process (`node --expose-gc`) runs 10,000 idle daemon cycles',
    '  back to back against the sandbox (in the parent); heap used and RSS sampled after `gc()` every 100 cycles;',
    "  mean of the last 1,000 cycles' samples over the first 1,000's.",
    "- Simulated traffic (bench/simulate.ts): every Hyperlane rebalancer-sim scenario through `ballast simulate`'s",
    "  runner in this process, seed 1; each flow-* scenario side by side with the published strategies by Hyperlane's",
    "  rule (completion, then volume), Ballast run from each strategy's own start (src/sim/published.ts), and a",
    '  perturbed family of each (src/sim/perturb.ts). Left out, with one line, when the scenario files are absent.',
    '',
    '## Output of the run',
    '',
    '```',
    ...details,
    '```',
    '',
  ];
  writeFileSync(file, lines.join('\n') + keptSections(file));
}

/**
 * Sections of RESULTS.md that other runs write, from {@link KEPT_SECTIONS_MARKER} to the end (the failover figures
 * of test/e2e/ha/failover.test.ts): kept as they are when the benchmarks rewrite the file.
 */
export const KEPT_SECTIONS_MARKER = '<!-- sections below are written by other runs and kept by npm run bench -->';

function keptSections(file: string): string {
  if (!existsSync(file)) return '';
  const text = readFileSync(file, 'utf8');
  const at = text.indexOf(KEPT_SECTIONS_MARKER);
  return at < 0 ? '' : `\n${text.slice(at)}`;
}

/**
 * Writes one kept section of RESULTS.md (after {@link KEPT_SECTIONS_MARKER}): replaces the section starting with
 * `heading` (up to the next `## ` heading) or appends it, leaving the benchmarks' part and the other kept sections
 * as they are. Creates the marker when the file has none.
 *
 * @param heading the section's `## ` heading line
 * @param body the lines under the heading
 */
export function writeKeptSection(file: string, heading: string, body: readonly string[]): void {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const at = text.indexOf(KEPT_SECTIONS_MARKER);
  const head = (at < 0 ? text : text.slice(0, at)).trimEnd();
  const kept = at < 0 ? '' : text.slice(at + KEPT_SECTIONS_MARKER.length);
  const sections = kept
    .split(/\n(?=## )/)
    .map((x) => x.trim())
    .filter((x) => x.startsWith('## ') && !x.startsWith(heading));
  const mine = [heading, '', ...body].join('\n').trim();
  const all = [...sections, mine].sort((a, b) => a.localeCompare(b));
  writeFileSync(file, `${head}\n\n${KEPT_SECTIONS_MARKER}\n\n${all.join('\n\n')}\n`);
}
