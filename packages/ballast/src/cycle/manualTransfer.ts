/**
 * A one-off transfer asked by an operator (`ballast transfer --from <chain>:<asset> --to <chain>:<asset> --amount
 * <whole units>`), through the scheduler's own pipeline: it is recorded as a cycle with one planned transfer, then
 * quoted, judged by the fee policy, verified, checked against the spending limits and the kill switch, written
 * ahead, signed and tracked by `processTransfer`, exactly like a planned one. Only the planning step differs: the
 * operator names the route and the amount instead of the bands.
 */
import { formatUnits } from 'viem';
import { wholeToBaseUnits } from '@ballast/protocol/core/units.ts';
import { BallastError } from '@ballast/protocol/core/errors.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import type { PlannedTransfer, TargetBand } from '../planner/types.ts';
import { routeRuleFor, type RouteHolding } from '../planner/routes.ts';
import { startCycle } from '../store/cycles.ts';
import { finishOwnCycle } from './cycleTakenOver.ts';
import { recordPlannedTransfers } from '../store/plans.ts';
import type { CycleContext } from './context.ts';
import type { LoadedConfig } from '../config/loadConfig.ts';
import { processTransfer } from './processTransfer.ts';
import { readTargetBalances } from './readBalances.ts';
import { resolveTargets } from './resolveTargets.ts';
import type { CycleOutcome, CycleReport } from './runCycle.ts';
import { cycleKind, signs, transferMode } from './mode.ts';
import { outcomeClass } from './transferAttempt.ts';

/** One end of a manual transfer: a configured holding, `<chain>:<asset>[:<wallet>]`. */
export interface HoldingRef {
  chain: string;
  asset: string;
  /** Needed only when several wallets hold the asset on that chain. */
  wallet?: string;
}

/** A manual transfer request. `amount` is in whole units of the asset (e.g. "1500.25"). */
export interface ManualTransferRequest {
  from: HoldingRef;
  to: HoldingRef;
  amount: string;
  /** Quote, judge and verify, sign nothing (recorded as a `plan` cycle). */
  dryRun: boolean;
}

/** A request that names no configured route or a bad amount (code `TRANSFER_INVALID`, exit 2); nothing was done. */
export class ManualTransferError extends BallastError {
  readonly code = 'TRANSFER_INVALID';
}

/**
 * Parses `<chain>:<asset>[:<wallet>]`.
 *
 * @param flag the flag's name, for the error (`--from`, `--to`)
 * @throws ManualTransferError naming the flag and the expected form
 */
export function parseHoldingRef(text: string, flag: string): HoldingRef {
  const parts = text.split(':');
  if (parts.length < 2 || parts.length > 3 || parts.some((p) => p === '')) {
    throw new ManualTransferError(`${flag} ${JSON.stringify(text)}: expected <chain>:<asset> or <chain>:<asset>:<wallet>, e.g. base:USDC`);
  }
  const [chain, asset, wallet] = parts as [string, string, string | undefined];
  return wallet === undefined ? { chain, asset } : { chain, asset, wallet };
}

/**
 * The one `assets:` entry a holding reference names (the wallet may be left out when only one holds the asset on
 * that chain).
 *
 * @param flag the flag's name, for the error (`--from`, `--to`)
 * @throws ManualTransferError when no entry or several entries match, listing what is configured
 */
export function configuredHolding(assets: LoadedConfig['assets'], ref: HoldingRef, flag: string): { wallet: string } {
  const configured = (assets[ref.asset] ?? []).filter(
    (e) => e.chain === ref.chain && (ref.wallet === undefined || e.wallet === ref.wallet),
  );
  if (configured.length === 0) {
    const known = Object.entries(assets).flatMap(([asset, entries]) => entries.map((e) => `${e.chain}:${asset}:${e.wallet}`));
    throw new ManualTransferError(
      `${flag} ${ref.chain}:${ref.asset}${ref.wallet ? `:${ref.wallet}` : ''}: no such holding under assets:; configured: ${known.join(', ')}`,
    );
  }
  if (configured.length > 1) {
    throw new ManualTransferError(
      `${flag} ${ref.chain}:${ref.asset}: ${configured.length} wallets hold it there; name one as ${ref.chain}:${ref.asset}:<wallet> (${configured.map((e) => e.wallet).join(', ')})`,
    );
  }
  return configured[0]!; // exactly one, checked above
}

