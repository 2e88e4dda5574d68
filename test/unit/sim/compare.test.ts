/**
 * `ballast simulate --compare`, `--published` and `--out`: the scorecard, its ranking by Hyperlane's rule and variant
 * naming (pure), then the command run through the CLI in-process on small scenarios against the real cycle and store.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { buildProgram } from '../../../packages/ballast/src/cli/main.ts';
import { readBallastScenario } from '../../../packages/ballast/src/sim/ballastScenario.ts';
import { ranksOf, safeFileName, scorecard, variantsOf } from '../../../packages/ballast/src/sim/compare.ts';
import { timeBelowMinTotal } from '../../../packages/ballast/src/sim/kpis.ts';
import { simConfigYaml } from '../../../packages/ballast/src/sim/config.ts';
import { simChains, simToken } from '../../../packages/ballast/src/sim/identity.ts';
import type { HoldingKpis, SimKpis } from '../../../packages/ballast/src/sim/kpis.ts';
import { byClass, parseXml } from './xmlTree.ts';
import { payRefillDoc } from './payRefill.ts';
import { flowDoc, publishedDoc } from './publishedDocs.ts';
import type { PublishedReport } from '../../../packages/ballast/src/sim/published.ts';

const units = (n: bigint) => (n * 10n ** 18n).toString();

function holding(timeBelowMinMs: number | null): HoldingKpis {
  return {
    initialBalance: '0',
    finalBalance: '0',
    payments: 0,
    completedPayments: 0,
    completionRate: 1,
    transfersIn: 0,
    rebalancesIn: 0,
    rebalancesOut: 0,
    rebalanceVolumeIn: '0',
    rebalanceVolumeOut: '0',
    timeBelowMinMs,
    averageLatency: 0,
    p50Latency: 0,
    p95Latency: 0,
    p99Latency: 0,
  };
}

function kpis(over: Partial<SimKpis>): SimKpis {
  return {
    scenario: 's',
    seed: 1,
    totalTransfers: 4,
    completedTransfers: 4,
    failedTransfers: 0,
    completionRate: 1,
    averageLatency: 0,
    p50Latency: 0,
    p95Latency: 0,
    p99Latency: 0,
    totalRebalances: 0,
    rebalanceVolume: '0',
    transfersMade: 0,
    feesPaid: '0',
    feesPaidUsd: '0',
    feesBps: 0,
    paymentVolume: '1000000',
    efficiency: 0,
    peakCapitalInFlight: '0',
    cycles: 1,
    simulatedMs: 1000,
    perChainMetrics: { a: holding(0), b: holding(null) },
    ...over,
  };
}

describe('the compare scorecard', () => {
  const variants = [
    {
      name: 'scenario',
      kpis: kpis({ completedTransfers: 3, completionRate: 0.75, p95Latency: 0, perChainMetrics: { a: holding(4000), b: holding(500) } }),
    },
    {
      name: 'high-min',
      kpis: kpis({
        p50Latency: 10,
        p95Latency: 250,
        p99Latency: 250,
        totalRebalances: 2,
        rebalanceVolume: '1500000',
        feesPaidUsd: '0.25',
        efficiency: 1.5,
        peakCapitalInFlight: '1000000',
        perChainMetrics: { a: holding(1000), b: holding(null) },
      }),
    },
    {
      name: 'wide',
      kpis: kpis({
        p50Latency: 10,
        p95Latency: 300,
        p99Latency: 300,
        totalRebalances: 1,
        rebalanceVolume: '1500000',
        feesPaidUsd: '0.3',
        efficiency: 1.5,
        peakCapitalInFlight: '1500000',
        perChainMetrics: { a: holding(1000), b: holding(null) },
      }),
    },
  ];

  /** A variant's row without its rank: the variant's name, then the columns. */
  const cells = (card: { rows: string[][] }, name: string) => card.rows.find((r) => r[1] === name)!.slice(1);

  it("ranks the variants by Hyperlane's rule: completion, then volume; the count of rebalances does not rank", () => {
    const card = scorecard(variants, 6);
    // high-min and wide complete everything with the same volume (level, in the order given); scenario completes less
    expect(card.rows.map((r) => r.slice(0, 2))).toEqual([
      ['1', 'high-min'],
      ['1', 'wide'],
      ['3', 'scenario'],
    ]);
    expect(ranksOf(variants)).toEqual([3, 1, 1]);
    // less volume ranks ahead even with more rebalances
    const lighter = { name: 'lighter', kpis: kpis({ totalRebalances: 5, rebalanceVolume: '1000000' }) };
    expect(scorecard([variants[1]!, lighter], 6).rows.map((r) => r.slice(0, 2))).toEqual([
      ['1', 'lighter'],
      ['2', 'high-min'],
    ]);
  });

  it('has one row per variant with every column, amounts in whole units', () => {
    const card = scorecard(variants, 6);
    expect(card.head).toEqual([
      'rank',
      'variant',
      'completed',
      'p50 ms',
      'p95 ms',
      'p99 ms',
      'rebalances',
      'volume',
      'fees USD',
      'efficiency',
      'below min ms',
      'peak in flight',
    ]);
    expect(card.rows.map((r) => r[1]).sort()).toEqual(['high-min', 'scenario', 'wide']);
    expect(cells(card, 'high-min')).toEqual(['high-min', '4/4 (100.0 %) *', '10', '250', '250', '2', '1.5', '0.25', '1.5', '1000 *', '1']);
  });

  it('marks the best value of each column where the variants differ, ties included', () => {
    const card = scorecard(variants, 6);
    const [scenario, highMin, wide] = ['scenario', 'high-min', 'wide'].map((n) => cells(card, n));
    // completion: highest; the two complete variants tie
    expect([scenario![1], highMin![1], wide![1]]).toEqual(['3/4 (75.0 %)', '4/4 (100.0 %) *', '4/4 (100.0 %) *']);
    // latencies, rebalances, volume, efficiency: lowest
    expect(scenario!.slice(2, 7)).toEqual(['0 *', '0 *', '0 *', '0 *', '0 *']);
    expect(wide![5]).toBe('1');
    // below min: summed over banded holdings (4000 + 500), lowest wins
    expect([scenario![9], highMin![9], wide![9]]).toEqual(['4500', '1000 *', '1000 *']);
    // fees compared as USD amounts, not text: 0 < 0.25 < 0.3
    expect([scenario![7], highMin![7], wide![7]]).toEqual(['0 *', '0.25', '0.3']);
  });

  it('marks nothing where every variant has the same value, or with one variant', () => {
    const same = scorecard([variants[1]!, { ...variants[1]!, name: 'copy' }], 6);
    expect(same.rows.flat().some((c) => c.endsWith('*'))).toBe(false);
    expect(scorecard([variants[0]!], 6).rows[0]!.some((c) => c.endsWith('*'))).toBe(false);
  });

  it('shows time below min as - when no holding has a band', () => {
    const weighted = kpis({ perChainMetrics: { a: holding(null), b: holding(null) } });
    expect(timeBelowMinTotal(weighted)).toBeNull();
    const card = scorecard([variants[0]!, { name: 'weights', kpis: weighted }], 6);
    expect(cells(card, 'weights')[9]).toBe('-');
    // one value left to compare: nothing to choose between
    expect(cells(card, 'scenario')[9]).toBe('4500');
  });

  it('labels variants by config base name, each label (and file name) distinct', () => {
    expect(variantsOf(['scenario', 'cfg/high-min.yaml', 'other/high-min.json', 'compare.yaml', 'x/high min.yaml'])).toEqual([
      { name: 'scenario' },
      { name: 'high-min', configFile: 'cfg/high-min.yaml' },
      { name: 'high-min-2', configFile: 'other/high-min.json' },
      { name: 'compare-2', configFile: 'compare.yaml' },
      { name: 'high min-3', configFile: 'x/high min.yaml' },
    ]);
    expect(safeFileName('pay 700 / <min> & more')).toBe('pay-700-min-more');
    expect(safeFileName('../..')).toBe('scenario');
    expect(safeFileName('weekday-payroll.v2')).toBe('weekday-payroll.v2');
  });
});

