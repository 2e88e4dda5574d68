/**
 * The solver's liquidity in the cycle (src/cycle/solverLiquidity.ts, src/cycle/solverLiquidityFit.ts): a transfer
 * delivering more than the solver holds on its destination is reduced to fit (when still at least its minimum) or
 * deferred, with a `solver_liquidity` decision; transfers to one currency share the balance; decimals scale
 * exactly; an unusable answer leaves the plan as it is with one warn line per chain; one read per destination chain,
 * kept for the cache's TTL. In-memory relay and logger only.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { applySolverLiquidity, createLiquidityCache } from '../../../packages/ballast/src/cycle/solverLiquidity.ts';
import {
  deliveredAmount,
  fitToSolverLiquidity,
  fitTransferToLiquidity,
  maxAmountInFor,
  minAmountInFromPlanInput,
  sameCurrency,
  type LiquidityAnswer,
} from '../../../packages/ballast/src/cycle/solverLiquidityFit.ts';
import type { Plan, PlanInput, PlannedTransfer, TargetBand } from '../../../packages/ballast/src/planner/types.ts';
import type { RelayClient } from '../../../packages/ballast/src/relay/client.ts';
import type { ChainLiquidity } from '../../../packages/protocol/src/relay/schemas.ts';
import { target, units } from '../planner/presets.ts';

const ALPHA = target('alpha');
const BETA = target('beta');
const GAMMA = target('gamma');
const BETA18 = target('beta', { decimals: 18 });

function transfer(from: TargetBand, to: TargetBand, whole: string, extra: Partial<PlannedTransfer> = {}): PlannedTransfer {
  return { asset: from.asset, from, to, amountIn: units(from, whole), reason: 'test', ...extra };
}

/** The solver's entry for `t`'s currency holding `whole` units. */
function held(t: TargetBand, whole: string, over: Partial<ChainLiquidity> = {}): ChainLiquidity {
  return { chainId: t.chainId, symbol: t.asset, address: t.currency, decimals: t.decimals, balance: units(t, whole), ...over };
}

const answers = (...pairs: [TargetBand, LiquidityAnswer][]) => new Map(pairs.map(([t, a]) => [t.chainId, a]));
const minOf = (whole: string) => (t: PlannedTransfer) => units(t.from, whole);

describe('solver liquidity arithmetic', () => {
  it('scales exactly between decimals, rounding down', () => {
    expect(deliveredAmount(20_000_000_000n, 6, 18)).toBe(20_000n * 10n ** 18n);
    expect(deliveredAmount(10n ** 18n + 999_999_999_999n, 18, 6)).toBe(1_000_000n);
    expect(maxAmountInFor(12_000_500_000_000_000_000_000n, 6, 18)).toBe(12_000_500_000n);
    expect(maxAmountInFor(12_000_000_001n, 18, 6)).toBe(12_000_000_001n * 10n ** 12n);
    expect(maxAmountInFor(999_999_999_999n, 6, 18)).toBe(0n);
    expect(maxAmountInFor(-5n, 6, 6)).toBe(0n);
  });

  it('fits, reduces to the balance, or defers below the minimum (a reduced amount is never 0)', () => {
    const base = { fromDecimals: 6, toDecimals: 6, minAmountIn: 1000n };
    expect(fitTransferToLiquidity({ ...base, amountIn: 5000n, held: 5000n })).toEqual({ kind: 'fits', delivered: 5000n });
    expect(fitTransferToLiquidity({ ...base, amountIn: 5000n, held: 1200n })).toEqual({
      kind: 'reduced',
      amountIn: 1200n,
      delivered: 1200n,
    });
    expect(fitTransferToLiquidity({ ...base, amountIn: 5000n, held: 999n })).toEqual({ kind: 'deferred', maxAmountIn: 999n });
    expect(fitTransferToLiquidity({ ...base, minAmountIn: 0n, amountIn: 5000n, held: 0n })).toEqual({ kind: 'deferred', maxAmountIn: 0n });
  });

  it('compares 0x currencies case-insensitively and other identifiers exactly', () => {
    expect(sameCurrency('0xAbCd', '0xabcd')).toBe(true);
    expect(sameCurrency('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', 'epjfwdd5aufqssqem2qn1xzybapc8g4wggkzwytdt1v')).toBe(false);
    expect(sameCurrency('bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8', 'bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8')).toBe(true);
  });
});