function findHolding(targets: readonly TargetBand[], ref: HoldingRef, flag: string, ctx: CycleContext): TargetBand {
  const { wallet } = configuredHolding(ctx.config.assets, ref, flag);
  const found = targets.find((t) => t.asset === ref.asset && t.chain === ref.chain && t.wallet === wallet);
  if (!found)
    throw new ManualTransferError(
      `${flag} ${ref.chain}:${ref.asset}: its decimals cannot be resolved this time (the chain or GET /chains is unreadable); nothing was done, try again`,
    );
  return found;
}

/**
 * The largest single transfer from `from` to `to`: the matching `policy.routes` entry's maxTransfer, else the
 * asset's (`policy.transferLimits.<asset>`), else `policy.maxTransfer`; whole units, with the setting's YAML path.
 */
export function maxTransferFor(policy: LoadedConfig['policy'], from: RouteHolding, to: RouteHolding): { key: string; max: string } {
  const route = routeRuleFor(policy, from, to);
  if (route.maxTransfer !== undefined) return { key: `${route.text}.maxTransfer`, max: route.maxTransfer };
  const limits = policy.transferLimits?.[from.asset];
  return limits
    ? { key: `policy.transferLimits.${from.asset}.maxTransfer`, max: limits.maxTransfer }
    : { key: 'policy.maxTransfer', max: policy.maxTransfer };
}

/**
 * Resolves the request into a planned transfer: both holdings configured, the same asset, a route `policy.routes`
 * allows, an amount the token can represent within the route's (else the asset's) maxTransfer, and no more than
 * the origin wallet holds now.
 *
 * @throws ManualTransferError naming the flag and the fix; nothing is recorded
 */
export async function planManualTransfer(
  ctx: CycleContext,
  chainsDoc: Parameters<typeof resolveTargets>[1],
  req: ManualTransferRequest,
): Promise<PlannedTransfer> {
  if (req.from.asset !== req.to.asset) {
    throw new ManualTransferError(
      `--from ${req.from.asset} and --to ${req.to.asset}: a transfer moves one asset between its holdings; give the same asset on both sides`,
    );
  }
  const { targets } = await resolveTargets(ctx, chainsDoc);
  const from = findHolding(targets, req.from, '--from', ctx);
  const to = findHolding(targets, req.to, '--to', ctx);
  if (from.chain === to.chain && from.wallet === to.wallet)
    throw new ManualTransferError('--from and --to name the same holding; nothing to move');
  let amountIn: bigint;
  try {
    amountIn = wholeToBaseUnits(req.amount, from.decimals);
  } catch (error) {
    throw new ManualTransferError(
      `--amount ${req.amount}: ${shortErrorMessage(error)} (whole units of ${from.asset}, at most ${from.decimals} decimals)`,
    );
  }
  if (amountIn === 0n) throw new ManualTransferError('--amount must be above 0');
  const policy = ctx.config.policy;
  // The route rules bind an operator's transfer like a planned one (the fee caps follow in processTransfer).
  const route = routeRuleFor(policy, from, to);
  if (!route.allowed) {
    throw new ManualTransferError(
      `--from ${from.chain} --to ${to.chain}: ${from.asset} from ${from.chain} (${from.wallet}) to ${to.chain} (${to.wallet}) is not allowed by ${route.text}; nothing was done (allow the route in policy.routes to send it)`,
    );
  }
  const { key, max } = maxTransferFor(policy, from, to);
  if (amountIn > wholeToBaseUnits(max, from.decimals)) {
    throw new ManualTransferError(
      `--amount ${req.amount}: above ${key} (${max} ${from.asset}); send it in several transfers or raise the setting`,
    );
  }
  const [balance] = await readTargetBalances(ctx, [from]);
  if (balance?.amount === null || balance?.amount === undefined) {
    throw new ManualTransferError(
      `--from ${from.chain}:${from.asset}: its balance cannot be read (${balance?.error ?? 'no answer'}); nothing was done`,
    );
  }
  if (balance.amount < amountIn) {
    throw new ManualTransferError(
      `--amount ${req.amount}: ${from.wallet} holds ${formatUnits(balance.amount, from.decimals)} ${from.asset} on ${from.chain}; nothing was done`,
    );
  }
  const reserve = from.reserve ?? 0n;
  if (balance.amount - amountIn < reserve) {
    throw new ManualTransferError(
      `--amount ${req.amount}: it would leave ${formatUnits(balance.amount - amountIn, from.decimals)} ${from.asset} on ${from.chain}, below the gas reserve of ${formatUnits(reserve, from.decimals)} (chains.${from.chain}.gasReserve); nothing was done`,
    );
  }
  const rule = route.text !== undefined ? `; route ${from.chain} → ${to.chain} per ${route.text}` : '';
  const reason = `manual transfer asked by the operator: ${req.amount} ${from.asset} ${from.chain} (${from.wallet}) → ${to.chain} (${to.wallet})${rule}`;
  return { asset: from.asset, from, to, amountIn, reason };
}