describe('ballast simulate --compare and --out through the CLI', () => {
  const SEED = 3;
  let dir: string;
  let scenarioFile: string;
  let highMin: string;

  /** alpha pays 700 of its 1000 USDC; beta has a surplus. With alpha's min at 200 nothing moves; at 500 Ballast refills it. */
  const doc = (alphaMin: string) => payRefillDoc(alphaMin, 'pay <700> & refill');

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'ballast-compare-'));
    scenarioFile = path.join(dir, 'scenario.yaml');
    writeFileSync(scenarioFile, toYaml(doc('200')));
    // The config a user would write for this scenario, with alpha's min raised to 500.
    const s = readBallastScenario(doc('500'));
    highMin = path.join(dir, 'high-min.yaml');
    writeFileSync(highMin, simConfigYaml(s, simChains(s.chains), simToken(SEED, 'USDC', 6)));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function cli(...args: string[]): Promise<string> {
    const lines: string[] = [];
    const program = await buildProgram((s) => lines.push(s), ['simulate']);
    await program.parseAsync(args, { from: 'user' });
    return lines.join('\n');
  }

  it('runs each variant with the same seed, prints the compare JSON and writes the files', async () => {
    const out = path.join(dir, 'out', 'nested');
    const printed = JSON.parse(
      await cli('simulate', '--scenario', scenarioFile, '--seed', String(SEED), '--compare', 'scenario', highMin, '--json', '--out', out),
    ) as { scenario: string; seed: number; variants: { name: string; rank: number; kpis: SimKpis }[] };
    expect(printed.scenario).toBe('pay <700> & refill');
    expect(printed.seed).toBe(SEED);
    // in the order given, each with its place: both complete, the one that moved nothing ranks first
    expect(printed.variants.map((v) => [v.name, v.rank])).toEqual([
      ['scenario', 1],
      ['high-min', 2],
    ]);
    const [own, raised] = printed.variants.map((v) => v.kpis);
    // min 200: the 300 left is inside the band, nothing moves; min 500: beta refills alpha once
    expect(own).toMatchObject({ completionRate: 1, totalRebalances: 0, rebalanceVolume: '0', seed: SEED });
    expect(own!.perChainMetrics.alpha!.timeBelowMinMs).toBe(0);
    expect(raised).toMatchObject({ completionRate: 1, totalRebalances: 1, seed: SEED });
    expect(BigInt(raised!.rebalanceVolume)).toBeGreaterThan(0n);
    expect(raised!.perChainMetrics.alpha!.timeBelowMinMs).toBeGreaterThan(0);

    expect(readdirSync(out).sort()).toEqual([
      'pay-700-refill-compare.json',
      'pay-700-refill-compare.svg',
      'pay-700-refill-high-min.svg',
      'pay-700-refill-scenario.svg',
    ]);
    expect(JSON.parse(readFileSync(path.join(out, 'pay-700-refill-compare.json'), 'utf8'))).toEqual(printed);
    const ownSvg = parseXml(readFileSync(path.join(out, 'pay-700-refill-scenario.svg'), 'utf8'));
    const raisedSvg = parseXml(readFileSync(path.join(out, 'pay-700-refill-high-min.svg'), 'utf8'));
    expect(byClass(ownSvg, 'panel')).toHaveLength(2);
    expect(byClass(ownSvg, 'transfer')).toEqual([]);
    // the one filled transfer: quoted on beta, landed on alpha
    expect(byClass(raisedSvg, 'transfer').map((g) => g.attrs.class)).toEqual(['transfer filled', 'transfer filled']);
    const both = parseXml(readFileSync(path.join(out, 'pay-700-refill-compare.svg'), 'utf8'));
    for (const panel of byClass(both, 'panel')) expect(byClass(panel, 'balance')).toHaveLength(2);
  });

  it('prints the scorecard ranked, with the best values marked', async () => {
    const text = await cli('simulate', '--scenario', scenarioFile, '--seed', String(SEED), '--compare', 'scenario', highMin);
    const lines = text.split('\n');
    const cellsOf = (l: string) =>
      l
        .split('│')
        .map((c) => c.trim())
        .filter((c) => c !== '');
    const rows = lines.filter((l) => / (scenario|high-min) /.test(l)).map(cellsOf);
    expect(lines[0]).toBe(`pay <700> & refill, seed ${SEED}`);
    expect(rows.map((r) => r.slice(0, 2))).toEqual([
      ['1', 'scenario'],
      ['2', 'high-min'],
    ]);
    const [own, raised] = rows.map((r) => r.slice(1));
    // completed, p50, p95, p99 (the payment due at 1 s is mined in the block at 1.25 s), rebalances, …, below min ms
    expect(own!.slice(1, 6)).toEqual(['1/1 (100.0 %)', '250', '250', '250', '0 *']);
    expect(raised![5]).toBe('1');
    expect(own![9]).toBe('0 *');
    expect(raised![9]).not.toMatch(/\*$/);
  });

  it('refuses --compare with the global --config, naming the fix in one line', async () => {
    const error = await cli('--config', highMin, 'simulate', '--scenario', scenarioFile, '--compare', 'scenario').catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'CliError', exitCode: 2 });
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    expect(message).toContain(`--compare scenario ${highMin}`);
  });

  it('writes the KPI JSON and the picture of a single run; a weighted holding has no band and no time below min', async () => {
    const weighted = path.join(dir, 'weighted.json');
    const d = doc('500');
    writeFileSync(
      weighted,
      JSON.stringify({
        ...d,
        name: 'weighted',
        chains: {
          alpha: { initial: '1000', holding: { weight: 1, toleranceBps: 500 } },
          beta: { initial: '3000', holding: { weight: 1, toleranceBps: 500 } },
        },
      }),
    );
    const out = path.join(dir, 'single');
    const printed = await cli('simulate', '--scenario', weighted, '--seed', String(SEED), '--json', '--out', out);
    expect(readdirSync(out).sort()).toEqual(['weighted.json', 'weighted.svg']);
    expect(readFileSync(path.join(out, 'weighted.json'), 'utf8')).toBe(`${printed}\n`);
    const k = JSON.parse(printed) as SimKpis;
    expect(k.perChainMetrics.alpha!.timeBelowMinMs).toBeNull();
    expect(k.totalRebalances).toBeGreaterThan(0);
    const svg = parseXml(readFileSync(path.join(out, 'weighted.svg'), 'utf8'));
    expect(byClass(svg, 'panel')).toHaveLength(2);
    expect([...byClass(svg, 'band-min'), ...byClass(svg, 'band-max'), ...byClass(svg, 'band-target')]).toEqual([]);
    expect(byClass(svg, 'transfer').length).toBeGreaterThan(0);
  });
});

