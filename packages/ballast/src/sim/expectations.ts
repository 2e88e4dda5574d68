/**
 * A scenario's `expect` block checked against the KPIs of a run (docs/simulate.md "Ballast scenarios"): what its
 * author expects Ballast to achieve with the scenario's own holdings. `ballast simulate` prints the verdict and exits
 * 1 when a field is not met, so a shipped or team scenario doubles as a regression check. Pure.
 */
import { parseUsdMicros } from '@ballast/protocol/core/units.ts';
import { timeBelowMinTotal, type SimKpis } from './kpis.ts';
import type { SimExpectations } from './scenario.ts';

/**
 * The fields of `e` the run does not meet, one line each (e.g. "maxRebalances: got 5, expected at most 3").
 *
 * @param k the run's KPIs
 * @param e the scenario's expectations; every field given is checked
 * @returns the unmet fields, empty when all are met
 */
export function unmetExpectations(k: SimKpis, e: SimExpectations): string[] {
  const unmet: string[] = [];
  const check = (field: string, ok: boolean, got: unknown, want: string) => {
    if (!ok) unmet.push(`${field}: got ${String(got)}, expected ${want}`);
  };
  if (e.minCompletionRate !== undefined) {
    check('minCompletionRate', k.completionRate >= e.minCompletionRate, k.completionRate, `at least ${e.minCompletionRate}`);
  }
  if (e.minRebalances !== undefined)
    check('minRebalances', k.totalRebalances >= e.minRebalances, k.totalRebalances, `at least ${e.minRebalances}`);
  if (e.maxRebalances !== undefined)
    check('maxRebalances', k.totalRebalances <= e.maxRebalances, k.totalRebalances, `at most ${e.maxRebalances}`);
  if (e.maxTimeBelowMinMs !== undefined) {
    const below = timeBelowMinTotal(k);
    check(
      'maxTimeBelowMinMs',
      below !== null && below <= e.maxTimeBelowMinMs,
      below ?? 'no banded holding',
      `at most ${e.maxTimeBelowMinMs} ms`,
    );
  }
  if (e.maxFeesUsd !== undefined) {
    // USD decimal strings, compared exactly as micro-dollars.
    check('maxFeesUsd', parseUsdMicros(k.feesPaidUsd) <= parseUsdMicros(e.maxFeesUsd), k.feesPaidUsd, `at most ${e.maxFeesUsd}`);
  }
  return unmet;
}
