/**
 * `ballast simulate --scenario FILE [--config FILE] [--seed N] [--json] [--out DIR] [--compare VARIANT...]
 * [--refill-to POINT]`: runs a
 * scenario (Ballast's format or Hyperlane's rebalancer-sim format, docs/simulate.md) through the real planner, fee
 * policy, verification and cycle against in-memory chains and Relay service, in simulated time, and prints its KPIs:
 * a table, or with `--json` the object docs/simulate.md describes. The global `--config` (an operator's own config,
 * adopted for the simulation: src/sim/adoptConfig.ts) replaces the holdings the scenario maps to.
 * `ballast --config FILE simulate --traffic CSV [--asset SYMBOL] [--initial chain=amount,…]` replays past payments
 * against that config (docs/simulate.md "Replaying your own traffic"). `--compare` runs it once per variant and
 * prints a scorecard (src/sim/compare.ts); `--published` sets it beside Hyperlane's published strategies, Ballast run
 * from each strategy's own start and ranked by Hyperlane's rule (src/sim/published.ts); `--out` also writes the JSON
 * and the pictures (src/sim/svg.ts); `--refill-to` runs every one of these with that refill point (`policy.refillTo`).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { formatUnits } from 'viem';
import { parse as parseYaml } from 'yaml';
import { compareFiles, compareReport, runFiles, runVariants, safeFileName, scorecard, variantsOf } from '../../sim/compare.ts';
import { unmetExpectations } from '../../sim/expectations.ts';
import { computeKpis, type SimKpis } from '../../sim/kpis.ts';
import { pickAsset, readConfigDocument } from '../../sim/adoptConfig.ts';
import { CsvTrafficError, readCsvTraffic } from '../../sim/csvTraffic.ts';
import { comparePublished, publishedReport, publishedTable, readPublishedResults, startsOf } from '../../sim/published.ts';
import { readScenarioSet, type ScenarioSet } from '../../sim/readScenario.ts';
import { REFILL_POINT_RE } from '../../sim/scenario.ts';
import { CSV_DEFAULT_DECIMALS, csvScenario, inlineCsvTraffic, parseInitial, withAsset } from '../../sim/replayScenario.ts';
import { runScenarioSet } from '../../sim/runSet.ts';
import { CliError, EXIT_ERROR, EXIT_USAGE } from '../exitCodes.ts';
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
    doc = inlineCsvTraffic(doc, file);
  } catch (error) {
    if (!(error instanceof CsvTrafficError)) throw error;
    throw new CliError(error.message, EXIT_USAGE, { cause: error });
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

/** Flags of the command. */
interface SimulateFlags {
  scenario?: string;
  traffic?: string;
  asset?: string;
  initial?: string;
  seed: string;
  json?: boolean;
  out?: string;
  compare?: string[];
  published?: string;
  refillTo?: string;
}

/**
 * The scenario to run: `--scenario` (aligned with the `--config` asset when a config is given) or `--traffic`
 * replayed against the `--config` asset.
 *
 * @throws CliError (usage) for conflicting or missing flags, an invalid scenario, CSV or `--initial`; ConfigError
 *   when the config cannot be adopted
 */
function scenarioOf(flags: SimulateFlags, configFile: string | undefined): ScenarioSet {
  const usage = (message: string): never => {
    throw new CliError(message, EXIT_USAGE);
  };
  if (flags.scenario && flags.traffic) usage('--scenario and --traffic exclude each other; give one');
  if (!flags.scenario && !flags.traffic) usage('give --scenario FILE, or --traffic FILE.csv with --config ballast.yaml');
  if (flags.traffic && !configFile)
    usage('--traffic replays against a config; pass it: ballast --config ballast.yaml simulate --traffic FILE.csv');
  if (flags.asset && !configFile) usage('--asset picks an asset of --config; pass the config too');
  if (flags.initial && !flags.traffic) usage('--initial applies to --traffic; a scenario sets its own initial balances');
  const doc = configFile ? readConfigDocument(configFile) : undefined;
  if (!flags.traffic) {
    const set = loadScenario(flags.scenario!); // one of the two is given
    if (!configFile || !doc) return set;
    const [s] = set.scenarios;
    if (set.multiAsset || s === undefined) usage(`${flags.scenario}: a multi-asset scenario runs with its own holdings; drop --config`);
    return { ...set, scenarios: [withAsset(s!, pickAsset(configFile, doc, flags.asset, s!.token.symbol))] };
  }
  const asset = pickAsset(configFile!, doc!, flags.asset); // --traffic requires --config
  const decimals = asset.decimals ?? CSV_DEFAULT_DECIMALS;
  try {
    const rows = readCsvTraffic(flags.traffic, decimals);
    const name = path.basename(flags.traffic).replace(/\.[^.]*$/, '');
    const s = csvScenario(name, flags.traffic, asset, decimals, rows, flags.initial ? parseInitial(flags.initial) : {});
    return { name: s.name, multiAsset: false, scenarios: [s] };
  } catch (error) {
    throw new CliError((error as Error).message, EXIT_USAGE, { cause: error });
  }
}

/**
 * `--published FILE`: the scenario beside the strategies of a Hyperlane `-comparison.json`, Ballast run from each
 * strategy's own start; the table (or `--json` the report) and, with `--out`, `<scenario>-published.json`.
 *
 * @throws CliError (usage) for an unreadable or malformed file, or one whose strategies start on other chains
 */
