/**
 * The solver's liquidity in the cycle (issue 39 §5): after planning, each planned transfer is checked against what
 * the solver holds of its destination currency (GET /chains/liquidity, docs/relay-contract.md
 * "GET /chains/liquidity", https://docs.relay.link/references/api/get-chains-liquidity). A transfer larger than
 * that is refunded, not filled, so it is reduced to fit or deferred (src/cycle/solverLiquidityFit.ts, pure).
 *
 * One request per destination chain per cycle, through a {@link LiquidityCache} that keeps each chain's answer for a
 * short time (default {@link DEFAULT_LIQUIDITY_TTL_MS}). A chain whose answer cannot be used leaves its transfers as
 * planned, with one warn line.
 */
import { shortErrorMessage } from '../core/errorMessage.ts';
import type { ChainLiquidity } from '@ballast/protocol/relay/schemas.ts';
import type { Plan, PlannedTransfer } from '../planner/types.ts';
import type { RelayClient } from '../relay/client.ts';
import type { CycleContext } from './context.ts';
import { fitToSolverLiquidity, type LiquidityAnswer } from './solverLiquidityFit.ts';

export { minAmountInFromPlanInput } from './solverLiquidityFit.ts';

/** Default time a chain's liquidity answer is reused, ms: short, the solver's balances move with every fill. */
export const DEFAULT_LIQUIDITY_TTL_MS = 30_000;

/** GET /chains/liquidity answers kept in memory per chain id. Failed reads are not kept. */
export interface LiquidityCache {
  /** How long an answer is reused, ms. */
  readonly ttlMs: number;
  /**
   * The solver's liquidity on `chainId`: the kept answer when it was fetched less than {@link ttlMs} before `nowMs`,
   * else a fresh GET /chains/liquidity (kept when it succeeds).
   *
   * @throws whatever `relay.getChainLiquidity` throws (RelayApiError, RelaySchemaError, RelayNetworkError, …)
   */
  read(relay: Pick<RelayClient, 'getChainLiquidity'>, chainId: number, nowMs: number): Promise<ChainLiquidity[]>;
}

/**
 * Creates an empty liquidity cache; keep one per process (e.g. next to the GET /chains cache) so the TTL spans
 * cycles.
 *
 * @param opts.ttlMs reuse time, ms (default {@link DEFAULT_LIQUIDITY_TTL_MS}; 0: every read fetches)
 * @throws RangeError when `ttlMs` is negative or not finite
 */
export function createLiquidityCache(opts: { ttlMs?: number } = {}): LiquidityCache {
  const ttlMs = opts.ttlMs ?? DEFAULT_LIQUIDITY_TTL_MS;
  if (!Number.isFinite(ttlMs) || ttlMs < 0) throw new RangeError(`liquidity cache ttlMs must be a non-negative number, got ${ttlMs}`);
  const kept = new Map<number, { atMs: number; entries: ChainLiquidity[] }>();
  return {
    ttlMs,
    async read(relay, chainId, nowMs) {
      const hit = kept.get(chainId);
      if (hit && nowMs >= hit.atMs && nowMs - hit.atMs < ttlMs) return hit.entries;
      const entries = await relay.getChainLiquidity(chainId);
      kept.set(chainId, { atMs: nowMs, entries });
      return entries;
    },
  };
}

/**
 * Fits the plan to the solver's liquidity on each destination chain (gas top-ups are left alone).
 *
 * For each planned transfer, the solver's balance of the destination currency (compared case-insensitively for 0x
 * hex, exactly otherwise) is compared with what the transfer delivers (`amountIn` scaled from `from.decimals` to
 * `to.decimals`). A transfer delivering more is reduced to the largest origin amount that fits when that is at least
 * `minAmountIn(transfer)`, else removed; either way a `solver_liquidity` decision on the destination chain says what
 * the solver holds and what was done. Transfers to the same destination currency share the balance in plan order.
 * An answer that cannot be used (a failed read, a malformed answer, no entry for the currency, other decimals)
 * changes nothing for that chain and logs one warn line for it.
 *
 * @param ctx `relay` for GET /chains/liquidity, `logger`, `now` (unix ms, for the cache)
 * @param plan the planner's plan (not modified)
 * @param cache answers kept across cycles ({@link createLiquidityCache})
 * @param minAmountIn the transfer's minimum in origin base units: the route's or asset's `minTransfer`
 *   ({@link minAmountInFromPlanInput} computes it from the planner input)
 * @returns the fitted plan (the same object when no transfer needs a read)
 */
export async function applySolverLiquidity(
  ctx: Pick<CycleContext, 'relay' | 'logger' | 'now'>,
  plan: Plan,
  cache: LiquidityCache,
  minAmountIn: (transfer: PlannedTransfer) => bigint,
): Promise<Plan> {
  const chainIds = [...new Set(plan.transfers.filter((t) => !t.gasTopUp).map((t) => t.to.chainId))];
  if (chainIds.length === 0) return plan;
  const nowMs = ctx.now();
  const answers = new Map<number, LiquidityAnswer>();
  await Promise.all(
    chainIds.map(async (chainId) => {
      try {
        answers.set(chainId, { entries: await cache.read(ctx.relay, chainId, nowMs) });
      } catch (error) {
        answers.set(chainId, { error: `GET /chains/liquidity failed: ${shortErrorMessage(error)}` });
      }
    }),
  );
  const fit = fitToSolverLiquidity(plan, answers, minAmountIn);
  const log = ctx.logger.child({ component: 'solver-liquidity' });
  for (const w of fit.warnings) {
    log.warn({ chain: w.chain, chainId: w.chainId, reason: w.reason }, "solver liquidity unusable; this chain's transfers stay as planned");
  }
  for (const d of fit.plan.decisions.slice(plan.decisions.length)) log.info({ asset: d.asset, chain: d.chain }, d.detail);
  return fit.plan;
}
