/**
 * vitest reporter printing the ten slowest test files of the run (tier, seconds, path) after the other reporters'
 * output, so a CI log shows where the suite's time goes. A file's time is its collect (import) time plus its tests'
 * and hooks' time, as vitest measured it in the worker.
 *
 * Added in vitest.config.ts (`reporters`) and in .ci/run (which names its reporters on the command line).
 */
import { relative } from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';

/** How many files the table lists. */
const SHOWN = 10;

export default class SlowestFilesReporter implements Reporter {
  private root = process.cwd();

  onInit(ctx: Vitest): void {
    this.root = ctx.config.root;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const rows = testModules.map((m) => {
      const d = m.diagnostic();
      return { project: m.project.name, file: relative(this.root, m.moduleId), ms: d.collectDuration + d.duration };
    });
    if (rows.length === 0) return;
    rows.sort((a, b) => b.ms - a.ms);
    const lines = rows.slice(0, SHOWN).map((r) => `  ${(r.ms / 1000).toFixed(1).padStart(7)} s  ${r.project.padEnd(11)} ${r.file}`);
    process.stdout.write(`\nslowest test files (of ${rows.length}):\n${lines.join('\n')}\n`);
  }
}
