/**
 * Named targets and balance presets for planner tests, so tests read as scenarios rather than raw base units.
 * Default band for USDC: min 20000, target 50000, max 80000 (whole units).
 */
import { wholeToBaseUnits } from '../../../packages/protocol/src/core/units.ts';
import { planRebalance } from '../../../packages/ballast/src/planner/planRebalance.ts';
import type { BalanceReading, InFlightTransfer, Plan, PlanInput, TargetBand } from '../../../packages/ballast/src/planner/types.ts';

/** Balance presets in whole units against the default band. */
export const BAL = {
  EMPTY: '0',
  BELOW_MIN: '10000',
  IN_BAND_LOW: '30000',
  AT_TARGET: '50000',
  IN_BAND_HIGH: '75000',
  ABOVE_MAX: '90000',
  FAR_ABOVE_MAX: '150000',
} as const;

/** Band in whole units. */
export interface WholeBand {
  min: string;
  target: string;
  max: string;
}

export const DEFAULT_BAND: WholeBand = { min: '20000', target: '50000', max: '80000' };

const CHAIN_IDS: Record<string, number> = { alpha: 1001, beta: 1002, gamma: 1003, delta: 1004 };

/** A USDC-like target on `chain` (6 decimals unless given). */
export function target(
  chain: string,
  opts: { asset?: string; decimals?: number; band?: WholeBand; currency?: string; address?: string; wallet?: string } = {},
): TargetBand {
  const decimals = opts.decimals ?? 6;
  const band = opts.band ?? DEFAULT_BAND;
  return {
    asset: opts.asset ?? 'USDC',
    chain,
    chainId: CHAIN_IDS[chain] ?? 9999,
    currency: opts.currency ?? `0x${'c'.repeat(38)}${decimals.toString().padStart(2, '0')}`,
    wallet: opts.wallet ?? 'treasury',
    address: opts.address ?? '0x1111111111111111111111111111111111111111',
    decimals,
    min: wholeToBaseUnits(band.min, decimals),
    target: wholeToBaseUnits(band.target, decimals),
    max: wholeToBaseUnits(band.max, decimals),
  };
}

/** Base units of `whole` for a target. */
export function units(t: TargetBand, whole: string): bigint {
  return wholeToBaseUnits(whole, t.decimals);
}

/** A successful reading of `whole` units at the target's holding. */
export function reading(t: TargetBand, whole: string): BalanceReading {
  return { chain: t.chain, currency: t.currency, address: t.address, amount: units(t, whole) };
}

/** A failed reading for the target's chain. */
export function unreadable(t: TargetBand, error = 'rpc timeout'): BalanceReading {
  return { chain: t.chain, currency: t.currency, address: t.address, amount: null, error };
}

/** An in-flight transfer of `whole` units from `from` to `to`, arriving as `outWhole` (default: the same). */
export function inFlight(from: TargetBand, to: TargetBand, whole: string, opts: { settled: boolean; outWhole?: string }): InFlightTransfer {
  return {
    asset: from.asset,
    originChain: from.chain,
    originCurrency: from.currency,
    originAddress: from.address,
    destinationChain: to.chain,
    destinationCurrency: to.currency,
    destinationAddress: to.address,
    amountIn: units(from, whole),
    guaranteedOut: units(to, opts.outWhole ?? whole),
    originSettled: opts.settled,
  };
}

/**
 * Plans `targets` with whole-unit `balances` (one per target, in order), no transfers in flight, minTransfer 100
 * and maxTransfer 1 000 000 unless `extra` says otherwise.
 */
export function planOf(targets: TargetBand[], balances: readonly string[], extra: Partial<PlanInput> = {}): Plan {
  return planRebalance({
    targets,
    balances: targets.map((t, i) => reading(t, balances[i]!)),
    inFlight: [],
    minTransfer: '100',
    maxTransfer: '1000000',
    ...extra,
  });
}

/** The plan's transfers as `from→to:amountIn` lines. */
export const moves = (p: Plan): string[] => p.transfers.map((t) => `${t.from.chain}→${t.to.chain}:${t.amountIn}`);

/** The details of the plan's decisions of one kind. */
export const said = (p: Plan, kind: string): string[] => p.decisions.filter((d) => d.kind === kind).map((d) => d.detail);
