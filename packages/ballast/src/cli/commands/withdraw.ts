/**
 * `ballast withdraw [--request ID] [--max-wait SEC] [--json]`: recovers deposits the service never filled (or
 * failed) back to the treasury wallet that made them (docs/withdrawals.md), for operators who leave
 * `withdrawals.auto` off. Without `--request` it makes the same pass a cycle makes with `withdrawals.auto` on;
 * with it, only that request's transfer, whatever its age, and a failed withdrawal of it is started again.
 * Takes the run lock (no cycle runs meanwhile). Exit 0 when every deposit looked at was withdrawn (or none was
 * withdrawable), 3 when one was refused by Ballast's checks (owner VM, record mismatch, ready transaction), 1
 * otherwise (failed, unfinished, not withdrawable when asked by request id). Each line shows what came back so far
 * and the remainder still open when a job returned less than the deposit (the transfer is not `withdrawn` then).
 */
import type { Command } from 'commander';
import { transferIdOfRequest } from '../../store/withdrawals.ts';
import { recoverDeposits, type WithdrawalReportItem } from '../../withdraw/recover.ts';
import { CliError, EXIT_ERROR, EXIT_OK, EXIT_REFUSED, EXIT_USAGE } from '../exitCodes.ts';
import { shortHash, table, toJson } from '../format.ts';
import { openBallast } from '../openBallast.ts';
import type { GlobalFlags } from '../session.ts';

/** Registers the command. */
export function registerWithdraw(program: Command, out: (s: string) => void): void {
  program
    .command('withdraw')
    .description('withdraw deposits the service never filled (or failed) back to the treasury wallet that made them')
    .option('--request <id>', 'only this request (see `ballast history`); also restarts its failed withdrawal')
    .option('--max-wait <sec>', 'longest wait on one withdrawal before leaving it for the next pass (default withdrawals.maxWaitSec)')
    .option('--json', 'machine-readable output')
    .action(async (flags: { request?: string; maxWait?: string; json?: boolean }, cmd: Command) => {
      if (flags.request !== undefined && (flags.request.trim() === '' || /\s/.test(flags.request))) {
        throw new CliError(`--request must be a request id, got "${flags.request}"`, EXIT_USAGE);
      }
      if (flags.maxWait !== undefined && !/^[1-9][0-9]{0,5}$/.test(flags.maxWait)) {
        throw new CliError(`--max-wait must be a positive number of seconds, got "${flags.maxWait}"`, EXIT_USAGE);
      }
      const { ballast } = await openBallast(cmd.optsWithGlobals<GlobalFlags>());
      try {
        const base = ballast.ctx;
        const withdrawals =
          flags.maxWait === undefined ? base.config.withdrawals : { ...base.config.withdrawals, maxWaitSec: Number(flags.maxWait) };
        const ctx = { ...base, config: { ...base.config, withdrawals } };
        if (flags.request !== undefined && (await transferIdOfRequest(ballast.db, flags.request)) === undefined) {
          throw new CliError(`no transfer of ours has request id ${flags.request}; see \`ballast history\``, EXIT_USAGE);
        }
        const items: WithdrawalReportItem[] = await ballast.exclusive((signal) =>
          recoverDeposits({ ...ctx, signal }, flags.request !== undefined ? { requestId: flags.request } : {}),
        );
        out(flags.json ? toJson(items) : render(items));
        process.exitCode = exitCodeFor(items, flags.request !== undefined);
      } finally {
        await ballast.close();
      }
    });
}

/** 0 all withdrawn (or nothing withdrawable), 3 a refusal, 1 anything else unfinished. */
export function exitCodeFor(items: readonly WithdrawalReportItem[], requested: boolean): number {
  if (items.some((i) => i.outcome === 'refused')) return EXIT_REFUSED;
  const unfinished = items.some((i) => i.outcome === 'failed' || i.outcome === 'pending' || i.outcome === 'skipped');
  if (unfinished || (requested && items.some((i) => i.outcome === 'not_withdrawable'))) return EXIT_ERROR;
  return EXIT_OK;
}

function render(items: readonly WithdrawalReportItem[]): string {
  if (items.length === 0) return 'no unfilled deposit to look at (see withdrawals.unfilledAfterSec, or pass --request)';
  return table(
    ['transfer', 'request', 'chain', 'amount (base units)', 'received', 'open remainder', 'outcome', 'state', 'job', 'tx', 'reason'],
    items.map((i) => [
      i.transferId,
      shortHash(i.requestId),
      i.chain,
      i.amount,
      i.received,
      i.remainder === '0' ? '—' : i.remainder,
      i.outcome,
      i.state ?? '—',
      i.jobId ?? '—',
      shortHash(i.txHash),
      i.reason ?? '—',
    ]),
  );
}
