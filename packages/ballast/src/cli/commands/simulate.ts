/**
 * `ballast simulate --scenario FILE [--config FILE] [--seed N] [--json] [--out DIR] [--compare VARIANT...]`: runs a
 * scenario (Ballast's format or Hyperlane's rebalancer-sim format, docs/simulate.md) through the real planner, fee
 * policy, verification and cycle against in-memory chains and Relay service, in simulated time, and prints its KPIs:
 * a table, or with `--json` the object docs/simulate.md describes. The global `--config` replaces the holdings the
 * scenario maps to. `--compare` runs it once per variant and prints a scorecard (src/sim/compare.ts); `--out` also
 * writes the JSON and the pictures (src/sim/svg.ts) into a directory.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { formatUnits } from 'viem';
import { parse as parseYaml } from 'yaml';
import { compareFiles, compareReport, runFiles, runVariants, scorecard, variantsOf } from '../../sim/compare.ts';
import { computeKpis, type SimKpis } from '../../sim/kpis.ts';
import { readScenario } from '../../sim/readScenario.ts';
import { runScenario } from '../../sim/run.ts';
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
    return readScenario(doc);
  } catch (error) {
    throw new CliError(`${file}: ${(error as Error).message.split('\n')[0]}`, EXIT_USAGE, { cause: error });
  }
}

/** The KPI table (whole token units, latencies in ms). */
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
  return `${summary}\n${holdings}\n${k.cycles} cycles, ${(k.simulatedMs / 1000).toFixed(1)} s simulated`;
}

/** Writes `files` (name → content) into `dir`, created when missing. */
function writeOut(dir: string, files: Record<string, string>): void {
  mkdirSync(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content);
}

/** Registers the command. */
export function registerSimulate(program: Command, out: (s: string) => void): void {
  program
    .command('simulate')
    .description('replay payment traffic through the real planner and cycle in simulated time, and report KPIs')
    .requiredOption('--scenario <file>', "scenario file: Ballast's format (YAML or JSON) or Hyperlane's rebalancer-sim JSON")
    .option('--seed <n>', 'seed of keys, addresses and delivery jitter (default 1)', '1')
    .option('--json', 'machine-readable output (docs/simulate.md)')
    .option('--out <dir>', 'also write the JSON and the balance pictures (SVG) into this directory')
    .option('--compare <variant...>', "run once per variant ('scenario' or a Ballast config file) and print a scorecard")
    .action(async (flags: { scenario: string; seed: string; json?: boolean; out?: string; compare?: string[] }, cmd: Command) => {
      const seed = Number(flags.seed);
      if (!Number.isSafeInteger(seed) || seed < 0) throw new CliError(`--seed ${flags.seed}: expected a non-negative integer`, EXIT_USAGE);
      const globals = cmd.optsWithGlobals<{ config?: string; logLevel?: string }>();
      if (flags.compare && globals.config) {
        throw new CliError(
          `--compare names its configs itself: drop --config and add it as a variant (--compare scenario ${globals.config})`,
          EXIT_USAGE,
        );
      }
      const scenario = loadScenario(flags.scenario);
      if (flags.compare) {
        const runs = await runVariants(scenario, variantsOf(flags.compare), {
          seed,
          ...(globals.logLevel ? { logLevel: globals.logLevel } : {}),
        });
        const report = compareReport(scenario.name, seed, runs);
        const card = scorecard(report.variants, scenario.token.decimals);
        out(
          flags.json
            ? toJson(report)
            : `${scenario.name}, seed ${seed}\n${table(card.head, card.rows)}\n* best of a column where the variants differ`,
        );
        if (flags.out) writeOut(flags.out, compareFiles(report, runs, toJson));
        return;
      }
      const log = await runScenario(scenario, {
        seed,
        ...(globals.config ? { configFile: globals.config } : {}),
        ...(globals.logLevel ? { logLevel: globals.logLevel } : {}),
      });
      const kpis = computeKpis(log);
      out(flags.json ? toJson(kpis) : renderKpis(kpis, scenario.token.decimals));
      if (flags.out) writeOut(flags.out, runFiles(log, kpis, toJson));
    });
}