describe('fitToSolverLiquidity', () => {
  it('reduces a transfer to what the solver holds, says so on the destination, and gives the rest back to the donor', () => {
    const t = transfer(ALPHA, BETA, '20000');
    const plan: Plan = { transfers: [t], decisions: [], spare: new Map([['alpha|x', 1n]]) };
    const upper = `0x${BETA.currency.slice(2).toUpperCase()}`;
    const fit = fitToSolverLiquidity(plan, answers([BETA, { entries: [held(BETA, '12000', { address: upper })] }]), minOf('1000'));
    expect(fit.plan.transfers).toEqual([{ ...t, amountIn: units(ALPHA, '12000') }]);
    expect(fit.plan.decisions).toEqual([
      {
        asset: 'USDC',
        chain: 'beta',
        kind: 'solver_liquidity',
        detail: 'beta: the solver holds 12000 USDC on beta; transfer alpha → beta reduced from 20000 to 12000 USDC',
      },
    ]);
    expect(fit.warnings).toEqual([]);
    expect([...fit.plan.spare!.values()].reduce((a, b) => a + b, 0n)).toBe(1n + units(ALPHA, '8000'));
    expect(plan.transfers[0]!.amountIn).toBe(units(ALPHA, '20000')); // the input plan is not modified
  });

  it('defers a transfer when what fits is below its minimum', () => {
    const t = transfer(ALPHA, BETA, '20000');
    const fit = fitToSolverLiquidity({ transfers: [t], decisions: [] }, answers([BETA, { entries: [held(BETA, '500')] }]), minOf('1000'));
    expect(fit.plan.transfers).toEqual([]);
    expect(fit.plan.decisions.map((d) => [d.kind, d.chain, d.detail])).toEqual([
      [
        'solver_liquidity',
        'beta',
        'beta: the solver holds 500 USDC on beta; transfer alpha → beta of 20000 USDC deferred: at most 500 would be filled, below its minimum 1000 USDC',
      ],
    ]);
  });

  it('shares one balance between two transfers to the same currency: the second sees what the first left', () => {
    const first = transfer(ALPHA, BETA, '8000');
    const second = transfer(GAMMA, BETA, '8000');
    const third = transfer(ALPHA, BETA, '3000');
    const fit = fitToSolverLiquidity(
      { transfers: [first, second, third], decisions: [] },
      answers([BETA, { entries: [held(BETA, '12000')] }]),
      minOf('1000'),
    );
    expect(fit.plan.transfers.map((t) => [t.from.chain, t.amountIn])).toEqual([
      ['alpha', units(ALPHA, '8000')],
      ['gamma', units(GAMMA, '4000')],
    ]);
    expect(fit.plan.decisions.map((d) => d.detail)).toEqual([
      "beta: the solver holds 12000 USDC on beta, 4000 USDC of it left after this cycle's earlier transfers; transfer gamma → beta reduced from 8000 to 4000 USDC",
      "beta: the solver holds 12000 USDC on beta, 0 USDC of it left after this cycle's earlier transfers; transfer alpha → beta of 3000 USDC deferred: at most 0 would be filled, below its minimum 1000 USDC",
    ]);
  });

  it('scales 6 → 18 decimals exactly and rescales the alternatives to the new amount', () => {
    const alt = target('gamma', { decimals: 8 });
    const t = transfer(ALPHA, BETA18, '20000', { alternatives: [{ from: alt, amountIn: units(alt, '20000'), why: 'spare' }] });
    const fit = fitToSolverLiquidity(
      { transfers: [t], decisions: [] },
      answers([BETA18, { entries: [held(BETA18, '12000.5000005')] }]),
      minOf('1000'),
    );
    expect(fit.plan.transfers[0]!.amountIn).toBe(12_000_500_000n); // 12000.500000 at 6 decimals: rounded down
    expect(fit.plan.transfers[0]!.alternatives).toEqual([{ from: alt, amountIn: 1_200_050_000_000n, why: 'spare' }]);
    expect(fit.plan.decisions[0]!.detail).toBe(
      'beta: the solver holds 12000.5000005 USDC on beta; transfer alpha → beta reduced from 20000 to 12000.5 USDC',
    );
  });

  it('leaves transfers that fit, gas top-ups and chains without an answer as planned, without decisions', () => {
    const fits = transfer(ALPHA, BETA, '100');
    const topUp = transfer(ALPHA, GAMMA, '50', { gasTopUp: { minOut: 1n } });
    const plan: Plan = { transfers: [fits, topUp], decisions: [] };
    const fit = fitToSolverLiquidity(plan, answers([BETA, { entries: [held(BETA, '100')] }], [GAMMA, { entries: [] }]), minOf('1'));
    expect(fit.plan.transfers).toEqual([fits, topUp]);
    expect(fit.plan.decisions).toEqual([]);
    expect(fit.warnings).toEqual([]);
  });

  it('an unusable answer (error, missing currency, other decimals) changes nothing and warns once per chain', () => {
    const plan: Plan = {
      transfers: [
        transfer(ALPHA, BETA, '20000'),
        transfer(GAMMA, BETA, '20000'),
        transfer(BETA, ALPHA, '20000'),
        transfer(BETA, GAMMA, '9'),
      ],
      decisions: [{ asset: 'USDC', chain: 'alpha', kind: 'deficit', detail: 'x' }],
    };
    const fit = fitToSolverLiquidity(
      plan,
      answers(
        [BETA, { error: 'GET /chains/liquidity failed: 503' }],
        [ALPHA, { entries: [held(ALPHA, '1', { address: `0x${'d'.repeat(40)}` })] }],
        [GAMMA, { entries: [held(GAMMA, '1', { decimals: 18 })] }],
      ),
      minOf('1'),
    );
    expect(fit.plan.transfers).toEqual(plan.transfers);
    expect(fit.plan.decisions).toEqual(plan.decisions);
    expect(fit.warnings).toEqual([
      { chain: 'beta', chainId: BETA.chainId, reason: 'GET /chains/liquidity failed: 503' },
      { chain: 'alpha', chainId: ALPHA.chainId, reason: `no entry for USDC (${ALPHA.currency})` },
      { chain: 'gamma', chainId: GAMMA.chainId, reason: `USDC (${GAMMA.currency}) has 18 decimals there, the target 6` },
    ]);
  });
});

