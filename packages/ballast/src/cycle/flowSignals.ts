/**
 * The flow signal of the flow-aware strategy (docs/design.md "Flow-aware strategy"): each cycle, every holding of
 * an asset with `policy.strategy.<asset>.kind: flow` is observed once and folded into its smoothed state
 * (src/planner/flow.ts), which lives in the store (`flow_states`, one row per holding) so it survives between
 * processes.
 *
 * An observation is the holding's effective balance (reading + in-flight credits − unsettled debits, as the
 * planner counts it, src/planner/effective.ts) with, as `own`, what the transfers Ballast created since the
 * previous observation did to that effective balance: a rebalance moves both sides of the difference, so it never
 * counts as flow. A failed read records nothing for its holding.
 */
import { effectiveFromIndex, indexInFlight, locationKey, normalizeAddress } from '../planner/effective.ts';
import { signalOf, stepFlow, type FlowState } from '../planner/flow.ts';
import type { BalanceReading, FlowStrategy, HoldingFlow, InFlightTransfer, TargetBand } from '../planner/types.ts';
import { listTransfersCreatedSince, readFlowStates, saveFlowStates, type OwnTransfer, type StoredFlowState } from '../store/flowStates.ts';
import type { CycleContext } from './context.ts';

/** What {@link cycleFlows} observes: this cycle's targets, their readings (same order) and the planner's in-flight view. */
export interface FlowInput {
  targets: readonly TargetBand[];
  balances: readonly BalanceReading[];
  inFlight: readonly InFlightTransfer[];
}

/**
 * This cycle's flow signals: reads the stored states, folds in one observation per readable holding of an asset
 * with a flow strategy, and (when `persist`) writes the new states back.
 *
 * @param persist false for a cycle that signs nothing (`plan`, monitor-only): it reads the history, writes none
 * @returns the planner's `flows`, or undefined when no asset has a flow strategy (then nothing is read or written)
 * @throws on store failures; NotLeaderError/LeaseLostError (PostgreSQL) when persisting without the leader lease
 */
export async function cycleFlows(
  ctx: Pick<CycleContext, 'db' | 'config' | 'now'>,
  input: FlowInput,
  persist: boolean,
): Promise<HoldingFlow[] | undefined> {
  const strategy = ctx.config.policy.strategy;
  if (!strategy || !input.targets.some((t) => strategy[t.asset] !== undefined)) return undefined;
  const atMs = ctx.now();
  const previous = new Map((await readFlowStates(ctx.db)).map((s) => [locationKey(s.chain, s.currency, s.address), s]));
  // Own transfers since the oldest previous observation of a holding observed now (not of one no longer configured).
  const observed = input.targets
    .filter((t) => strategy[t.asset] !== undefined)
    .map((t) => previous.get(locationKey(t.chain, t.currency, t.address)));
  const times = observed.flatMap((s) => (s ? [s.atMs] : []));
  const own = times.length > 0 ? await listTransfersCreatedSince(ctx.db, Math.min(atMs, ...times)) : [];
  const { flows, states } = observeFlows(input, strategy, previous, own, atMs);
  if (persist) await saveFlowStates(ctx.db, states);
  return flows;
}

/**
 * Folds this cycle's observations into the previous states (pure).
 *
 * @param previous stored states by {@link locationKey}
 * @param own transfers created since the oldest previous state of the holdings observed (older ones are ignored)
 * @param atMs the observation time, Unix ms
 * @returns the planner's flows (one per readable holding with a strategy) and the states to store
 */
export function observeFlows(
  input: FlowInput,
  strategy: Readonly<Record<string, FlowStrategy>>,
  previous: ReadonlyMap<string, StoredFlowState>,
  own: readonly OwnTransfer[],
  atMs: number,
): { flows: HoldingFlow[]; states: StoredFlowState[] } {
  const index = indexInFlight(input.inFlight);
  const flows: HoldingFlow[] = [];
  const states: StoredFlowState[] = [];
  const seen = new Set<string>();
  for (const [i, t] of input.targets.entries()) {
    const s = strategy[t.asset];
    const reading = input.balances[i]?.amount;
    const key = locationKey(t.chain, t.currency, t.address);
    if (s === undefined || reading === null || reading === undefined || seen.has(key)) continue;
    seen.add(key);
    const prev = previous.get(key);
    const prevState: FlowState | undefined = prev && {
      at: prev.atMs,
      balance: prev.balance,
      rateScaled: prev.rateScaled,
      samples: prev.samples,
    };
    const balance = effectiveFromIndex(t, reading, index, key).effective;
    const moved = prev ? ownMoves(own, key, prev.atMs, atMs) : 0n;
    const next = stepFlow(prevState, { at: atMs, balance, own: moved }, s.halfLifeSec);
    flows.push({ chain: t.chain, currency: t.currency, address: t.address, ...signalOf(next) });
    if (next !== prevState) {
      const where = { chain: t.chain, currency: normalizeAddress(t.currency), address: normalizeAddress(t.address) };
      states.push({ ...where, atMs: next.at, balance: next.balance, rateScaled: next.rateScaled, samples: next.samples });
    }
  }
  return { flows, states };
}

/**
 * What the transfers created in [fromMs, toMs) did to one holding's effective balance, base units: its origin
 * side −amountIn (+ what a refund returned: all of it when the amount is not recorded), its destination side
 * +minOut while in flight or once delivered (the guaranteed amount, as the planner credits it). A transfer whose
 * deposit never landed (`origin_failed`) moved nothing.
 */
export function ownMoves(own: readonly OwnTransfer[], key: string, fromMs: number, toMs: number): bigint {
  let sum = 0n;
  for (const o of own) {
    if (o.createdAtMs < fromMs || o.createdAtMs >= toMs || o.status === 'origin_failed') continue;
    if (locationKey(o.originChain, o.originCurrency, o.originAddress) === key) {
      sum -= o.amountIn;
      if (o.status === 'refund') sum += o.refunded ?? o.amountIn;
    }
    const delivering = o.status !== 'failure' && o.status !== 'refund';
    if (delivering && locationKey(o.destinationChain, o.destinationCurrency, o.destinationAddress) === key) sum += o.minOut;
  }
  return sum;
}
