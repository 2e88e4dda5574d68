/**
 * Consistency checks on planner input, run before any planning. Pure.
 */
import { wholeToBaseUnits } from '@ballast/protocol/core/units.ts';
import { targetKey } from './effective.ts';
import { PlanInputError } from './errors.ts';
import type { PlanInput, TargetBand, TransferLimits } from './types.ts';

/**
 * Checks every target band and the transfer bounds.
 *
 * @throws PlanInputError (code `PLAN_INPUT_INVALID`) when decimals are not an integer in 0..255, a band is not
 *   `0 <= min <= target <= max`, two targets share (chain, currency, address), a balance or in-flight amount is
 *   negative, or `minTransfer` / `maxTransfer` (global, per asset or of a `routes` entry) are malformed,
 *   `maxTransfer` is zero or below `minTransfer`.
 * @param keyOf the target's `targetKey` (a planner passes one that computes each key once)
 */
export function validatePlanInput(input: PlanInput, keyOf: (t: TargetBand) => string = targetKey): void {
  const seen = new Map<string, number>();
  input.targets.forEach((t, i) => {
    const f = `targets[${i}]`;
    if (!Number.isInteger(t.decimals) || t.decimals < 0 || t.decimals > 255) {
      throw new PlanInputError(`${f}.decimals`, `${t.decimals} is not an integer in 0..255`, 'set the token decimals from GET /chains');
    }
    if (t.min < 0n) throw new PlanInputError(`${f}.min`, `negative (${t.min})`, 'use a non-negative amount');
    if (t.min > t.target || t.target > t.max) {
      throw new PlanInputError(
        `${f}`,
        `band for ${t.asset} on ${t.chain} is not min <= target <= max (${t.min} / ${t.target} / ${t.max} base units)`,
        'order the band values in the config',
      );
    }
    const key = keyOf(t);
    const prev = seen.get(key);
    if (prev !== undefined) {
      throw new PlanInputError(
        f,
        `same chain, currency and address as targets[${prev}] (${t.chain} ${t.currency} ${t.address})`,
        'configure each holding once',
      );
    }
    seen.set(key, i);
  });
  input.balances.forEach((b, i) => {
    if (b.amount !== null && b.amount < 0n) {
      throw new PlanInputError(`balances[${i}].amount`, `negative (${b.amount})`, 'report balances in base units >= 0');
    }
  });
  input.inFlight.forEach((f, i) => {
    if (f.amountIn < 0n || f.guaranteedOut < 0n) {
      throw new PlanInputError(`inFlight[${i}]`, 'negative amountIn or guaranteedOut', 'store amounts as base units >= 0');
    }
  });
  for (const [asset, point] of Object.entries(input.refillTo ?? {})) {
    if (point !== 'target' && !(Number.isInteger(point.bandBps) && point.bandBps >= 0 && point.bandBps <= 10_000)) {
      throw new PlanInputError(
        `refillTo.${asset}`,
        `bandBps ${point.bandBps} is not 0..10000`,
        'give a share of the band between 0 and 10000 bps',
      );
    }
  }
  (input.needs ?? []).forEach((n, i) => {
    if (n.amount <= 0n)
      throw new PlanInputError(`needs[${i}].amount`, `not positive (${n.amount})`, 'a need is a positive amount in base units');
  });
  validateLimits('', input);
  for (const [asset, limits] of Object.entries(input.transferLimits ?? {})) validateLimits(`transferLimits.${asset}.`, limits);
  (input.routes ?? []).forEach((r, i) => {
    const min = r.minTransfer === undefined ? undefined : parseWhole(`routes[${i}].minTransfer`, r.minTransfer);
    const max = r.maxTransfer === undefined ? undefined : parseWhole(`routes[${i}].maxTransfer`, r.maxTransfer);
    if (max === 0n) throw new PlanInputError(`routes[${i}].maxTransfer`, 'is zero', 'set a positive per-transfer maximum or allow: false');
    if (min !== undefined && max !== undefined && max < min) {
      throw new PlanInputError(
        `routes[${i}].maxTransfer`,
        `${r.maxTransfer} is below minTransfer ${r.minTransfer}`,
        'raise maxTransfer or lower minTransfer',
      );
    }
  });
}

function validateLimits(prefix: string, limits: TransferLimits): void {
  const min = parseWhole(`${prefix}minTransfer`, limits.minTransfer);
  const max = parseWhole(`${prefix}maxTransfer`, limits.maxTransfer);
  if (max === 0n) throw new PlanInputError(`${prefix}maxTransfer`, 'is zero', 'set a positive per-transfer maximum');
  if (max < min) {
    throw new PlanInputError(
      `${prefix}maxTransfer`,
      `${limits.maxTransfer} is below minTransfer ${limits.minTransfer}`,
      'raise maxTransfer or lower minTransfer',
    );
  }
}

/** Parses a whole-unit amount at a generous scale only to check its form; the planner rescales per asset. */
function parseWhole(field: string, value: string): bigint {
  try {
    return wholeToBaseUnits(value, 255);
  } catch (cause) {
    throw new PlanInputError(field, `${JSON.stringify(value)} is not a decimal amount in whole units`, 'write it like "1000" or "0.5"', {
      cause,
    });
  }
}

/**
 * Converts the asset's transfer bounds (`transferLimits[asset]`, else `minTransfer` / `maxTransfer`; whole units)
 * to base units at `scale` decimals with `wholeToBaseUnits`.
 *
 * @throws PlanInputError when the value has more fractional digits than `scale` allows
 */
export function transferBoundsAt(input: PlanInput, scale: number, asset: string): { minN: bigint; maxN: bigint } {
  const limits: TransferLimits = input.transferLimits?.[asset] ?? input;
  const at = (field: 'minTransfer' | 'maxTransfer'): bigint => {
    try {
      return wholeToBaseUnits(limits[field], scale);
    } catch (cause) {
      throw new PlanInputError(
        field,
        `${limits[field]} cannot be expressed in ${asset} at ${scale} decimals`,
        'use fewer fractional digits',
        { cause },
      );
    }
  };
  return { minN: at('minTransfer'), maxN: at('maxTransfer') };
}

/** Largest decimals among an asset's targets: the common scale used for matching. */
export function commonScale(targets: TargetBand[]): number {
  return targets.reduce((m, t) => Math.max(m, t.decimals), 0);
}
