/**
 * `ballast daemon`: cycles on `schedule`; SIGTERM/SIGINT stop it gracefully (the current step finishes or
 * parks, transfers in flight stay recorded, the DB is closed). Exit 2 when the Relay API refuses the API key in
 * the first cycle (later refusals are logged every cycle and the daemon keeps running). The action imports the
 * app and the scheduler (node-cron) when it runs, so `daemon --help` loads neither.
 */
import type { Command } from 'commander';
import type { GlobalFlags } from '../session.ts';
import { CliError, EXIT_USAGE } from '../exitCodes.ts';

/** Registers the command. */
export function registerDaemon(program: Command): void {
  program
    .command('daemon')
    .description('run cycles on the configured schedule until SIGTERM/SIGINT; serves /metrics and /healthz')
    .option('--run-at-start', 'run a cycle immediately instead of waiting for the first scheduled time')
    .option('--monitor-only', 'plan, quote and verify every cycle but sign nothing; report what would have been done (metrics, logs)')
    .action(async (flags: { runAtStart?: boolean; monitorOnly?: boolean }, cmd: Command) => {
      const [{ runDaemon }, { openBallast }] = await Promise.all([import('../../app/daemon.ts'), import('../openBallast.ts')]);
      const abort = new AbortController();
      const { config, ballast, logger } = await openBallast(cmd.optsWithGlobals<GlobalFlags>(), {
        signal: abort.signal,
        ...(flags.monitorOnly ? { monitorOnly: true } : {}),
      });
      const daemon = await runDaemon({ config, ballast, logger, abort, runAtStart: flags.runAtStart });
      const onSignal = (signal: NodeJS.Signals) => void daemon.stop(signal);
      process.once('SIGTERM', onSignal);
      process.once('SIGINT', onSignal);
      await daemon.stopped;
      // The Relay API refused the key in the first cycle: a configuration error (README "Exit codes": 2).
      if (daemon.fatal !== null) throw new CliError(daemon.fatal, EXIT_USAGE);
    });
}