async function runPublished(
  set: ScenarioSet,
  file: string,
  flags: SimulateFlags,
  options: { seed: number; configFile?: string; logLevel?: string; refillTo?: string },
  out: (s: string) => void,
): Promise<void> {
  const [scenario] = set.scenarios;
  if (set.multiAsset || scenario === undefined) {
    throw new CliError(`${set.name}: --published compares single-asset scenarios`, EXIT_USAGE);
  }
  let runs;
  try {
    runs = readPublishedResults(JSON.parse(readFileSync(file, 'utf8'))).runs;
    startsOf(scenario, runs); // every strategy starts on the scenario's chains
  } catch (error) {
    throw new CliError(`${file}: ${(error as Error).message.split('\n')[0]}`, EXIT_USAGE, { cause: error });
  }
  const rows = await comparePublished(scenario, runs, options);
  const report = publishedReport(scenario, options.seed, rows);
  if (flags.json) out(toJson(report));
  else {
    const t = publishedTable(scenario, rows);
    const n = (v: string) => rows.filter((r) => r.verdict === v).length;
    out(
      `${scenario.name}, seed ${options.seed}: ranked by ${report.rule}; Ballast from each strategy's start\n${table(t.head, t.rows)}\n` +
        `Ballast ahead of ${n('ahead')}, level with ${n('level')}, behind ${n('behind')} of ${rows.length}`,
    );
  }
  if (flags.out) writeOut(flags.out, { [`${safeFileName(scenario.name)}-published.json`]: `${toJson(report)}\n` });
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
    .option('--scenario <file>', "scenario file: Ballast's format (YAML or JSON) or Hyperlane's rebalancer-sim JSON")
    .option('--traffic <file>', 'past payments as CSV (time,chain,kind,amount[,id]) replayed against --config')
    .option('--asset <symbol>', 'the config asset to simulate (default: the only one, or the scenario token)')
    .option('--initial <balances>', 'with --traffic: starting balances, whole units, e.g. base=1000,arbitrum=3000 (default: band targets)')
    .option('--seed <n>', 'seed of keys, addresses and delivery jitter', '1')
    .option('--json', 'machine-readable output (docs/simulate.md)')
    .option('--out <dir>', 'also write the JSON and the balance pictures (SVG) into this directory')
    .option('--compare <variant...>', "run once per variant ('scenario' or a Ballast config file) and print a scorecard")
    .option('--published <file>', "beside Hyperlane's published results (<scenario>-comparison.json), from each strategy's start")
    .option(
      '--refill-to <point>',
      "where a holding below min is refilled to: target, or a share of its band such as 40% (default: the scenario's or config's own)",
    )
    .action(async (flags: SimulateFlags, cmd: Command) => {
      const seed = Number(flags.seed);
      if (!Number.isSafeInteger(seed) || seed < 0) throw new CliError(`--seed ${flags.seed}: expected a non-negative integer`, EXIT_USAGE);
      if (flags.refillTo !== undefined && !REFILL_POINT_RE.test(flags.refillTo)) {
        throw new CliError(
          `--refill-to ${flags.refillTo}: expected target or a share of the band such as 40% (0% is min, 100% is max)`,
          EXIT_USAGE,
        );
      }
      const refillTo = flags.refillTo !== undefined ? { refillTo: flags.refillTo } : {};
      const globals = cmd.optsWithGlobals<{ config?: string; logLevel?: string }>();
      if (flags.compare && globals.config) {
        throw new CliError(
          `--compare names its configs itself: drop --config and add it as a variant (--compare scenario ${globals.config})`,
          EXIT_USAGE,
        );
      }
      if (flags.compare && flags.published) throw new CliError('--compare and --published exclude each other; give one', EXIT_USAGE);
      const set = scenarioOf(flags, globals.config);
      if (flags.published) {
        const options = {
          seed,
          ...(globals.config ? { configFile: globals.config } : {}),
          ...(globals.logLevel ? { logLevel: globals.logLevel } : {}),
          ...refillTo,
        };
        return runPublished(set, flags.published, flags, options, out);
      }
      if (flags.compare) {
        const [scenario] = set.scenarios;
        if (set.multiAsset || scenario === undefined) {
          throw new CliError(
            `${set.name}: --compare runs single-asset scenarios; a multi-asset one runs with its own holdings`,
            EXIT_USAGE,
          );
        }
        const runs = await runVariants(scenario, variantsOf(flags.compare), {
          seed,
          ...(globals.logLevel ? { logLevel: globals.logLevel } : {}),
          ...refillTo,
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
      const log = await runScenarioSet(set, {
        seed,
        ...(globals.config ? { configFile: globals.config } : {}),
        ...(globals.logLevel ? { logLevel: globals.logLevel } : {}),
        ...refillTo,
      });
      const kpis = computeKpis(log);
      out(flags.json ? toJson(kpis) : renderKpis(kpis, log.token.decimals));
      if (flags.out) writeOut(flags.out, runFiles(log, kpis, toJson));
      // A scenario's own expect block (not checked when --config replaces its holdings, nor with another refill
      // point than its own): exit 1 when unmet.
      const expected = set.multiAsset || globals.config || flags.refillTo !== undefined ? undefined : set.scenarios[0]?.expectations;
      if (expected) {
        const unmet = unmetExpectations(kpis, expected);
        if (unmet.length > 0) throw new CliError(`${set.name}: expect block not met: ${unmet.join('; ')}`, EXIT_ERROR);
        if (!flags.json) out(`expect: met (${Object.keys(expected).length} checks)`);
      }
    });
}
