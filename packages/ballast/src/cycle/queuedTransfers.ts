/**
 * Manual transfers queued with `ballast transfer --queue` while another process holds the run lock or the leader
 * lease: that process runs them after its cycle, each as `ballast transfer` would (src/cycle/manualTransfer.ts),
 * and records how each ended on its request row (src/store/transferRequests.ts).
 */
import { shortErrorMessage } from '../core/errorMessage.ts';
import { wholeToBaseUnits } from '@ballast/protocol/core/units.ts';
import type { LoadedConfig } from '../config/loadConfig.ts';
import {
  finishTransferRequest,
  releaseTransferRequest,
  takePendingTransferRequests,
  type TransferRequestRow,
} from '../store/transferRequests.ts';
import type { CycleContext } from './context.ts';
import { routeRuleFor } from '../planner/routes.ts';
import {
  configuredHolding,
  ManualTransferError,
  maxTransferFor,
  parseHoldingRef,
  runManualTransfer,
  type HoldingRef,
} from './manualTransfer.ts';

/**
 * Checks what can be checked of a request without the chains before it is queued: both holdings configured
 * (the wallet named when several hold the asset on a chain), one asset, a route `policy.routes` allows, a positive
 * amount within the route's (else the asset's) maxTransfer. The process that runs it checks the rest (decimals, balance, gas reserve) as `ballast transfer` does.
 *
 * @throws ManualTransferError naming the flag and the fix
 */
export function checkQueuedRequest(
  config: Pick<LoadedConfig, 'assets' | 'policy'>,
  req: { from: HoldingRef; to: HoldingRef; amount: string },
): void {
  const from = { ...req.from, ...configuredHolding(config.assets, req.from, '--from') };
  const to = { ...req.to, ...configuredHolding(config.assets, req.to, '--to') };
  if (req.from.asset !== req.to.asset)
    throw new ManualTransferError(`--from ${req.from.asset} and --to ${req.to.asset}: give the same asset on both sides`);
  let amount: bigint;
  try {
    amount = wholeToBaseUnits(req.amount, 36);
  } catch (error) {
    throw new ManualTransferError(`--amount ${req.amount}: ${shortErrorMessage(error)} (whole units, e.g. 1500.25)`);
  }
  if (amount === 0n) throw new ManualTransferError('--amount must be above 0');
  const route = routeRuleFor(config.policy, from, to);
  if (!route.allowed)
    throw new ManualTransferError(`--from ${from.chain} --to ${to.chain}: not allowed by ${route.text}; nothing was queued`);
  const { key, max } = maxTransferFor(config.policy, from, to);
  if (amount > wholeToBaseUnits(max, 36))
    throw new ManualTransferError(
      `--amount ${req.amount}: above ${key} (${max} ${from.asset}); send it in several transfers or raise the setting`,
    );
}

/**
 * Runs the queued requests, oldest first. The caller holds the run lock or the leader lease. A request that cannot
 * be done ends `refused` with the reason, one that could not be run (an API, chain or store failure) `failed`; the
 * next request still runs. One left when shutdown is requested goes back to `pending`.
 *
 * @returns the requests as they ended
 * @throws only on store failures taking or finishing a request
 */
export async function runQueuedTransfers(ctx: CycleContext): Promise<TransferRequestRow[]> {
  const log = ctx.logger.child({ component: 'transfer-queue' });
  const { abandoned, taken } = await takePendingTransferRequests(ctx.db, ctx.now());
  if (abandoned.length > 0)
    log.warn({ requests: abandoned }, 'queued transfers left running by a stopped process marked abandoned; they are not run again');
  const ended: TransferRequestRow[] = [];
  for (const r of taken) {
    if (ctx.signal?.aborted) {
      await releaseTransferRequest(ctx.db, r.id);
      continue;
    }
    let end: { state: 'done' | 'refused' | 'failed'; cycleId?: number; outcome?: string; detail: string };
    try {
      const report = await runManualTransfer(ctx, {
        from: parseHoldingRef(r.fromRef, '--from'),
        to: parseHoldingRef(r.toRef, '--to'),
        amount: r.amount,
        dryRun: false,
      });
      const a = report.attempts[0]!; // a manual transfer's cycle has exactly one attempt
      end = {
        state: 'done',
        cycleId: report.cycleId,
        outcome: a.outcome,
        detail: a.error ?? (a.transferId !== undefined ? `transfer ${a.transferId}: ${a.outcome}` : a.outcome),
      };
    } catch (error) {
      // Anything else (GET /chains, a balance read, the store) failed before or around the transfer: it is not
      // run again (a transfer it may have signed was written ahead and is reconciled like any other).
      end =
        error instanceof ManualTransferError
          ? { state: 'refused', detail: error.message }
          : {
              state: 'failed',
              detail: `could not be run: ${shortErrorMessage(error)}; see ballast history, and queue it again if nothing was broadcast`,
            };
    }
    await finishTransferRequest(ctx.db, r.id, { ...end, finishedAtMs: ctx.now() });
    log.info(
      { request: r.id, from: r.fromRef, to: r.toRef, amount: r.amount, state: end.state, outcome: end.outcome },
      `queued transfer ${r.id}: ${end.detail}`,
    );
    ended.push({ ...r, ...end });
  }
  return ended;
}
