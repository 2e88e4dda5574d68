/**
 * `ballast run --once`: one cycle under the run lock. Exit 0 completed (even with nothing to move), 1 error,
 * 3 a needed transfer was refused by the fee policy or verification.
 */
import type { Command } from 'commander';
import { exitCodeForReport } from '../../cycle/runCycle.ts';
import { CliError, EXIT_USAGE } from '../exitCodes.ts';
import { renderReport, reportJson } from '../renderReport.ts';
import { openBallast, type GlobalFlags } from '../session.ts';

/** Registers the command. */
export function registerRun(program: Command, out: (s: string) => void): void {
  program
    .command('run')
    .description('run one rebalancing cycle and exit (for cron); takes the same lock as the daemon')
    .option('--once', 'run a single cycle (required; use `ballast daemon` for scheduled cycles)')
    .option('--json', 'machine-readable report')
    .action(async (flags: { once?: boolean; json?: boolean }, cmd: Command) => {
      if (!flags.once) throw new CliError('ballast run needs --once (use `ballast daemon` for scheduled cycles)', EXIT_USAGE);
      const { ballast } = openBallast(cmd.optsWithGlobals<GlobalFlags>());
      try {
        const report = await ballast.runCycle('once');
        out(flags.json ? reportJson(report) : renderReport(report));
        process.exitCode = exitCodeForReport(report);
      } finally {
        ballast.close();
      }
    });
}
