/**
 * `ballast transfer --from <chain>:<asset> --to <chain>:<asset> --amount <whole units> [--dry-run]`: a one-off move
 * by an operator through the scheduler's pipeline (quote, fee policy, verification, spending limits, write-ahead,
 * sign, track), recorded in the store like a cycle's transfer (src/cycle/manualTransfer.ts). It takes the run lock
 * (or the leader lease); `--dry-run` quotes and judges only. Exit codes as `run --once`; a route or amount that
 * cannot be done exits 2 before anything is recorded. `--pushgateway` / `--metrics-textfile` export the metrics.
 * `--queue` leaves the transfer to the process that holds the run lock or the lease (a running daemon), which runs
 * it after its next cycle; `--wait <sec>` then waits for its outcome (src/cycle/queuedTransfers.ts).
 *
 * On a terminal (stdin a TTY) it asks before it moves money (src/cli/confirmTransfer.ts): a dry run of the same
 * transfer shows what will move and the fees quoted now, then `move it? [y/N]`; anything but y leaves it undone
 * (exit 1, nothing signed). `--yes` skips the question; without a terminal nothing is asked (cron, scripts). While
 * it runs, its stages show as `run --once` shows them (src/cli/progress.ts), named by the transfer's id in the store.
 */
import type { Command } from 'commander';
import { parseHoldingRef } from '../../cycle/manualTransfer.ts';
import { exitCodeForReport } from '../../cycle/runCycle.ts';
import { endOnKeyRefusal } from '../keyRefusal.ts';
import { exportRunMetrics, type RunMetricsFlags } from '../../metrics/runExport.ts';
import { openBallast } from '../openBallast.ts';
import { renderAttempts, reportJson } from '../renderReport.ts';
import type { GlobalFlags } from '../session.ts';
import os from 'node:os';
import { checkQueuedRequest } from '../../cycle/queuedTransfers.ts';
import { ManualTransferError } from '../../cycle/manualTransfer.ts';
import type { StoreDb } from '../../store/db.ts';
import { enqueueTransferRequest, getTransferRequest } from '../../store/transferRequests.ts';
import { EXIT_ERROR, EXIT_USAGE } from '../exitCodes.ts';
import { askLine, CONFIRM_QUESTION, confirmationLines, isYes, shouldConfirm } from '../confirmTransfer.ts';
import { createProgressRenderer } from '../progress.ts';
import type { ProgressSink } from '../../cycle/progressEvent.ts';

