import { describe, expect, it } from 'vitest';
import { planRebalance } from '../../../packages/ballast/src/planner/planRebalance.ts';
import { PlanInputError } from '../../../packages/ballast/src/planner/errors.ts';
import type { BalanceReading, InFlightTransfer, Plan, PlanDecisionKind, TargetBand } from '../../../packages/ballast/src/planner/types.ts';
import { BAL, inFlight, reading, target, units, unreadable } from './presets.ts';

const alpha = target('alpha');
const beta = target('beta');
const gamma = target('gamma');

function plan(
  targets: TargetBand[],
  balances: BalanceReading[],
  opts: { inFlight?: InFlightTransfer[]; minTransfer?: string; maxTransfer?: string } = {},
): Plan {
  return planRebalance({
    targets,
    balances,
    inFlight: opts.inFlight ?? [],
    minTransfer: opts.minTransfer ?? '100',
    maxTransfer: opts.maxTransfer ?? '1000000',
  });
}

/** Transfers as "from→to:amountIn" for compact exact assertions. */
const moves = (p: Plan): string[] => p.transfers.map((t) => `${t.from.chain}→${t.to.chain}:${t.amountIn}`);
const kinds = (p: Plan, kind: PlanDecisionKind): string[] => p.decisions.filter((d) => d.kind === kind).map((d) => d.chain ?? '');

