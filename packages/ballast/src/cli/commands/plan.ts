/**
 * `ballast plan`: balances, planned transfers, their quotes, fee breakdown and verification verdicts. Signs
 * nothing and takes no lock. A SQLite store that does not exist yet is not created: the plan is made without history.
 * Exit codes as `run --once`. The report ends with the summary of src/cli/cycleSummary.ts, shared with `run --once`:
 * after a failure what failed and the fix (no balance table, no claim about the bands), else which targets are out
 * of band and why nothing moves them. The action imports the app when it runs, so
 * `plan --help` loads none of it.
 */
import type { Command } from 'commander';
import type { GlobalFlags } from '../session.ts';

/** Registers the command. */
export function registerPlan(program: Command, out: (s: string) => void): void {
  program
    .command('plan')
    .description('show balances, planned transfers, quotes, fees and verdicts; signs nothing')
    .option('--json', 'machine-readable output')
    .action(async (flags: { json?: boolean }, cmd: Command) => {
      const [{ exitCodeForReport }, { endOnKeyRefusal }, { renderReport, reportJson }, { openBallast }] = await Promise.all([
        import('../../cycle/runCycle.ts'),
        import('../keyRefusal.ts'),
        import('../renderReport.ts'),
        import('../openBallast.ts'),
      ]);
      const { config, ballast } = await openBallast(cmd.optsWithGlobals<GlobalFlags>(), {}, { createStore: false });
      try {
        const report = await ballast.runCycle('plan');
        out(flags.json ? reportJson(report) : renderReport(report, { sweepTo: config.policy.sweepTo }));
        process.exitCode = exitCodeForReport(report);
        endOnKeyRefusal(report);
      } finally {
        await ballast.close();
      }
    });
}