describe('ballast simulate --published through the CLI', () => {
  let dir: string;
  let scenarioFile: string;
  let resultsFile: string;

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'ballast-published-'));
    scenarioFile = path.join(dir, 'duo-flow.json');
    resultsFile = path.join(dir, 'duo-flow-comparison.json');
    writeFileSync(scenarioFile, JSON.stringify(flowDoc()));
    // first: the file's own start, moved nothing; second: started with c2 empty, paid and moved nothing (made up: the
    // payment out of c2 cannot be paid without a move); third: the file's start again, paid nothing.
    writeFileSync(
      resultsFile,
      JSON.stringify(
        publishedDoc([
          { name: 'first', completed: 1, volume: 0n, start: [100n, 100n] },
          { name: 'third', completed: 0, volume: 0n, start: [100n, 100n] },
          { name: 'second', completed: 1, volume: 0n, start: [200n, 0n] },
        ]),
      ),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function cli(...args: string[]): Promise<string> {
    const lines: string[] = [];
    const program = await buildProgram((s) => lines.push(s), ['simulate']);
    await program.parseAsync(args, { from: 'user' });
    return lines.join('\n');
  }

  it("runs Ballast from each strategy's own start and ranks the pairs by Hyperlane's rule", async () => {
    const out = path.join(dir, 'out');
    const printed = await cli('simulate', '--scenario', scenarioFile, '--published', resultsFile, '--json', '--out', out);
    const report = JSON.parse(printed) as PublishedReport;
    expect(JSON.parse(readFileSync(path.join(out, 'duo-flow-published.json'), 'utf8'))).toEqual(report);
    expect(report.rule).toBe('completion rate (highest first), then rebalance volume (lowest first)');
    expect(report.strategies.map((r) => [r.rank, r.strategy])).toEqual([
      [1, 'first'],
      [1, 'second'],
      [3, 'third'],
    ]);
    const [first, second, third] = report.strategies;
    // Ballast starts where each strategy started
    expect(second!.start).toEqual({ c1: units(200n), c2: units(0n) });
    expect(second!.ballast.perChainMetrics.c2!.initialBalance).toBe(units(0n));
    expect(first!.ballast.perChainMetrics.c1!.initialBalance).toBe(units(100n));
    // from the file's start the one token is paid with nothing moved: level with first, ahead of third (paid nothing)
    expect(first!.ballast).toMatchObject({ completionRate: 1, rebalanceVolume: '0' });
    expect(first!.verdict).toBe('level');
    expect(third!.ballast).toEqual(first!.ballast);
    expect(third!.verdict).toBe('ahead');
    // from c2 empty, the payment waits and Ballast brings c2 what it lacks (the one token, a need): more volume than
    // second's nothing, so behind it
    expect(second!.ballast.completionRate).toBe(1);
    expect(second!.ballast.totalRebalances).toBe(1);
    expect(second!.ballast.rebalanceVolume).toBe(units(1n));
    expect(second!.verdict).toBe('behind');

    const text = await cli('simulate', '--scenario', scenarioFile, '--published', resultsFile);
    expect(text.split('\n')[0]).toBe(
      "duo-flow, seed 1: ranked by completion rate (highest first), then rebalance volume (lowest first); Ballast from each strategy's start",
    );
    expect(text).toContain('200.0/0.0');
    expect(text).toMatch(/behind \(volume [\d.]+ vs 0\.0\)/);
    expect(text.split('\n').at(-1)).toBe('Ballast ahead of 1, level with 1, behind 1 of 3');
  });

  it('refuses results whose strategies start on other chains, and --compare with it, in one line', async () => {
    const other = path.join(dir, 'other.json');
    const doc = publishedDoc([{ name: 'x', completed: 1, volume: 0n, start: [1n, 1n] }]);
    doc.results[0]!.kpis.perChainMetrics = { c1: { initialBalance: '1' }, c9: { initialBalance: '1' } } as never;
    writeFileSync(other, JSON.stringify(doc));
    const error = await cli('simulate', '--scenario', scenarioFile, '--published', other).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'CliError', exitCode: 2 });
    expect((error as Error).message).toBe(`${other}: duo-flow: starting balances name c1, c9, the scenario has c1, c2`);
    const both = await cli('simulate', '--scenario', scenarioFile, '--published', other, '--compare', 'scenario').catch((e: unknown) => e);
    expect(both).toMatchObject({ name: 'CliError', exitCode: 2, message: '--compare and --published exclude each other; give one' });
  });
});
