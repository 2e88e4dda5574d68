/**
 * `ballast run --once`: one cycle under the run lock. Exit 0 completed (even with nothing to move), 1 error,
 * 3 a needed transfer was refused by the fee policy or verification, 4 another run holds the lock or a daemon runs
 * on the same SQLite store between its cycles (src/app/daemonPresence.ts; `--force` runs all the same).
 *
 * The human report ends with the summary shared with `plan` (src/cli/cycleSummary.ts): what failed and the fix, or
 * which targets are out of band and why nothing moved them; "every target is in band" only when it is true.
 *
 * After the cycle, `--pushgateway` pushes the metrics to a Pushgateway (group `job`/`instance`) and
 * `--metrics-textfile` writes them for node_exporter's textfile collector. An export failure prints one
 * `ballast: warning: …` line on stderr and leaves the exit code to the cycle (docs/metrics.md "One-shot runs").
 *
 * The action imports the app (store, Relay client, chain adapters, metrics) when it runs, so `run --help` loads
 * none of it.
 */
import type { Command } from 'commander';
import { CliError, EXIT_LOCKED, EXIT_USAGE } from '../exitCodes.ts';
import type { GlobalFlags } from '../session.ts';
import type { RunMetricsFlags } from '../../metrics/runExport.ts';

/** How long `run --once` may spend delivering the notifications its cycle queued, ms (then they wait for the next run). */
const NOTIFY_FLUSH_MS = 5_000;

/** Registers the command. */
export function registerRun(program: Command, out: (s: string) => void): void {
  program
    .command('run')
    .description('run one rebalancing cycle and exit (for cron); takes the same lock as the daemon')
    .option('--once', 'run a single cycle (required; use `ballast daemon` for scheduled cycles)')
    .option('--json', 'machine-readable report (stdout carries only the JSON: no progress)')
    .option('--no-progress', "do not show each transfer's stages (live on a terminal, one line per stage otherwise)")
    .option('--force', 'run even while a daemon runs on this store between its cycles (the run lock still keeps cycles apart)')
    .option('--pushgateway <url>', 'after the cycle, push the metrics to this Prometheus Pushgateway, e.g. http://127.0.0.1:9091')
    .option('--push-job <name>', 'job grouping label of the push', 'ballast')
    .option('--push-instance <name>', "instance grouping label of the push (default: this host's name)")
    .option(
      '--metrics-textfile <path>',
      "after the cycle, write the metrics to this .prom file for node_exporter's textfile collector (atomic)",
    )
    .action(async (flags: { once?: boolean; json?: boolean; progress: boolean; force?: boolean } & RunMetricsFlags, cmd: Command) => {
      if (!flags.once) throw new CliError('ballast run needs --once (use `ballast daemon` for scheduled cycles)', EXIT_USAGE);
      const [
        { exitCodeForReport },
        { endOnKeyRefusal },
        { renderReport, reportJson },
        { openBallast },
        { createProgressRenderer },
        { exportRunMetrics },
        { flushNotifications },
        { readDaemonPresence },
      ] = await Promise.all([
        import('../../cycle/runCycle.ts'),
        import('../keyRefusal.ts'),
        import('../renderReport.ts'),
        import('../openBallast.ts'),
        import('../progress.ts'),
        import('../../metrics/runExport.ts'),
        import('../../notify/dispatcher.ts'),
        import('../../app/daemonPresence.ts'),
      ]);
      // Progress goes to stdout: live lines on a terminal (log lines on stderr clear and redraw the open one), plain
      // lines (through `out`) otherwise; none with --json.
      const progress =
        flags.json || !flags.progress
          ? null
          : createProgressRenderer(process.stdout.isTTY ? process.stdout : { write: (line: string) => out(line.replace(/\n$/, '')) });
      const { config, ballast } = await openBallast(
        cmd.optsWithGlobals<GlobalFlags>(),
        progress ? { progress: progress.sink } : {},
        progress ? { logDestination: progress.logStream(process.stderr) } : {},
      );
      try {
        const daemon = flags.force || ballast.mode !== 'execute' ? undefined : readDaemonPresence(config.store, ballast.ctx.now());
        if (daemon) {
          const beatSec = Math.round((ballast.ctx.now() - daemon.heartbeatAtMs) / 1000);
          throw new CliError(
            `a daemon runs on this store (pid ${daemon.pid} on ${daemon.host}, seen ${beatSec} s ago); this run did nothing: ` +
              'stop the daemon or leave the cycles to it, or pass --force to run one cycle beside it',
            EXIT_LOCKED,
          );
        }
        const report = await ballast.runCycle('once');
        progress?.finish();
        out(flags.json ? reportJson(report) : renderReport(report, { sweepTo: config.policy.sweepTo }));
        process.exitCode = exitCodeForReport(report);
        await exportRunMetrics(ballast.metrics.registry, flags, (line) => process.stderr.write(`${line}\n`));
        endOnKeyRefusal(report);
      } finally {
        progress?.finish(); // ends a live line left open by a failure, and its redraws
        // What the cycle queued goes out now, within a short deadline; never changes the exit code.
        if (ballast.notifyDispatch) await flushNotifications(ballast.notifyDispatch, NOTIFY_FLUSH_MS);
        await ballast.close();
      }
    });
}
