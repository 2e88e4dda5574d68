/**
 * Needs in a cycle (docs/needs.md): needs whose due time plus `policy.needsGraceSec` has passed are closed (the
 * payment system paid them), and the open needs due within `policy.needsHorizonSec` on this cycle's targets are
 * handed to the planner, which holds them on their holdings. Sets `ballast_needs{status}` and
 * `ballast_need_funded_ratio`.
 */
import { closeLapsedNeeds, openNeeds } from '../store/needs.ts';
import { locationKey } from '../planner/effective.ts';
import type { BalanceReading, PlanNeed, TargetBand } from '../planner/types.ts';
import type { CycleContext } from './context.ts';
import { needsForPlan } from './needsForPlan.ts';

/**
 * This cycle's needs for the planner.
 *
 * @param targets this cycle's targets; `balances` their readings, in the same order
 * @param writes false for a cycle that signs nothing (`plan`, monitor-only): lapsed needs are left for a cycle that
 *   writes, and are not held meanwhile
 * @returns the needs the planner holds (none when `policy.needsHorizonSec` is 0)
 * @throws on store failures
 */
export async function cycleNeeds(
  ctx: Pick<CycleContext, 'db' | 'config' | 'now' | 'metrics' | 'logger'>,
  targets: readonly TargetBand[],
  balances: readonly BalanceReading[],
  writes: boolean,
): Promise<PlanNeed[]> {
  const { needsHorizonSec, needsGraceSec } = ctx.config.policy;
  const nowMs = ctx.now();
  if (writes) {
    for (const n of await closeLapsedNeeds(ctx.db, nowMs, needsGraceSec * 1000)) {
      ctx.logger.info({ need: n.id, asset: n.asset, chain: n.chain, wallet: n.wallet }, 'need closed: its due time and grace have passed');
    }
  }
  const graceMs = needsGraceSec * 1000;
  const open = (await openNeeds(ctx.db)).filter((n) => n.dueAtMs + graceMs > nowMs);
  const split = needsForPlan(open, targets, nowMs, needsHorizonSec * 1000);
  ctx.metrics.needs.set({ status: 'held' }, split.held.length);
  ctx.metrics.needs.set({ status: 'later' }, split.later.length);
  ctx.metrics.needs.set({ status: 'unmatched' }, split.unmatched.length);
  for (const n of split.unmatched) {
    ctx.logger.warn(
      { need: n.id, asset: n.asset, chain: n.chain, wallet: n.wallet },
      'need not held: its holding is not a target this cycle (removed from the config, or its chain unresolved)',
    );
  }
  setFundedRatios(ctx, targets, balances, split.held);
  return split.held;
}

/** `ballast_need_funded_ratio` per holding with needs held: reading ÷ needs, capped at 1 (0 while unreadable). */
function setFundedRatios(
  ctx: Pick<CycleContext, 'metrics'>,
  targets: readonly TargetBand[],
  balances: readonly BalanceReading[],
  held: readonly PlanNeed[],
): void {
  ctx.metrics.needFundedRatio.reset();
  const sums = new Map<string, bigint>();
  for (const n of held) {
    const key = locationKey(n.chain, n.currency, n.address);
    sums.set(key, (sums.get(key) ?? 0n) + n.amount);
  }
  targets.forEach((t, i) => {
    const total = sums.get(locationKey(t.chain, t.currency, t.address));
    if (total === undefined) return;
    const reading = balances[i]?.amount ?? 0n;
    // Parts per million in bigint, then one float for the gauge: amounts never pass through a JS number whole.
    const ppm = reading >= total ? 1_000_000n : (reading * 1_000_000n) / total;
    ctx.metrics.needFundedRatio.set({ chain: t.chain, asset: t.asset, wallet: t.wallet }, Number(ppm) / 1_000_000);
  });
}