/**
 * Runs a manual transfer as a one-transfer cycle and reports it like a cycle: mode `execute` (recorded as a `once`
 * cycle), or with `dryRun` mode `monitor` (src/cycle/mode.ts: judged like monitor-only mode, recorded as `plan`).
 * The caller holds the run lock or the leader lease unless `dryRun`.
 *
 * @returns the cycle report (its single attempt is the transfer)
 * @throws ManualTransferError when the request is invalid (before anything is recorded); CycleTakenOverError when
 *   the run's leader term ended and the leader that took over closed its cycle first; store errors
 */
export async function runManualTransfer(ctx: CycleContext, req: ManualTransferRequest): Promise<CycleReport> {
  const chainsDoc = ctx.chainsCache ? await ctx.chainsCache.get() : (await ctx.relay.getChains()).chains;
  const planned = await planManualTransfer(ctx, chainsDoc, req);
  const mode = transferMode(req.dryRun);
  const kind = cycleKind(mode === 'execute' ? { mode, trigger: 'once' } : { mode });
  const startedAtMs = ctx.now();
  const cycleId = await startCycle(ctx.db, { mode: kind, startedAtMs });
  const [planId] = await recordPlannedTransfers(ctx.db, cycleId, [
    {
      asset: planned.asset,
      originChain: planned.from.chain,
      destinationChain: planned.to.chain,
      amountIn: planned.amountIn,
      reason: planned.reason,
    },
  ]);
  const decimalsOf = (asset: string, chain: string) =>
    asset === planned.asset && chain === planned.from.chain ? planned.from.decimals : undefined;
  const attempt = await processTransfer(ctx, { cycleId, planId: planId!, planned, chainsDoc, mode, decimalsOf });
  const outcome: CycleOutcome = outcomeClass(attempt.outcome);
  const finishedAtMs = ctx.now();
  await finishOwnCycle(ctx, cycleId, { outcome, finishedAtMs, summary: { manual: true, planned: 1, outcomes: [attempt.outcome] } });
  if (signs(mode)) ctx.metrics.cyclesTotal.inc({ outcome });
  return {
    cycleId,
    mode: kind,
    outcome,
    startedAtMs,
    finishedAtMs,
    targets: [],
    unresolved: [],
    balances: [],
    plan: { transfers: [planned], decisions: [] },
    attempts: [attempt],
    ...(attempt.authRefusal ? { authRefusal: attempt.authRefusal } : {}),
  };
}
