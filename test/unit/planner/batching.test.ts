/**
 * Batching small deficits (`batchSmallDeficits`, on by default): a holding below min whose need to target is
 * smaller than minTransfer receives one transfer of minTransfer when its band max can take it and a donor can give
 * it without going below its target; otherwise the deficit waits. Spec "Fee components" / "Limits": the flat
 * execution fee is paid per transfer, so one transfer of minTransfer beats a string of small ones.
 */
import { describe, expect, it } from 'vitest';
import type { Plan, PlanInput, TargetBand } from '../../../packages/ballast/src/planner/types.ts';
import { inFlight as inFlightOf, moves, planOf, said, target, units, type WholeBand } from './presets.ts';

const DONOR: WholeBand = { min: '40000', target: '50000', max: '60000' };
/** Needs 40 from 10000; room up to max: 9960. */
const ROOMY: WholeBand = { min: '10010', target: '10040', max: '20000' };
/** Needs 40 from 10000; room up to max: only 50. */
const TIGHT: WholeBand = { min: '10010', target: '10040', max: '10050' };

const plan = (targets: TargetBand[], balances: string[], extra: Partial<PlanInput> = {}): Plan =>
  planOf(targets, balances, { maxTransfer: '50000', ...extra });

describe('batching small deficits', () => {
  const alpha = target('alpha', { band: DONOR });

  it('raises a need below minTransfer to minTransfer when the band can take it', () => {
    const beta = target('beta', { band: ROOMY });
    const p = plan([alpha, beta], ['90000', '10000']);
    expect(moves(p)).toEqual([`alpha→beta:${units(alpha, '100')}`]);
    expect(said(p, 'batched')).toEqual([
      'beta: needs 40 USDC, below minTransfer 100 USDC; planned 100 USDC from alpha so the flat fee is paid once (band max 20000)',
    ]);
    expect(said(p, 'below_min_transfer')).toEqual([]);
    expect(p.transfers[0]!.reason).toBe(
      'beta below min: 10000 < 10010 USDC; alpha above max: 90000 > 60000 USDC; raised from 40 USDC to minTransfer so the flat fee is paid once',
    );
  });

  it('waits when minTransfer would take the holding above its max, and says so', () => {
    const beta = target('beta', { band: TIGHT });
    const p = plan([alpha, beta], ['90000', '10000']);
    expect(p.transfers).toEqual([]);
    expect(said(p, 'batched')).toEqual([]);
    expect(said(p, 'below_min_transfer')).toEqual([
      'beta: needs 40 USDC, below minTransfer 100 USDC; waits until the deficit reaches minTransfer (100 USDC more would take it above its band max 10050 USDC)',
    ]);
  });

  it('is on by default and off with batchSmallDeficits: false (the deficit then waits as before)', () => {
    const beta = target('beta', { band: ROOMY });
    const off = plan([alpha, beta], ['90000', '10000'], { batchSmallDeficits: false });
    expect(off.transfers).toEqual([]);
    expect(said(off, 'below_min_transfer')).toEqual(['beta: remaining deficit 40 USDC is below minTransfer 100 USDC; not planned']);
    expect(moves(plan([alpha, beta], ['90000', '10000'], { batchSmallDeficits: true }))).toEqual([`alpha→beta:${units(alpha, '100')}`]);
  });

  it('never takes a donor below its target: a surplus smaller than minTransfer gives nothing', () => {
    const beta = target('beta', { band: ROOMY });
    const narrowDonor = target('alpha', { band: { min: '49900', target: '50000', max: '50050' } });
    const short = plan([narrowDonor, beta], ['50060', '10000']); // alpha can give 60 only
    expect(short.transfers).toEqual([]);
    expect(said(short, 'below_min_transfer')).toEqual([
      'beta: needs 40 USDC, below minTransfer; no surplus could give a minTransfer its band can take this cycle, so it waits until the deficit reaches minTransfer',
    ]);
    const exact = plan([narrowDonor, beta], ['50100', '10000']); // alpha can give exactly 100: down to its target
    expect(moves(exact)).toEqual([`alpha→beta:${units(narrowDonor, '100')}`]);
  });

  it('serves larger deficits first and batches a small one only from what is left', () => {
    const big = target('gamma', { band: { min: '20000', target: '30000', max: '45000' } });
    const beta = target('beta', { band: ROOMY });
    // alpha gives 40100 down to target; gamma needs 30000 first, then beta's 40 becomes a transfer of 100.
    const p = plan([alpha, beta, big], ['90100', '10000', '0']);
    expect(moves(p)).toEqual([`alpha→gamma:${units(alpha, '30000')}`, `alpha→beta:${units(alpha, '100')}`]);
    // With 30050 to give, 50 is left after gamma: beta waits rather than take alpha below its target.
    const q = plan([alpha, beta, big], ['80050', '10000', '0']);
    expect(moves(q)).toEqual([`alpha→gamma:${units(alpha, '30000')}`]);
    expect(said(q, 'below_min_transfer')).toHaveLength(1);
    expect(said(q, 'surplus_unused')).toEqual(['alpha: 50 USDC of 30050 USDC surplus left unused']);
  });

  it("uses the route's own minTransfer", () => {
    const beta = target('beta', { band: ROOMY });
    const p = plan([alpha, beta], ['90000', '10000'], { routes: [{ from: 'alpha', to: 'beta', minTransfer: '500' }] });
    expect(moves(p)).toEqual([`alpha→beta:${units(alpha, '500')}`]);
    expect(said(p, 'batched')).toEqual([
      'beta: needs 40 USDC, below minTransfer 500 USDC; planned 500 USDC from alpha so the flat fee is paid once (band max 20000)',
    ]);
    expect(p.transfers[0]!.reason).toMatch(/; route alpha → beta per policy\.routes\[0\]: min 500, max 50000 USDC$/);
  });

  it('rounds minTransfer up to a unit both chains carry (6 → 18 decimals)', () => {
    const a6 = target('alpha', { band: DONOR, decimals: 6 });
    const b18 = target('beta', { band: ROOMY, decimals: 18 });
    const p = plan([a6, b18], ['90000', '10000'], { minTransfer: '100.0000005' });
    expect(p.transfers.map((t) => t.amountIn)).toEqual([100_000_001n]); // 100.000001 at 6 decimals, never less than the minimum
  });

  it('measures need and room after in-flight credit: never past max counting what is on its way', () => {
    const roomy = target('beta', { band: { min: '10010', target: '10040', max: '10150' } });
    const tight = { ...roomy, max: units(roomy, '10050') };
    // beta reads 9900 with 100 on its way: effective 10000, needs 40.
    const inFlight = [inFlightOf(alpha, roomy, '100', { settled: true })];
    // Room to max 10150 is 150: the 100 is sent.
    expect(moves(plan([alpha, roomy], ['90000', '9900'], { inFlight }))).toEqual([`alpha→beta:${units(alpha, '100')}`]);
    // Room to max 10050 is 50 counting the credit (150 by the reading alone): it waits.
    const p = plan([alpha, tight], ['90000', '9900'], { inFlight });
    expect(p.transfers).toEqual([]);
    expect(said(p, 'below_min_transfer')[0]).toContain('waits until the deficit reaches minTransfer');
  });
});
