/**
 * Flow-aware strategy of the planner (pure; docs/design.md "Flow-aware strategy"). For an asset whose
 * `strategy` is `flow`, each holding's smoothed net flow (src/planner/flow.ts) is projected `horizonSec` ahead:
 *
 * - below `min` now: a deficit of `target` − balance, always, as with bands (the floor is never traded for fewer
 *   transfers), served before any pre-funding;
 * - at or above `min` but projected below it (draining): a deficit now, funded until its projected balance reaches
 *   `target`, served after every holding below `min`;
 * - above `max` with a flow inside the deadband, or an outflow that brings it back to `max` within the horizon:
 *   stays where it is (still a donor to deficits, never swept);
 * - a donor gives at most down to its target (and gas reserve), and, when draining, never below `min` + the
 *   outflow over the horizon (its projected balance stays at or above `min`).
 *
 * A holding without a signal, or with fewer than `minSamples` intervals behind it, is planned on bands alone.
 */
import { formatUnits } from 'viem';
import { wholeToBaseUnits } from '@ballast/protocol/core/units.ts';
import { locationKey } from './effective.ts';
import { PlanInputError } from './errors.ts';
import type { FlowStrategy, HoldingFlow, PlanInput, TargetBand } from './types.ts';

/** What the flow signal says about one holding this cycle. */
export interface FlowView {
  /**
   * Expected change over the horizon, base units of the holding: netFlowPerSec × horizonSec; 0 when the flow is
   * inside the deadband. Negative: draining.
   */
  delta: bigint;
  /** True when the signal is used (enough samples); false: bands alone, `delta` is 0. */
  warm: boolean;
  /** Words for decisions, e.g. "net flow -3600/h (5 samples), -900 over 900 s". */
  note: string;
}

/** Index of `input.flows` by holding location (normalized addresses). Later entries for one holding win. */
export function indexFlows(flows: readonly HoldingFlow[] | undefined): Map<string, HoldingFlow> {
  const out = new Map<string, HoldingFlow>();
  for (const f of flows ?? []) out.set(locationKey(f.chain, f.currency, f.address), f);
  return out;
}

/**
 * Checks each `strategy` entry: integer `horizonSec` > 0, integer `minSamples` >= 0, `deadbandPerHour` a
 * non-negative decimal amount.
 *
 * @throws PlanInputError naming `strategy.<asset>.<field>`
 */
export function validateStrategies(strategy: PlanInput['strategy']): void {
  for (const [asset, s] of Object.entries(strategy ?? {})) {
    const at = `strategy.${asset}`;
    if (s.kind !== 'flow') throw new PlanInputError(`${at}.kind`, `unknown strategy ${JSON.stringify(s.kind)}`, 'use "flow"');
    if (!Number.isSafeInteger(s.horizonSec) || s.horizonSec <= 0) {
      throw new PlanInputError(`${at}.horizonSec`, `${s.horizonSec} is not a positive whole number of seconds`, 'set e.g. 900');
    }
    if (!Number.isSafeInteger(s.minSamples) || s.minSamples < 0) {
      throw new PlanInputError(`${at}.minSamples`, `${s.minSamples} is not a whole number >= 0`, 'set e.g. 3');
    }
    deadbandBase(s, 0, at);
  }
}

/** `deadbandPerHour` in base units per hour at `decimals` (finer digits truncated). */
function deadbandBase(s: FlowStrategy, decimals: number, at = 'strategy'): bigint {
  try {
    return wholeToBaseUnits(s.deadbandPerHour, 255) / 10n ** BigInt(255 - decimals);
  } catch (cause) {
    throw new PlanInputError(
      `${at}.deadbandPerHour`,
      `${JSON.stringify(s.deadbandPerHour)} is not a decimal amount`,
      'write it like "100"',
      {
        cause,
      },
    );
  }
}

/**
 * The flow view of one holding.
 *
 * @param t the holding
 * @param s its asset's strategy
 * @param flow its signal, if any
 */
export function flowView(t: TargetBand, s: FlowStrategy, flow: HoldingFlow | undefined): FlowView {
  const fmt = (n: bigint): string => formatUnits(n, t.decimals);
  if (flow === undefined) return { delta: 0n, warm: false, note: 'no flow history yet: bands alone' };
  if (flow.samples < s.minSamples) {
    return { delta: 0n, warm: false, note: `flow history ${flow.samples}/${s.minSamples} samples: bands alone` };
  }
  const perHour = flow.netFlowPerSec * 3600n;
  const abs = perHour < 0n ? -perHour : perHour;
  const rate = `net flow ${fmt(perHour)}/h (${flow.samples} samples)`;
  if (abs <= deadbandBase(s, t.decimals)) return { delta: 0n, warm: true, note: `${rate}, inside the deadband` };
  const delta = flow.netFlowPerSec * BigInt(s.horizonSec);
  return { delta, warm: true, note: `${rate}, ${delta > 0n ? '+' : ''}${fmt(delta)} over ${s.horizonSec} s` };
}

/**
 * The lowest balance a donor may be left with: its target, its gas reserve, and when draining `min` + the outflow
 * over the horizon, whichever is highest.
 */
export function donorFloor(t: TargetBand, view: FlowView | undefined): bigint {
  const reserve = t.reserve ?? 0n;
  let floor = reserve > t.target ? reserve : t.target;
  if (view && view.delta < 0n && t.min - view.delta > floor) floor = t.min - view.delta;
  return floor;
}