/** Registers the command. */
export function registerTransfer(program: Command, out: (s: string) => void): void {
  program
    .command('transfer')
    .description('move an amount between two configured holdings now, through the same policy, limits, verification and records as a cycle')
    .requiredOption('--from <chain:asset>', 'origin holding, <chain>:<asset>[:<wallet>] as configured under assets:, e.g. alpha:USDC')
    .requiredOption('--to <chain:asset>', 'destination holding, <chain>:<asset>[:<wallet>], e.g. beta:USDC')
    .requiredOption('--amount <whole units>', 'amount of the asset to send, in whole units (e.g. 1500.25)')
    .option('--dry-run', 'quote, judge the fees and limits and verify, but sign nothing')
    .option('--json', 'machine-readable report (stdout carries only the JSON: no progress)')
    .option('-y, --yes', 'do not ask for confirmation (asked only when stdin is a terminal; scripts and cron are never asked)')
    .option('--no-progress', "do not show the transfer's stages (live on a terminal, one line per stage otherwise)")
    .option('--queue', 'queue it for the process holding the run lock or lease (a running daemon), which runs it after its next cycle')
    .option('--wait <seconds>', 'with --queue: wait this long for the outcome (exit codes as without --queue; 1 when still waiting)')
    .option('--pushgateway <url>', 'afterwards, push the metrics to this Prometheus Pushgateway')
    .option('--push-job <name>', 'job grouping label of the push', 'ballast')
    .option('--push-instance <name>', "instance grouping label of the push (default: this host's name)")
    .option('--metrics-textfile <path>', 'afterwards, write the metrics to this .prom file (atomic)')
    .action(
      async (
        flags: {
          from: string;
          to: string;
          amount: string;
          dryRun?: boolean;
          json?: boolean;
          yes?: boolean;
          progress: boolean;
          queue?: boolean;
          wait?: string;
        } & RunMetricsFlags,
        cmd: Command,
      ) => {
        const from = parseHoldingRef(flags.from, '--from');
        const to = parseHoldingRef(flags.to, '--to');
        if (flags.wait !== undefined && !flags.queue)
          throw new ManualTransferError('--wait applies to --queue only; add --queue or drop --wait');
        if (flags.queue && flags.dryRun)
          throw new ManualTransferError('--queue and --dry-run: a dry run needs no lock, run it directly without --queue');
        const waitSec = flags.wait === undefined ? 0 : Number(flags.wait);
        if (!Number.isInteger(waitSec) || waitSec < 0 || waitSec > 86_400)
          throw new ManualTransferError(`--wait ${flags.wait}: expected whole seconds from 0 to 86400`);
        const ask = shouldConfirm({ yes: flags.yes === true, dryRun: flags.dryRun === true, stdinIsTty: process.stdin.isTTY === true });
        // Progress as `run --once` shows it, for the transfer itself only (not the dry run that shows what will move).
        const progress =
          flags.json || !flags.progress || flags.queue
            ? null
            : createProgressRenderer(process.stdout.isTTY ? process.stdout : { write: (line: string) => out(line.replace(/\n$/, '')) });
        let showing = false;
        const sink: ProgressSink = (e) => {
          if (showing) progress?.sink(e);
        };
        const { ballast } = await openBallast(
          cmd.optsWithGlobals<GlobalFlags>(),
          progress ? { progress: sink } : {},
          progress ? { logDestination: progress.logStream(process.stderr) } : {},
        );
        if (flags.queue) {
          try {
            checkQueuedRequest(ballast.ctx.config, { from, to, amount: flags.amount });
            if (ask) {
              process.stderr.write(
                `about to queue ${flags.amount} ${from.asset} from ${flags.from} to ${flags.to}; it is quoted when it runs\n`,
              );
              if (!isYes(await askLine(CONFIRM_QUESTION))) {
                out('not confirmed: nothing was queued');
                process.exitCode = EXIT_ERROR;
                return;
              }
            }
            const id = await enqueueTransferRequest(ballast.db, {
              fromRef: flags.from,
              toRef: flags.to,
              amount: flags.amount,
              requestedBy: requester(),
              requestedAtMs: Date.now(),
            });
            out(`queued as transfer request ${id}: the process holding the run lock or lease runs it after its next cycle`);
            if (waitSec > 0) process.exitCode = await waitForRequest(ballast.db, id, waitSec * 1000, out);
          } finally {
            await ballast.close();
          }
          return;
        }
        try {
          if (ask) {
            // What will move and what it costs now, from a dry run (no lock is held while the operator reads it).
            const preview = await ballast.transfer({ from, to, amount: flags.amount, dryRun: true });
            const lines = confirmationLines(preview);
            if (!lines) {
              // Refused or failed already: the dry run's report says why, and nothing is asked.
              out(flags.json ? reportJson(preview) : renderAttempts(preview));
              process.exitCode = exitCodeForReport(preview);
              return;
            }
            process.stderr.write(`${lines.join('\n')}\n`);
            if (!isYes(await askLine(CONFIRM_QUESTION))) {
              out('not confirmed: nothing was signed');
              process.exitCode = EXIT_ERROR;
              return;
            }
          }
          showing = true;
          const report = await ballast.transfer({ from, to, amount: flags.amount, dryRun: flags.dryRun === true });
          progress?.finish();
          out(flags.json ? reportJson(report) : renderAttempts(report));
          process.exitCode = exitCodeForReport(report);
          await exportRunMetrics(ballast.metrics.registry, flags, (line) => process.stderr.write(`${line}\n`));
          endOnKeyRefusal(report);
        } finally {
          progress?.finish();
          await ballast.close();
        }
      },
    );
}

/** Who queued a request: user@host. */
function requester(): string {
  return `${os.userInfo().username}@${os.hostname()}`;
}

/** Polls a queued request until it ends or `timeoutMs` passes; prints the end; returns the exit code. */
async function waitForRequest(db: StoreDb, id: number, timeoutMs: number, out: (s: string) => void): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await getTransferRequest(db, id);
    if (r && r.state !== 'pending' && r.state !== 'taken') {
      out(`transfer request ${id}: ${r.state}${r.outcome ? ` (${r.outcome})` : ''}: ${r.detail ?? ''}`);
      if (r.state === 'refused') return EXIT_USAGE;
      if (r.state === 'abandoned' || r.state === 'failed') return EXIT_ERROR;
      return exitCodeForReport({ outcome: outcomeOfAttempt(r.outcome ?? '') });
    }
    if (Date.now() >= deadline) {
      out(`transfer request ${id}: still ${r?.state ?? 'unknown'} after the wait; it stays queued (see ballast history later)`);
      return EXIT_ERROR;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function outcomeOfAttempt(outcome: string): 'ok' | 'refused' | 'error' {
  if (['skipped_fee', 'skipped_limit', 'refused_verification'].includes(outcome)) return 'refused';
  return ['success', 'in_flight', 'quoted', 'awaiting_approval', 'handed_over'].includes(outcome) ? 'ok' : 'error';
}
