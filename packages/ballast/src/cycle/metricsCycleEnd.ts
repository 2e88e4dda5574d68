/**
 * Operator gauges refreshed at the end of every cycle, whatever its outcome: spending budget usage
 * (`ballast_budget_used_ratio`, only for limits that are configured), withdrawals by state, approval requests by
 * status (with `policy.approvals`), the USD value of
 * balances (prices may have come with this cycle's quotes) and `ballast_last_cycle_timestamp_seconds`.
 * A failure here is logged and never changes the cycle's outcome.
 */
import { parseUnits } from 'viem';
import type { BalanceReading, TargetBand } from '../planner/types.ts';
import { parseUsdMicros } from '@ballast/protocol/core/units.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import type { BudgetName } from '../metrics/operatorMetrics.ts';
import type { UsdPrice } from '../metrics/units.ts';
import { readSpendingHistory } from '../store/spendingHistory.ts';
import type { CycleContext } from './context.ts';
import { setBalanceUsdGauges } from './metricsBalances.ts';
import { withdrawalCountsByState } from '../store/metricsReads.ts';
import { countApprovalRequests } from '../store/approvalRequests.ts';
import { APPROVAL_STATUSES } from '../approvals/events.ts';
import { UsdPriceBook } from './metricsPrices.ts';
import { NOTIONAL_DECIMALS, normaliseNotional } from './spendingGate.ts';

/** What the end-of-cycle gauges use: the config, the store, the clock, metrics, prices and the logger. */
export type CycleEndMetricsDeps = Pick<CycleContext, 'config' | 'db' | 'now' | 'metrics' | 'prices' | 'logger'>;

/** One budget's usage: used ÷ limit (1 = exhausted; a limit of 0 reads 1). */
export interface BudgetUsage {
  budget: BudgetName;
  /** The asset for `daily_notional`, `''` otherwise. */
  asset: string;
  ratio: number;
}

/** used ÷ limit as a gauge value; a zero limit is exhausted from the start (1), a used amount above it reads above 1. */
export function usedRatio(used: bigint, limit: bigint): number {
  if (limit <= 0n) return 1;
  return Number(used) / Number(limit);
}

/**
 * Usage of every configured spending limit over its window (policy.limits: dailyNotional per asset over 24 h,
 * dailyFeesUsd over 24 h, maxTransfersPerHour over 1 h), from the store's spending history.
 *
 * @param decimalsOf decimals of an asset on a chain (this cycle's targets); an asset with history on a chain of
 *   unknown decimals is left out (its usage cannot be computed)
 * @returns a Promise of the usages
 * @throws StoreValueError when the stored history is malformed
 */
export async function budgetUsage(
  ctx: Pick<CycleContext, 'config' | 'db' | 'now'>,
  decimalsOf: (asset: string, chain: string) => number | undefined,
): Promise<BudgetUsage[]> {
  const limits = ctx.config.policy.limits;
  if (!limits) return [];
  const out: BudgetUsage[] = [];
  const history = await readSpendingHistory(ctx.db, { nowMs: ctx.now() });
  for (const [asset, whole] of Object.entries(limits.dailyNotional ?? {})) {
    let used = 0n;
    let known = true;
    for (const [chain, amount] of history.notional24hByOrigin.get(asset) ?? []) {
      const decimals = decimalsOf(asset, chain);
      if (decimals === undefined) known = false;
      else used += normaliseNotional(amount, decimals);
    }
    if (known) out.push({ budget: 'daily_notional', asset, ratio: usedRatio(used, parseUnits(whole, NOTIONAL_DECIMALS)) });
  }
  if (limits.dailyFeesUsd !== undefined) {
    out.push({ budget: 'daily_fees_usd', asset: '', ratio: usedRatio(history.feesUsd24hMicros, parseUsdMicros(limits.dailyFeesUsd)) });
  }
  if (limits.maxTransfersPerHour !== undefined) {
    out.push({
      budget: 'transfers_per_hour',
      asset: '',
      ratio: usedRatio(BigInt(history.transfersLastHour), BigInt(limits.maxTransfersPerHour)),
    });
  }
  return out;
}

/**
 * Refreshes the end-of-cycle gauges. Never rejects.
 *
 * @param cycle this cycle's targets and readings (empty when it failed before reading), its mode and end time
 */
export async function recordCycleEndMetrics(
  ctx: CycleEndMetricsDeps,
  cycle: { mode: 'once' | 'daemon' | 'plan'; finishedAtMs: number; targets: readonly TargetBand[]; balances: readonly BalanceReading[] },
): Promise<void> {
  const log = ctx.logger.child({ component: 'metrics' });
  const step = async (what: string, run: () => Promise<void>) => {
    try {
      await run();
    } catch (error) {
      log.warn({ err: shortErrorMessage(error) }, `${what} not updated`);
    }
  };
  const decimalsOf = (asset: string, chain: string) => cycle.targets.find((t) => t.asset === asset && t.chain === chain)?.decimals;
  await step('ballast_budget_used_ratio', async () => {
    for (const u of await budgetUsage(ctx, decimalsOf)) ctx.metrics.budgetUsedRatio.set({ budget: u.budget, asset: u.asset }, u.ratio);
  });
  await step('ballast_withdrawals', async () => {
    for (const [state, n] of await withdrawalCountsByState(ctx.db)) ctx.metrics.withdrawalsByState.set({ state }, n);
  });
  if (ctx.config.policy.approvals) {
    await step('ballast_approval_requests', async () => {
      const counts = await countApprovalRequests(ctx.db);
      for (const status of APPROVAL_STATUSES) ctx.metrics.approvalRequests.set({ status }, counts.get(status) ?? 0);
    });
  }
  await step('ballast_balance_usd', async () => {
    const book = ctx.prices ?? new UsdPriceBook(ctx.config.prices ?? {});
    const prices = new Map<string, UsdPrice | null>();
    for (const t of cycle.targets) if (!prices.has(t.asset)) prices.set(t.asset, await book.priceOf(t.asset, ctx.db));
    setBalanceUsdGauges(ctx.metrics, cycle.targets, cycle.balances, (asset) => prices.get(asset) ?? null);
  });
  if (cycle.mode !== 'plan') ctx.metrics.lastCycleTimestampSeconds.set(cycle.finishedAtMs / 1000);
}
