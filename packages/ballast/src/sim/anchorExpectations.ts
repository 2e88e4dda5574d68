/**
 * The expectations a Hyperlane rebalancer-sim scenario file states for any rebalancer run on it (its `expectations`
 * block, hyperlane-xyz/hyperlane-monorepo typescript/rebalancer-sim/scenarios), judged against a Ballast run's KPIs.
 * Fields, as that project's own tests read them:
 *
 * - `minCompletionRate`: share of user transfers delivered, at least (Ballast: `completionRate`);
 * - `shouldTriggerRebalancing`: true, at least one rebalance filled; false, none (`totalRebalances`);
 * - `minRebalances` / `maxRebalances`: rebalances filled, at least / at most (`totalRebalances`).
 *
 * A block whose `_note` says a field is report-only (Hyperlane's `inflight-guard`: "maxRebalances expectation not
 * enforced") reports it without failing; a block holding only a `_note` (`blocked-user-transfer`) states nothing.
 * Pure: no I/O.
 */
import { z } from 'zod';
import type { SimKpis } from './kpis.ts';

/** The `expectations` block of a Hyperlane scenario file (unknown keys kept, not judged). */
export const AnchorExpectationsSchema = z.looseObject({
  minCompletionRate: z.number().min(0).max(1).optional(),
  shouldTriggerRebalancing: z.boolean().optional(),
  minRebalances: z.number().int().min(0).optional(),
  maxRebalances: z.number().int().min(0).optional(),
  _note: z.string().optional(),
});
export type AnchorExpectations = z.infer<typeof AnchorExpectationsSchema>;

/** One expectation judged: the field, what the file asks, what the run got, and whether it holds. */
export interface AnchorCheck {
  field: 'minCompletionRate' | 'shouldTriggerRebalancing' | 'minRebalances' | 'maxRebalances';
  expected: string;
  got: string;
  met: boolean;
  /** The file's `_note` says this field is not enforced: reported, never a failure. */
  reportOnly: boolean;
}

/**
 * Judges a run against a scenario file's expectations.
 *
 * @param doc the scenario document as parsed JSON (its `expectations`, when present, must match
 *   {@link AnchorExpectationsSchema})
 * @param kpis the run's KPIs (src/sim/kpis.ts)
 * @returns one check per field the block states, in the order of {@link AnchorCheck.field}'s union
 * @throws ZodError naming the field when the block is malformed
 */
export function checkAnchorExpectations(doc: unknown, kpis: Pick<SimKpis, 'completionRate' | 'totalRebalances'>): AnchorCheck[] {
  const raw = (doc as { expectations?: unknown } | null)?.expectations;
  if (raw === undefined) return [];
  const e = AnchorExpectationsSchema.parse(raw);
  const note = e._note ?? '';
  const reportOnly = (field: string) => new RegExp(`${field}[^.]*not enforced`, 'i').test(note);
  const checks: AnchorCheck[] = [];
  const add = (field: AnchorCheck['field'], expected: string, got: string, met: boolean) =>
    checks.push({ field, expected, got, met, reportOnly: reportOnly(field) });
  const rebalances = kpis.totalRebalances;
  if (e.minCompletionRate !== undefined)
    add('minCompletionRate', `≥ ${e.minCompletionRate}`, String(kpis.completionRate), kpis.completionRate >= e.minCompletionRate);
  if (e.shouldTriggerRebalancing !== undefined)
    add(
      'shouldTriggerRebalancing',
      e.shouldTriggerRebalancing ? '≥ 1 rebalance' : 'no rebalance',
      `${rebalances} rebalance(s)`,
      e.shouldTriggerRebalancing ? rebalances >= 1 : rebalances === 0,
    );
  if (e.minRebalances !== undefined) add('minRebalances', `≥ ${e.minRebalances}`, String(rebalances), rebalances >= e.minRebalances);
  if (e.maxRebalances !== undefined) add('maxRebalances', `≤ ${e.maxRebalances}`, String(rebalances), rebalances <= e.maxRebalances);
  return checks;
}

/** The checks a run fails (report-only ones excluded). */
export function unmetAnchorChecks(checks: readonly AnchorCheck[]): AnchorCheck[] {
  return checks.filter((c) => !c.met && !c.reportOnly);
}
