/**
 * `ballast plan`: balances, planned transfers, their quotes, fee breakdown and verification verdicts. Signs
 * nothing and takes no lock. Exit codes as `run --once`.
 */
import type { Command } from 'commander';
import { exitCodeForReport } from '../../cycle/runCycle.ts';
import { endOnKeyRefusal } from '../keyRefusal.ts';
import { renderReport, reportJson } from '../renderReport.ts';
import { openBallast } from '../openBallast.ts';
import type { GlobalFlags } from '../session.ts';

/** Registers the command. */
export function registerPlan(program: Command, out: (s: string) => void): void {
  program
    .command('plan')
    .description('show balances, planned transfers, quotes, fees and verdicts; signs nothing')
    .option('--json', 'machine-readable output')
    .action(async (flags: { json?: boolean }, cmd: Command) => {
      const { ballast } = await openBallast(cmd.optsWithGlobals<GlobalFlags>());
      try {
        const report = await ballast.runCycle('plan');
        out(flags.json ? reportJson(report) : renderReport(report));
        process.exitCode = exitCodeForReport(report);
        endOnKeyRefusal(report);
      } finally {
        await ballast.close();
      }
    });
}