describe('planRebalance', () => {
  it('closes a deficit from a surplus, bringing both to target', () => {
    const p = plan([alpha, beta], [reading(alpha, BAL.ABOVE_MAX), reading(beta, BAL.BELOW_MIN)]);
    expect(moves(p)).toEqual([`alpha→beta:${units(alpha, '40000')}`]);
    expect(p.transfers[0]!.reason).toBe('beta below min: 10000 < 20000 USDC; alpha above max: 90000 > 80000 USDC');
    expect(kinds(p, 'deficit')).toEqual(['beta']);
    expect(kinds(p, 'surplus')).toEqual(['alpha']);
    expect(kinds(p, 'deficit_unmet')).toEqual([]);
  });

  it('splits one deficit across two donors, largest surplus first', () => {
    // beta needs 50000; alpha can give 40000, gamma 35000.
    const p = plan([alpha, beta, gamma], [reading(alpha, BAL.ABOVE_MAX), reading(beta, BAL.EMPTY), reading(gamma, '85000')]);
    expect(moves(p)).toEqual([`alpha→beta:${units(alpha, '40000')}`, `gamma→beta:${units(gamma, '10000')}`]);
    expect(kinds(p, 'surplus_unused')).toEqual(['gamma']);
  });

  it('serves two deficits, largest first, from one donor', () => {
    const p = plan([alpha, beta, gamma], [reading(alpha, BAL.FAR_ABOVE_MAX), reading(beta, BAL.BELOW_MIN), reading(gamma, BAL.EMPTY)]);
    expect(moves(p)).toEqual([`alpha→gamma:${units(alpha, '50000')}`, `alpha→beta:${units(alpha, '40000')}`]);
    expect(p.decisions.find((d) => d.kind === 'surplus_unused')?.detail).toContain('10000 USDC of 100000 USDC');
  });

  it('plans nothing when every target is in its band', () => {
    const p = plan([alpha, beta, gamma], [reading(alpha, BAL.IN_BAND_LOW), reading(beta, BAL.AT_TARGET), reading(gamma, BAL.IN_BAND_HIGH)]);
    expect(p.transfers).toEqual([]);
    expect(kinds(p, 'in_band')).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('breaks ties between equal donors by chain name', () => {
    const p = plan([gamma, beta, alpha], [reading(gamma, BAL.ABOVE_MAX), reading(alpha, BAL.ABOVE_MAX), reading(beta, '15000')]);
    expect(moves(p)).toEqual([`alpha→beta:${units(alpha, '35000')}`]);
  });

  describe('unreadable chains (fail closed)', () => {
    it('plans nothing touching an unreadable chain but still plans the others', () => {
      const eth = target('alpha', { asset: 'ETH', decimals: 18, currency: '0x0000000000000000000000000000000000000000' });
      const ethBeta = target('beta', { asset: 'ETH', decimals: 18, currency: '0x0000000000000000000000000000000000000000' });
      const p = plan(
        [alpha, beta, gamma, eth, ethBeta],
        [
          unreadable(alpha, 'rpc timeout'),
          reading(beta, BAL.EMPTY),
          reading(gamma, BAL.ABOVE_MAX),
          // ETH on alpha reads fine, yet the chain failed for USDC, so alpha is off limits for ETH too.
          reading(eth, BAL.FAR_ABOVE_MAX),
          reading(ethBeta, BAL.BELOW_MIN),
        ],
      );
      expect(moves(p)).toEqual([`gamma→beta:${units(gamma, '40000')}`]);
      expect(p.transfers.every((t) => t.from.chain !== 'alpha' && t.to.chain !== 'alpha')).toBe(true);
      const down = p.decisions.filter((d) => d.kind === 'chain_unreadable');
      expect(down.map((d) => `${d.asset}:${d.chain}`)).toEqual(['ETH:alpha', 'USDC:alpha']);
      expect(down[1]!.detail).toContain('rpc timeout');
      expect(kinds(p, 'deficit_unmet')).toEqual(['beta', 'beta']);
    });

    it('treats a target with no reading at all as unreadable', () => {
      const p = plan([alpha, beta], [reading(beta, BAL.EMPTY)]);
      expect(p.transfers).toEqual([]);
      expect(kinds(p, 'chain_unreadable')).toEqual(['alpha']);
    });
  });

  describe('in-flight transfers', () => {
    it('slow fill: a transfer already on its way to the deficit chain prevents a repeat', () => {
      // Cycle 1 sent 40000 alpha→beta; the deposit is settled (alpha reads 50000) but the fill is slow,
      // so beta still reads 10000. Without the credit the planner would send again.
      const p = plan([alpha, beta, gamma], [reading(alpha, BAL.AT_TARGET), reading(beta, BAL.BELOW_MIN), reading(gamma, BAL.ABOVE_MAX)], {
        inFlight: [inFlight(alpha, beta, '40000', { settled: true, outWhole: '39990' })],
      });
      expect(p.transfers).toEqual([]);
      expect(kinds(p, 'in_flight_credited')).toEqual(['beta']);
      expect(p.decisions.find((d) => d.kind === 'in_flight_credited')?.detail).toContain('effective 49990');
      expect(kinds(p, 'surplus_unused')).toEqual(['gamma']);
    });

    it('without the in-flight record the same balances would plan a transfer (control)', () => {
      const p = plan([alpha, beta, gamma], [reading(alpha, BAL.AT_TARGET), reading(beta, BAL.BELOW_MIN), reading(gamma, BAL.ABOVE_MAX)]);
      expect(moves(p)).toEqual([`gamma→beta:${units(gamma, '40000')}`]);
    });

    it('debits the origin while its deposit is not settled, and not after', () => {
      const balances = [reading(alpha, BAL.ABOVE_MAX), reading(beta, BAL.BELOW_MIN), reading(gamma, BAL.EMPTY)];
      const unsettled = plan([alpha, beta, gamma], balances, {
        inFlight: [inFlight(alpha, beta, '40000', { settled: false })],
      });
      // alpha's 90000 still includes the 40000 leaving: effective 50000, no surplus for gamma.
      expect(unsettled.transfers).toEqual([]);
      expect(kinds(unsettled, 'deficit_unmet')).toEqual(['gamma']);

      const settled = plan([alpha, beta, gamma], balances, {
        inFlight: [inFlight(alpha, beta, '40000', { settled: true })],
      });
      // Settled: the reading is authoritative, alpha really holds 90000 → 40000 surplus goes to gamma.
      expect(moves(settled)).toEqual([`alpha→gamma:${units(alpha, '40000')}`]);
    });
  });

  describe('in-flight transfers cancel needs, never create them', () => {
    it('a transfer that already landed at both ends but is still counted plans nothing back the other way', () => {
      // 40000 moved alpha→beta: alpha reads 50000 (deposit mined), beta 49990 (fill landed), but the status is
      // not known yet (lookups failed), so the transfer is still counted as unsettled and uncredited-by-reading.
      const p = plan([alpha, beta], [reading(alpha, BAL.AT_TARGET), reading(beta, '49990')], {
        inFlight: [inFlight(alpha, beta, '40000', { settled: false, outWhole: '39990' })],
      });
      // effective alpha 10000 (< min) and beta 89980 (> max): counted twice, yet no reverse transfer.
      expect(p.transfers).toEqual([]);
      expect(kinds(p, 'deficit')).toEqual([]);
      expect(kinds(p, 'surplus')).toEqual([]);
      expect(kinds(p, 'in_band').sort()).toEqual(['alpha', 'beta']);
    });

    it('a real need still plans when the in-flight view agrees with the reading', () => {
      const p = plan([alpha, beta, gamma], [reading(alpha, BAL.FAR_ABOVE_MAX), reading(beta, BAL.BELOW_MIN), reading(gamma, BAL.EMPTY)], {
        inFlight: [inFlight(alpha, beta, '40000', { settled: false, outWhole: '39990' })],
      });
      // alpha: read 150000, effective 110000 → gives 60000; gamma: 0 → needs 50000; beta covered by the credit.
      expect(moves(p)).toEqual([`alpha→gamma:${units(alpha, '50000')}`]);
    });
  });

  describe('transfer bounds', () => {
    it('skips a deficit smaller than minTransfer', () => {
      const narrow = { min: '49000', target: '50000', max: '51000' };
      const a = target('alpha', { band: narrow });
      const b = target('beta', { band: narrow });
      const p = plan([a, b], [reading(a, '53000'), reading(b, '48000')], { minTransfer: '5000' });
      expect(p.transfers).toEqual([]);
      expect(kinds(p, 'below_min_transfer')).toEqual(['beta']);
      expect(kinds(p, 'deficit_unmet')).toEqual([]);
      // The same plan with a smaller minimum moves the 2000.
      expect(moves(plan([a, b], [reading(a, '53000'), reading(b, '48000')], { minTransfer: '1000' }))).toEqual([
        `alpha→beta:${units(a, '2000')}`,
      ]);
    });

    it('skips a donor whose surplus is below minTransfer and takes the next', () => {
      const narrow = { min: '49000', target: '50000', max: '51000' };
      const a = target('alpha', { band: narrow });
      const b = target('beta', { band: narrow });
      const g = target('gamma', { band: narrow });
      // beta needs 10000; alpha offers 3000 (too small), gamma 2000 (too small).
      const p = plan([a, b, g], [reading(a, '53000'), reading(b, '40000'), reading(g, '52000')], { minTransfer: '5000' });
      expect(p.transfers).toEqual([]);
      expect(kinds(p, 'below_min_transfer')).toEqual(['alpha', 'gamma']);
      expect(kinds(p, 'deficit_unmet')).toEqual(['beta']);
    });

    it('caps each transfer at maxTransfer, one transfer per pair', () => {
      const p = plan(
        [alpha, beta, gamma],
        [reading(alpha, BAL.FAR_ABOVE_MAX), reading(beta, BAL.EMPTY), reading(gamma, BAL.FAR_ABOVE_MAX)],
        {
          maxTransfer: '20000',
        },
      );
      expect(moves(p)).toEqual([`alpha→beta:${units(alpha, '20000')}`, `gamma→beta:${units(gamma, '20000')}`]);
      expect(kinds(p, 'capped_max_transfer')).toEqual(['beta', 'beta']);
      expect(p.decisions.find((d) => d.kind === 'deficit_unmet')?.detail).toContain('10000 USDC of 50000 USDC');
    });
  });

  describe('mixed decimals (6 and 18)', () => {
    const a6 = target('alpha', { decimals: 6 });
    const b18 = target('beta', { decimals: 18 });

    it('6 → 18: exact origin base units', () => {
      const p = plan([a6, b18], [reading(a6, '90000.5'), reading(b18, BAL.EMPTY)]);
      expect(p.transfers.map((t) => t.amountIn)).toEqual([40_000_500_000n]);
    });

    it('18 → 6: rounds down to what 6 decimals can carry, never more than the surplus', () => {
      const p = plan([a6, b18], [reading(a6, BAL.EMPTY), reading(b18, '90000.123456789123456789')]);
      expect(p.transfers).toHaveLength(1);
      expect(p.transfers[0]!.from.chain).toBe('beta');
      expect(p.transfers[0]!.amountIn).toBe(40_000_123_456_000_000_000_000n);
    });

    it('18 → 6 limited by the deficit: exact', () => {
      const p = plan([a6, b18], [reading(a6, '10000.25'), reading(b18, BAL.FAR_ABOVE_MAX)]);
      expect(p.transfers.map((t) => t.amountIn)).toEqual([39_999_750_000_000_000_000_000n]);
    });

    it('converts minTransfer at the common (largest) scale', () => {
      const p = plan([a6, b18], [reading(a6, '90000'), reading(b18, BAL.BELOW_MIN)], { minTransfer: '40000.000000000000000001' });
      expect(p.transfers).toEqual([]);
      expect(kinds(p, 'below_min_transfer')).toEqual(['beta']);
    });
  });

  describe('input validation', () => {
    it('rejects a band with min above target', () => {
      const bad = { ...alpha, min: alpha.target + 1n };
      expect(() => plan([bad, beta], [])).toThrow(PlanInputError);
      try {
        plan([bad, beta], []);
      } catch (e) {
        expect((e as PlanInputError).code).toBe('PLAN_INPUT_INVALID');
        expect((e as PlanInputError).field).toBe('targets[0]');
      }
    });

    it('rejects two targets at the same holding, so a transfer can never go to itself', () => {
      const twin = { ...alpha, asset: 'USDC2' };
      expect(() => plan([alpha, twin], [reading(alpha, BAL.ABOVE_MAX)])).toThrow(/same chain, currency and address/);
    });

    it('rejects maxTransfer below minTransfer and malformed amounts', () => {
      expect(() => plan([alpha], [], { minTransfer: '10', maxTransfer: '5' })).toThrow(/maxTransfer/);
      expect(() => plan([alpha], [], { minTransfer: '1e3' })).toThrow(/minTransfer/);
      expect(() => plan([alpha], [], { maxTransfer: '0' })).toThrow(/maxTransfer: is zero/);
    });
  });
});
