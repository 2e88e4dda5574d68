/**
 * `ballast transfer --from <chain>:<asset> --to <chain>:<asset> --amount <whole units> [--dry-run]`: a one-off move
 * by an operator through the scheduler's pipeline (quote, fee policy, verification, spending limits, write-ahead,
 * sign, track), recorded in the store like a cycle's transfer (src/cycle/manualTransfer.ts). It takes the run lock
 * (or the leader lease); `--dry-run` quotes and judges only. Exit codes as `run --once`; a route or amount that
 * cannot be done exits 2 before anything is recorded. `--pushgateway` / `--metrics-textfile` export the metrics.
 */
import type { Command } from 'commander';
import { parseHoldingRef } from '../../cycle/manualTransfer.ts';
import { exitCodeForReport } from '../../cycle/runCycle.ts';
import { exportRunMetrics, type RunMetricsFlags } from '../../metrics/runExport.ts';
import { openBallast } from '../openBallast.ts';
import { renderAttempts, reportJson } from '../renderReport.ts';
import type { GlobalFlags } from '../session.ts';

/** Registers the command. */
export function registerTransfer(program: Command, out: (s: string) => void): void {
  program
    .command('transfer')
    .description('move an amount between two configured holdings now, through the same policy, limits, verification and records as a cycle')
    .requiredOption('--from <chain:asset>', 'origin holding, <chain>:<asset>[:<wallet>] as configured under assets:, e.g. alpha:USDC')
    .requiredOption('--to <chain:asset>', 'destination holding, <chain>:<asset>[:<wallet>], e.g. beta:USDC')
    .requiredOption('--amount <whole units>', 'amount of the asset to send, in whole units (e.g. 1500.25)')
    .option('--dry-run', 'quote, judge the fees and limits and verify, but sign nothing')
    .option('--json', 'machine-readable report')
    .option('--pushgateway <url>', 'afterwards, push the metrics to this Prometheus Pushgateway')
    .option('--push-job <name>', 'job grouping label of the push', 'ballast')
    .option('--push-instance <name>', 'instance grouping label of the push (default: this host\'s name)')
    .option('--metrics-textfile <path>', 'afterwards, write the metrics to this .prom file (atomic)')
    .action(async (flags: { from: string; to: string; amount: string; dryRun?: boolean; json?: boolean } & RunMetricsFlags, cmd: Command) => {
      const from = parseHoldingRef(flags.from, '--from');
      const to = parseHoldingRef(flags.to, '--to');
      const { ballast } = await openBallast(cmd.optsWithGlobals<GlobalFlags>());
      try {
        const report = await ballast.transfer({ from, to, amount: flags.amount, dryRun: flags.dryRun === true });
        out(flags.json ? reportJson(report) : renderAttempts(report));
        process.exitCode = exitCodeForReport(report);
        await exportRunMetrics(ballast.metrics.registry, flags, (line) => process.stderr.write(`${line}\n`));
      } finally {
        await ballast.close();
      }
    });
}
