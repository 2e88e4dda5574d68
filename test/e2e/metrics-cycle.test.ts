/**
 * The operator metrics after a real cycle on the sandbox: balances and bands in whole units and USD, distance,
 * deficit and surplus, signer gas balances against chains.<name>.minGasBalance, Relay latencies, budget usage,
 * withdrawals by state, build info and the Relay endpoint sunset gauges, all accepted by `promtool check metrics`;
 * and a chain whose node is down counts RPC errors without the gas read breaking the cycle.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { buildInfo } from '../../packages/ballast/src/core/buildInfo.ts';
import { UsdPriceBook } from '../../packages/ballast/src/cycle/metricsPrices.ts';
import { ballastOnSandbox, tempDir } from './helpers/sandboxBallast.ts';

const tmp = tempDir('ballast-metrics-cycle-');
let sandbox: Sandbox | null = null;
afterEach(async () => {
  await sandbox?.stop();
  sandbox = null;
});
afterAll(() => tmp.cleanup());

/** The value of the one series of `name` whose labels are exactly `labels` (in exposition order), or undefined. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const head = labels === '' ? `${name} ` : `${name}{${labels}} `;
  const line = text.split('\n').find((l) => l.startsWith(head));
  return line === undefined ? undefined : Number(line.slice(head.length));
}

function promtool(text: string): string {
  const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (r.error) throw r.error;
  return `${r.stdout}${r.stderr}`;
}

describe('operator metrics after a cycle', () => {
  it('publishes balances, bands, gas, latencies and budgets, and promtool accepts them', async () => {
    sandbox = await startSandbox({});
    const { ballast, logLines } = ballastOnSandbox(sandbox, tmp.dir, {
      chains: {
        alpha: { chainId: 31001, rpcUrl: '${SANDBOX_ALPHA_RPC}', minGasBalance: '1000000' },
        beta: { chainId: 31002, rpcUrl: '${SANDBOX_BETA_RPC}', minGasBalance: '0.001' },
      },
      policy: { limits: { dailyNotional: { USDC: '100000' }, dailyFeesUsd: '1000', maxTransfersPerHour: 10 } },
    });
    try {
      const before = Date.now() / 1000;
      const report = await ballast.runCycle('once');
      expect(report.outcome).toBe('ok');
      expect(report.attempts.map((a) => a.outcome)).toEqual(['success']);
      const text = await ballast.metrics.registry.metrics();

      const { version, commit } = buildInfo();
      expect(sample(text, 'ballast_build_info', `version="${version}",commit="${commit}"`)).toBe(1);
      expect(sample(text, 'ballast_last_cycle_timestamp_seconds')).toBeGreaterThanOrEqual(Math.floor(before));

      // Read before the transfer: alpha 90000 USDC (band 40000/50000/60000), beta 10000 (20000/30000/45000).
      const beta = 'chain="beta",asset="USDC",wallet="treasury"';
      const alpha = 'chain="alpha",asset="USDC",wallet="treasury"';
      expect(sample(text, 'ballast_balance_units', beta)).toBe(10_000);
      expect(sample(text, 'ballast_balance_base_units', beta)).toBe(10_000_000_000);
      expect(sample(text, 'ballast_target_units', `${beta},bound="min"`)).toBe(20_000);
      expect(sample(text, 'ballast_target_units', `${beta},bound="max"`)).toBe(45_000);
      expect(sample(text, 'ballast_distance_from_target_units', beta)).toBe(-20_000);
      expect(sample(text, 'ballast_deficit_units', beta)).toBe(20_000);
      expect(sample(text, 'ballast_surplus_units', beta)).toBe(0);
      expect(sample(text, 'ballast_balance_below_min', beta)).toBe(1);
      expect(sample(text, 'ballast_distance_from_target_units', alpha)).toBe(40_000);
      expect(sample(text, 'ballast_surplus_units', alpha)).toBe(40_000);
      expect(sample(text, 'ballast_deficit_units', alpha)).toBe(0);
      expect(sample(text, 'ballast_balance_below_min', alpha)).toBe(0);

      // The quote priced USDC (details.currencyIn.amountUsd): about 1 USD per unit in the sandbox.
      const usd = sample(text, 'ballast_balance_usd', beta)!;
      expect(usd).toBeGreaterThan(9_000);
      expect(usd).toBeLessThan(11_000);
      // A fresh process (a one-shot run) recovers the price from the quotes table.
      const recovered = await new UsdPriceBook().priceOf('USDC', ballast.db);
      expect(recovered?.source).toBe('quote');

      // Signer gas: anvil funds the treasury with ETH; alpha's minimum is set far above it.
      const gasAlpha = sample(text, 'ballast_gas_balance_units', 'chain="alpha",wallet="treasury"')!;
      expect(gasAlpha).toBeGreaterThan(1);
      expect(sample(text, 'ballast_gas_balance_min_units', 'chain="alpha",wallet="treasury"')).toBe(1_000_000);
      expect(sample(text, 'ballast_gas_balance_low', 'chain="alpha",wallet="treasury"')).toBe(1);
      expect(sample(text, 'ballast_gas_balance_low', 'chain="beta",wallet="treasury"')).toBe(0);
      const warn = logLines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.chain === 'alpha' && l.minimum === '1000000');
      expect(warn?.level).toBe('warn');
      expect(warn?.wallet).toBe('treasury');
      expect(String(warn?.msg)).toContain('chains.alpha.minGasBalance');

      // Relay latencies.
      expect(sample(text, 'ballast_quote_duration_seconds_count')).toBe(1);
      expect(sample(text, 'ballast_relay_request_duration_seconds_count', 'endpoint="POST /quote/v2"')).toBe(1);
      expect(sample(text, 'ballast_relay_request_duration_seconds_count', 'endpoint="GET /chains"')).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'ballast_rpc_errors_total', 'chain="alpha"')).toBe(0);

      // Budgets after one signed transfer of 20000 USDC.
      expect(sample(text, 'ballast_budget_used_ratio', 'budget="transfers_per_hour",asset=""')).toBeCloseTo(0.1, 10);
      expect(sample(text, 'ballast_budget_used_ratio', 'budget="daily_notional",asset="USDC"')).toBeCloseTo(0.2, 10);
      const fees = sample(text, 'ballast_budget_used_ratio', 'budget="daily_fees_usd",asset=""')!;
      expect(fees).toBeGreaterThanOrEqual(0);
      expect(fees).toBeLessThan(0.1);

      // The sandbox sends Relay's deprecation headers on POST /quote/v2: Sunset Tue, 23 Feb 2027 00:00:00 GMT,
      // Deprecation @1795564800 (2026-11-25, so deprecated = 0 before that day); one warning names the successor.
      expect(sample(text, 'ballast_relay_endpoint_sunset_timestamp_seconds', 'endpoint="POST /quote/v2"')).toBe(1803340800);
      expect(sample(text, 'ballast_relay_endpoint_deprecated', 'endpoint="POST /quote/v2"')).toBe(Date.now() >= 1795564800_000 ? 1 : 0);
      expect(sample(text, 'ballast_relay_endpoint_sunset_timestamp_seconds', 'endpoint="GET /chains"')).toBeUndefined();
      const sunsetWarnings = logLines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.sunsetAt !== undefined);
      expect(sunsetWarnings).toHaveLength(1);
      expect(sunsetWarnings[0]).toMatchObject({
        level: 'warn',
        endpoint: 'POST /quote/v2',
        sunsetAt: '2027-02-23T00:00:00.000Z',
        successor: `${sandbox.apiUrl}/quote/v3`,
      });

      expect(sample(text, 'ballast_withdrawals', 'state="attesting"')).toBe(0);
      expect(sample(text, 'ballast_withdrawals', 'state="failed"')).toBe(0);

      expect(promtool(text)).toBe('');
    } finally {
      await ballast.close();
    }
  }, 120_000);

  it('counts RPC errors of a chain whose node is down and still finishes the cycle', async () => {
    sandbox = await startSandbox({});
    const { ballast, logLines } = ballastOnSandbox(sandbox, tmp.dir, {
      chains: { beta: { chainId: 31002, rpcUrl: 'http://127.0.0.1:1', minGasBalance: '0.001' } },
    });
    try {
      const report = await ballast.runCycle('once');
      expect(report.outcome).toBe('error'); // beta unreadable: its targets are not planned
      const text = await ballast.metrics.registry.metrics();
      // One failed balance read and one failed gas read on beta; alpha answered.
      expect(sample(text, 'ballast_rpc_errors_total', 'chain="beta"')).toBeGreaterThanOrEqual(2);
      expect(sample(text, 'ballast_rpc_errors_total', 'chain="alpha"')).toBe(0);
      expect(sample(text, 'ballast_gas_balance_units', 'chain="beta",wallet="treasury"')).toBeUndefined();
      expect(sample(text, 'ballast_gas_balance_units', 'chain="alpha",wallet="treasury"')).toBeGreaterThan(0);
      expect(logLines.some((l) => l.includes('signer gas balance read failed'))).toBe(true);
      expect(sample(text, 'ballast_last_cycle_timestamp_seconds')).toBeGreaterThan(0);
      expect(promtool(text)).toBe('');
    } finally {
      await ballast.close();
    }
  }, 120_000);
  it('reads Solana and Bitcoin signer gas (lamports; the whole BTC balance, reserve included)', async () => {
    sandbox = await startSandbox({ solana: true, bitcoin: true });
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, {
      chains: {
        solana: {
          chainId: 792703809,
          vm: 'svm',
          rpcUrl: '${SANDBOX_SOLANA_RPC}',
          wsUrl: '${SANDBOX_SOLANA_WS}',
          commitment: 'confirmed',
          minGasBalance: '0.000001',
        },
        bitcoin: { chainId: 8253038, vm: 'bvm', esploraUrl: '${SANDBOX_ESPLORA_URL}', network: 'regtest', minGasBalance: '1000' },
      },
    });
    try {
      await ballast.runCycle('plan'); // reads balances and gas, signs nothing
      const text = await ballast.metrics.registry.metrics();
      const sol = sample(text, 'ballast_gas_balance_units', 'chain="solana",wallet="treasury_sol"')!;
      expect(sol).toBeGreaterThan(0);
      expect(sample(text, 'ballast_gas_balance_low', 'chain="solana",wallet="treasury_sol"')).toBe(0);
      const btcGas = sample(text, 'ballast_gas_balance_units', 'chain="bitcoin",wallet="treasury_btc"')!;
      const btcSpendable = sample(text, 'ballast_balance_units', 'chain="bitcoin",asset="BTC",wallet="treasury_btc"')!;
      expect(btcGas).toBeCloseTo(btcSpendable + 0.0002, 8); // minerFeeReserveSats 20000 is not taken off the gas balance
      expect(sample(text, 'ballast_gas_balance_low', 'chain="bitcoin",wallet="treasury_btc"')).toBe(1);
      expect(sample(text, 'ballast_rpc_errors_total', 'chain="solana"')).toBe(0);
      expect(sample(text, 'ballast_rpc_errors_total', 'chain="bitcoin"')).toBe(0);
      expect(promtool(text)).toBe('');
    } finally {
      await ballast.close();
    }
  }, 180_000);
});