describe('minAmountInFromPlanInput', () => {
  it("reads the asset's minTransfer, or the matching route's, at the asset's scale, in origin units rounded up", () => {
    const input = {
      targets: [ALPHA, BETA18],
      balances: [],
      inFlight: [],
      minTransfer: '1000',
      maxTransfer: '50000',
      routes: [{ from: 'beta', to: 'alpha', minTransfer: '0.0000001' }],
    } as PlanInput;
    const min = minAmountInFromPlanInput(input);
    expect(min(transfer(ALPHA, BETA18, '1'))).toBe(1_000_000_000n);
    expect(min(transfer(BETA18, ALPHA, '1'))).toBe(100_000_000_000n);
  });
});

describe('applySolverLiquidity', () => {
  function rig(read: (chainId: number) => Promise<ChainLiquidity[]>) {
    const calls: number[] = [];
    const lines: { level: number; msg: string; chain?: string; reason?: string }[] = [];
    let nowMs = 1_000_000;
    const relay = {
      getChainLiquidity: (chainId: number) => {
        calls.push(chainId);
        return read(chainId);
      },
    } as unknown as RelayClient; // only getChainLiquidity is called
    const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s) as (typeof lines)[number]) });
    const ctx = { relay, logger, now: () => nowMs };
    return { ctx, calls, lines, advance: (ms: number) => (nowMs += ms) };
  }

  it('reads each destination chain once, keeps the answer for the TTL, and skips gas top-ups', async () => {
    const r = rig(async (chainId) => (chainId === BETA.chainId ? [held(BETA, '12000')] : [held(GAMMA, '5')]));
    const cache = createLiquidityCache({ ttlMs: 30_000 });
    const plan: Plan = {
      transfers: [transfer(ALPHA, BETA, '20000'), transfer(GAMMA, BETA, '1000'), transfer(ALPHA, GAMMA, '1', { gasTopUp: { minOut: 1n } })],
      decisions: [],
    };
    const out = await applySolverLiquidity(r.ctx, plan, cache, minOf('1000'));
    expect(r.calls).toEqual([BETA.chainId]);
    expect(out.transfers.map((t) => t.amountIn)).toEqual([units(ALPHA, '12000'), plan.transfers[2]!.amountIn]);
    expect(out.decisions.map((d) => d.kind)).toEqual(['solver_liquidity', 'solver_liquidity']);
    r.advance(29_999);
    await applySolverLiquidity(r.ctx, plan, cache, minOf('1000'));
    expect(r.calls).toEqual([BETA.chainId]);
    r.advance(1);
    await applySolverLiquidity(r.ctx, plan, cache, minOf('1000'));
    expect(r.calls).toEqual([BETA.chainId, BETA.chainId]);
    const gasOnly: Plan = { transfers: [plan.transfers[2]!], decisions: [] };
    expect(await applySolverLiquidity(r.ctx, gasOnly, cache, minOf('1'))).toBe(gasOnly);
  });

  it('a failed read leaves the plan unchanged, logs one warn line for the chain, and is not kept', async () => {
    const r = rig(async () => {
      throw new Error('Relay GET /chains/liquidity response failed validation: liquidity.0.balance: expected an unsigned integer');
    });
    const cache = createLiquidityCache();
    const plan: Plan = { transfers: [transfer(ALPHA, BETA, '20000'), transfer(GAMMA, BETA, '20000')], decisions: [] };
    const out = await applySolverLiquidity(r.ctx, plan, cache, minOf('1000'));
    expect(out.transfers).toEqual(plan.transfers);
    expect(out.decisions).toEqual([]);
    const warns = r.lines.filter((l) => l.level === 40);
    expect(warns).toHaveLength(1);
    expect(warns[0]).toMatchObject({ chain: 'beta', reason: expect.stringContaining('liquidity.0.balance') });
    await applySolverLiquidity(r.ctx, plan, cache, minOf('1000'));
    expect(r.calls).toEqual([BETA.chainId, BETA.chainId]);
  });

  it('refuses a negative TTL', () => {
    expect(() => createLiquidityCache({ ttlMs: -1 })).toThrow(RangeError);
  });
});
