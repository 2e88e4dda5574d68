/**
 * `ballast simulate --scenario FILE [--config FILE] [--seed N] [--json]`: runs a scenario (Ballast's format or
 * Hyperlane's rebalancer-sim format, docs/simulate.md) through the real planner, fee policy, verification and
 * cycle against in-memory chains and Relay service, in simulated time, and prints its KPIs: a table, or with
 * `--json` the object docs/simulate.md describes. The global `--config` replaces the holdings the scenario maps to.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { formatUnits } from 'viem';
import { parse as parseYaml } from 'yaml';
import { computeKpis, type SimKpis } from '../../sim/kpis.ts';
import { readScenarioSet } from '../../sim/readScenario.ts';
import { runScenarioSet } from '../../sim/runSet.ts';
import { CliError, EXIT_USAGE } from '../exitCodes.ts';
import { table, toJson } from '../format.ts';

/** Reads a scenario file (JSON, or YAML by extension). @throws CliError (usage) when unreadable or invalid */
function loadScenario(file: string) {
  let doc: unknown;
  try {
    const text = readFileSync(file, 'utf8');
    doc = /\.ya?ml$/i.test(file) ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw new CliError(`${file}: ${(error as Error).message}`, EXIT_USAGE, { cause: error });
  }
  try {
    return readScenarioSet(doc);
  } catch (error) {
    throw new CliError(`${file}: ${(error as Error).message.split('\n')[0]}`, EXIT_USAGE, { cause: error });
  }
}

/** The KPI tables (whole token units, latencies in ms): the run, each holding, and each asset of a multi-asset run. */
export function renderKpis(k: SimKpis, decimals: number): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  const units = (s: string) => formatUnits(BigInt(s), decimals);
  const summary = table(
    [
      'scenario',
      'payments',
      'completion',
      'p50 ms',
      'p95 ms',
      'p99 ms',
      'rebalances',
      'volume',
      'fees USD',
      'fees bps',
      'efficiency',
      'peak in flight',
    ],
    [
      [
        k.scenario,
        `${k.completedTransfers}/${k.totalTransfers}`,
        pct(k.completionRate),
        k.p50Latency,
        k.p95Latency,
        k.p99Latency,
        k.totalRebalances,
        units(k.rebalanceVolume),
        k.feesPaidUsd,
        k.feesBps,
        k.efficiency,
        units(k.peakCapitalInFlight),
      ],
    ],
  );
  const holdings = table(
    ['holding', 'initial', 'final', 'payments', 'completion', 'p95 ms', 'rebalances in/out', 'below min ms'],
    Object.entries(k.perChainMetrics).map(([chain, h]) => [
      chain,
      units(h.initialBalance),
      units(h.finalBalance),
      `${h.completedPayments}/${h.payments}`,
      pct(h.completionRate),
      h.p95Latency,
      `${h.rebalancesIn}/${h.rebalancesOut}`,
      h.timeBelowMinMs ?? '-',
    ]),
  );
  const assets = k.perAssetMetrics
    ? `${table(
        ['asset', 'payments', 'completion', 'rebalances', 'volume'],
        Object.entries(k.perAssetMetrics).map(([asset, a]) => [
          asset,
          `${a.completedPayments}/${a.payments}`,
          pct(a.completionRate),
          a.rebalances,
          units(a.rebalanceVolume),
        ]),
      )}\n`
    : '';
  return `${summary}\n${holdings}\n${assets}${k.cycles} cycles, ${(k.simulatedMs / 1000).toFixed(1)} s simulated`;
}

/** Registers the command. */
export function registerSimulate(program: Command, out: (s: string) => void): void {
  program
    .command('simulate')
    .description('replay payment traffic through the real planner and cycle in simulated time, and report KPIs')
    .requiredOption('--scenario <file>', "scenario file: Ballast's format (YAML or JSON) or Hyperlane's rebalancer-sim JSON")
    .option('--seed <n>', 'seed of keys, addresses and delivery jitter (default 1)', '1')
    .option('--json', 'machine-readable output (docs/simulate.md)')
    .action(async (flags: { scenario: string; seed: string; json?: boolean }, cmd: Command) => {
      const seed = Number(flags.seed);
      if (!Number.isSafeInteger(seed) || seed < 0) throw new CliError(`--seed ${flags.seed}: expected a non-negative integer`, EXIT_USAGE);
      const set = loadScenario(flags.scenario);
      const globals = cmd.optsWithGlobals<{ config?: string; logLevel?: string }>();
      if (set.multiAsset && globals.config) {
        throw new CliError(`${flags.scenario}: a multi-asset scenario runs with its own holdings; drop --config`, EXIT_USAGE);
      }
      const log = await runScenarioSet(set, {
        seed,
        ...(globals.config ? { configFile: globals.config } : {}),
        ...(globals.logLevel ? { logLevel: globals.logLevel } : {}),
      });
      const kpis = computeKpis(log);
      out(flags.json ? toJson(kpis) : renderKpis(kpis, log.token.decimals));
    });
}
