import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { buildInfo } from '../../../packages/ballast/src/core/buildInfo.ts';
import { createMetrics } from '../../../packages/ballast/src/metrics/metrics.ts';
import { pinnedPrice, priceFromCurrencyIn, unitsToGauge, usdValueToGauge } from '../../../packages/ballast/src/metrics/units.ts';
import { bandPosition, setBalanceGauges, setBalanceUsdGauges } from '../../../packages/ballast/src/cycle/metricsBalances.ts';
import { usedRatio } from '../../../packages/ballast/src/cycle/metricsCycleEnd.ts';
import { signerPairs } from '../../../packages/ballast/src/cycle/gasBalances.ts';
import type { TargetBand } from '../../../packages/ballast/src/planner/types.ts';

const band: TargetBand = {
  asset: 'USDC',
  chain: 'base',
  chainId: 8453,
  currency: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  wallet: 'treasury',
  address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  decimals: 6,
  min: 40_000_000_000n,
  target: 50_000_000_000n,
  max: 60_000_000_000n,
};

describe('operator metrics', () => {
  it('sets ballast_build_info from buildInfo() and starts fee components at 0', async () => {
    const text = await createMetrics().registry.metrics();
    const { version, commit } = buildInfo();
    expect(text).toContain(`ballast_build_info{version="${version}",commit="${commit}"} 1`);
    for (const c of ['execution', 'swap', 'platform', 'app', 'gas'])
      expect(text).toContain(`ballast_fees_paid_usd_total{component="${c}"} 0`);
    expect(text).toContain('ballast_last_cycle_timestamp_seconds 0');
  });

  it('places a balance in its band', () => {
    expect(bandPosition(30_000_000_000n, band)).toEqual({
      distance: -20_000_000_000n,
      deficit: 20_000_000_000n,
      surplus: 0n,
      belowMin: true,
    });
    expect(bandPosition(45_000_000_000n, band)).toEqual({ distance: -5_000_000_000n, deficit: 0n, surplus: 0n, belowMin: false });
    expect(bandPosition(70_000_000_000n, band)).toEqual({
      distance: 20_000_000_000n,
      deficit: 0n,
      surplus: 20_000_000_000n,
      belowMin: false,
    });
    expect(bandPosition(60_000_000_000n, band).surplus).toBe(0n); // at max: in band
    expect(bandPosition(40_000_000_000n, band).belowMin).toBe(false); // at min: in band
  });

  it('converts base units and USD at the edge', () => {
    expect(unitsToGauge(1_500_000n, 6)).toBe(1.5);
    expect(unitsToGauge(-2_000_000_000_000_000_000n, 18)).toBe(-2);
    const price = priceFromCurrencyIn({ amount: '2000000', amountUsd: '1.998', currency: { decimals: 6 } })!;
    expect(price).toEqual({ usd: '1.998', amount: 2_000_000n, decimals: 6, source: 'quote' });
    expect(usdValueToGauge(10_000_000n, 6, price)).toBeCloseTo(9.99, 10);
    // A price taken on a chain with other decimals (18) values a 6-decimal balance correctly.
    expect(
      usdValueToGauge(1_000_000n, 6, priceFromCurrencyIn({ amount: '3000000000000000000', amountUsd: '3', currency: { decimals: 18 } })!),
    ).toBe(1);
    expect(usdValueToGauge(2_500_000n, 6, pinnedPrice('1'))).toBe(2.5);
    expect(priceFromCurrencyIn({ amount: '0', amountUsd: '1', currency: { decimals: 6 } })).toBeNull();
    expect(priceFromCurrencyIn({ amount: '1', currency: { decimals: 6 } })).toBeNull();
    expect(priceFromCurrencyIn({ amount: '1', amountUsd: '-1', currency: { decimals: 6 } })).toBeNull();
  });

  it('computes budget ratios, a zero limit reading exhausted', () => {
    expect(usedRatio(25n, 100n)).toBe(0.25);
    expect(usedRatio(150n, 100n)).toBe(1.5);
    expect(usedRatio(0n, 0n)).toBe(1);
  });

  it('lists each signing (chain, wallet) pair once', () => {
    expect(
      signerPairs({
        USDC: [
          { chain: 'base', wallet: 'treasury' },
          { chain: 'arb', wallet: 'treasury' },
        ],
        ETH: [
          { chain: 'base', wallet: 'treasury' },
          { chain: 'base', wallet: 'hot' },
        ],
      }),
    ).toEqual([
      { chain: 'base', wallet: 'treasury' },
      { chain: 'arb', wallet: 'treasury' },
      { chain: 'base', wallet: 'hot' },
    ]);
  });

  it('sets every balance gauge, leaves USD absent without a price, and passes promtool with every new metric filled', async () => {
    const m = createMetrics();
    const targets = [band, { ...band, asset: 'WETH', decimals: 18, min: 10n ** 18n, target: 2n * 10n ** 18n, max: 3n * 10n ** 18n }];
    setBalanceGauges(m, targets, [
      { chain: 'base', currency: band.currency, address: band.address, amount: 30_000_000_000n },
      { chain: 'base', currency: band.currency, address: band.address, amount: null, error: 'down' },
    ]);
    setBalanceUsdGauges(
      m,
      targets,
      [
        { chain: 'base', currency: band.currency, address: band.address, amount: 30_000_000_000n },
        { chain: 'base', currency: band.currency, address: band.address, amount: null },
      ],
      (asset) => (asset === 'USDC' ? pinnedPrice('1') : null),
    );
    m.gasBalanceUnits.set({ chain: 'base', wallet: 'treasury' }, 0.004);
    m.gasBalanceMinUnits.set({ chain: 'base', wallet: 'treasury' }, 0.01);
    m.gasBalanceLow.set({ chain: 'base', wallet: 'treasury' }, 1);
    m.quoteDurationSeconds.observe(0.3);
    m.relayRequestDurationSeconds.observe({ endpoint: 'POST /quote/v2' }, 0.3);
    m.rpcErrorsTotal.inc({ chain: 'base' });
    m.budgetUsedRatio.set({ budget: 'daily_notional', asset: 'USDC' }, 0.4);
    m.budgetUsedRatio.set({ budget: 'transfers_per_hour', asset: '' }, 0.1);
    m.withdrawalsByState.set({ state: 'processing' }, 1);
    m.feesPaidUsdTotal.inc({ component: 'gas' }, 0.12);
    m.transferFeesUsd.observe(1.4);
    m.transferSettleSeconds.observe(42);
    m.lastCycleTimestampSeconds.set(1_800_000_000);
    const text = await m.registry.metrics();
    const usdc = 'chain="base",asset="USDC",wallet="treasury"';
    for (const line of [
      `ballast_balance_units{${usdc}} 30000`,
      `ballast_balance_usd{${usdc}} 30000`,
      `ballast_target_units{${usdc},bound="target"} 50000`,
      `ballast_distance_from_target_units{${usdc}} -20000`,
      `ballast_deficit_units{${usdc}} 20000`,
      `ballast_surplus_units{${usdc}} 0`,
      `ballast_balance_below_min{${usdc}} 1`,
      'ballast_target_units{chain="base",asset="WETH",wallet="treasury",bound="max"} 3',
      'ballast_budget_used_ratio{budget="transfers_per_hour",asset=""} 0.1',
    ]) {
      expect(text).toContain(line);
    }
    expect(text).not.toContain('ballast_balance_units{chain="base",asset="WETH"'); // read failed: no value
    expect(text).not.toContain('ballast_balance_usd{chain="base",asset="WETH"'); // no price
    const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(`${r.stdout}${r.stderr}`).toBe('');
    expect(r.status).toBe(0);
  });
});
