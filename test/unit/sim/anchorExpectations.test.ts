/**
 * Hyperlane scenario files' `expectations` judged against a run's KPIs (src/sim/anchorExpectations.ts): every field
 * the block states is checked, a field its `_note` calls not enforced is reported only, and a malformed block is
 * refused naming the field.
 */
import { describe, expect, it } from 'vitest';
import { checkAnchorExpectations, unmetAnchorChecks } from '../../../packages/ballast/src/sim/anchorExpectations.ts';

const run = (completionRate: number, totalRebalances: number) => ({ completionRate, totalRebalances });

describe('anchor expectations', () => {
  it('checks each stated field against the run', () => {
    const doc = { expectations: { minCompletionRate: 0.9, shouldTriggerRebalancing: true, minRebalances: 2 } };
    expect(unmetAnchorChecks(checkAnchorExpectations(doc, run(0.95, 2)))).toEqual([]);
    const short = checkAnchorExpectations(doc, run(0.85, 1));
    expect(unmetAnchorChecks(short).map((c) => [c.field, c.expected, c.got])).toEqual([
      ['minCompletionRate', '≥ 0.9', '0.85'],
      ['minRebalances', '≥ 2', '1'],
    ]);
    expect(short.find((c) => c.field === 'shouldTriggerRebalancing')?.met).toBe(true);
  });

  it('reads shouldTriggerRebalancing: false as "no rebalance at all"', () => {
    const doc = { expectations: { shouldTriggerRebalancing: false } };
    expect(unmetAnchorChecks(checkAnchorExpectations(doc, run(1, 0)))).toEqual([]);
    expect(unmetAnchorChecks(checkAnchorExpectations(doc, run(1, 1)))).toMatchObject([
      { field: 'shouldTriggerRebalancing', expected: 'no rebalance', got: '1 rebalance(s)' },
    ]);
  });

  it('reports a field the note calls not enforced without failing on it, and states nothing for a note alone', () => {
    const doc = { expectations: { maxRebalances: 2, _note: 'maxRebalances expectation not enforced in tests - report-only' } };
    const checks = checkAnchorExpectations(doc, run(1, 5));
    expect(checks).toMatchObject([{ field: 'maxRebalances', met: false, reportOnly: true }]);
    expect(unmetAnchorChecks(checks)).toEqual([]);
    expect(checkAnchorExpectations({ expectations: { _note: 'Both rebalancers show 0% completion.' } }, run(0, 0))).toEqual([]);
    expect(checkAnchorExpectations({ name: 'no block' }, run(0, 0))).toEqual([]);
  });

  it('refuses a malformed block, naming the field', () => {
    expect(() => checkAnchorExpectations({ expectations: { minCompletionRate: 1.5 } }, run(1, 0))).toThrow(/minCompletionRate/);
  });
});
