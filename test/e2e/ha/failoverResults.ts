/**
 * The failover suite's figures in bench/RESULTS.md: a section after the benchmarks' own (kept by `npm run bench`,
 * bench/results.ts), rewritten when the suite runs with `BALLAST_FAILOVER_RESULTS=1` (never in CI: the file is
 * tracked).
 */
import os from 'node:os';
import path from 'node:path';
import { writeKeptSection } from '../../../bench/results.ts';
import { ROOT } from '../helpers/cli.ts';

const HEADING = '## Failover of replicas sharing a PostgreSQL store (test/e2e/ha/failover.test.ts)';

/** Whether this run should write the section. */
export const writeFailoverResults = process.env.BALLAST_FAILOVER_RESULTS === '1';

/**
 * Replaces the failover section of bench/RESULTS.md with `rows` (table rows as printed by the suite).
 *
 * @param header the table's header and separator lines
 */
export function recordFailoverResults(header: readonly string[], rows: readonly string[]): void {
  const cpus = os.cpus();
  writeKeptSection(path.join(ROOT, 'bench/RESULTS.md'), HEADING, [
    `- Date: ${new Date().toISOString()}; ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores, Node ${process.version}`,
    '- Real `ballast daemon` processes on the sandbox, one PostgreSQL database; lease ttl 3 s, renew 1 s, margin 600 ms',
    '  (a follower leads at most 4 s after the last renew); a cycle per second. "New leader after" is measured from',
    '  the fault (the kill, the pause, the server back up, the cut) to the database showing another live holder.',
    '',
    ...header,
    ...rows,
  ]);
}
