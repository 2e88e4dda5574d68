/**
 * The section bench/simulate.ts writes in bench/RESULTS.md: how Ballast and Hyperlane's published strategies are
 * compared, the comparison by Hyperlane's rule from each strategy's own start, where Ballast is behind, the
 * perturbed families and every scenario's run. Pure.
 */
import type { SimKpis } from '../packages/ballast/src/sim/kpis.ts';
import {
  ANCHOR_RULE,
  roundedUnits,
  sideCells,
  startText,
  verdictText,
  type PublishedComparison,
} from '../packages/ballast/src/sim/published.ts';
import type { SimScenario } from '../packages/ballast/src/sim/scenario.ts';

/** One scenario's run with seed 1. */
export interface ScenarioRun {
  name: string;
  kpis: SimKpis;
  wallMs: number;
}

/** One flow-* scenario compared with the published strategies. */
export interface PublishedScenario {
  name: string;
  scenario: SimScenario;
  compared: PublishedComparison[];
}

/** A perturbed family's members, in seed order. */
export interface FamilyRun {
  name: string;
  members: SimKpis[];
}

/** What the section is made of. */
export interface SectionInput {
  runs: readonly ScenarioRun[];
  wallSec: number;
  published: readonly PublishedScenario[];
  families: readonly FamilyRun[];
  familySec: number;
}

/** Hyperlane tokens' decimals (every scenario of the benchmark). */
const DECIMALS = 18;

const medianOf = <T>(xs: readonly T[], cmp: (a: T, b: T) => number): T => [...xs].sort(cmp)[Math.floor((xs.length - 1) / 2)]!;
const byBigint = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/** The lines under the section's heading. */
export function simulateSection(input: SectionInput): string[] {
  const { runs, wallSec, published, families, familySec } = input;
  const all = published.flatMap((p) => p.compared);
  const count = (v: string) => all.filter((c) => c.verdict === v).length;
  return [
    `- Date: ${new Date().toISOString()}; written by \`npm run bench\` or \`npm run bench:simulate\` (bench/simulate.ts)`,
    '',
    `\`ballast simulate\` (docs/simulate.md) on every Hyperlane rebalancer-sim scenario: ${runs.length} scenarios with seed 1 in`,
    `${wallSec.toFixed(1)} s of wall time. What is compared, and how (docs/simulate.md "Side by side with the published strategies"):`,
    '',
    `- Ranked by Hyperlane's own rule: ${ANCHOR_RULE}. The count of rebalances is shown, it does not rank.`,
    "- Each published strategy is compared with Ballast run from that strategy's own starting balances: the published",
    '  runs were made one after another on one deployment without a reset, so only the first (emaFlow) starts from the',
    '  even split. One rule for every scenario.',
    "- A payment's wait runs, on both sides, from the transfer's request to the block that pays it out, and both sides'",
    "  chains mine each transaction as it arrives (Hyperlane's anvil node; the simulated chains 1 ms after it arrives for",
    '  these files): an unhindered payment waits the 100 ms delivery delay plus 1 ms here, plus ~50 ms of RPC time there.',
    '- Flow strategies map to holdings with no floor refilled just in time (a payment that waits is a need; a refill',
    "  brings what it lacks) and weighted ones to weights with Hyperlane's band (target ± tolerance × target); seed 1.",
    '',
    `Over the ${all.length} published runs, Ballast from the same start is ahead of ${count('ahead')}, level with ${count('level')} and behind ${count('behind')}.`,
    'Each cell: paid (completion) / rebalances / volume (whole tokens) / average wait (ms); rows in the published ranking.',
    '',
    '| scenario | rank | strategy | start (tokens per chain) | strategy | Ballast from that start | Ballast by the rule |',
    '| --- | ---: | --- | --- | --- | --- | --- |',
    ...published.flatMap((p) =>
      p.compared.map((c) => {
        const start = Object.keys(c.published.initial).length > 0 ? c.published.initial : p.scenario.initial;
        const verdict = verdictText(c, DECIMALS);
        return `| ${p.name} | ${c.rank} | ${c.published.strategy} | ${startText(p.scenario.chains, start, DECIMALS)} | ${sideCells(c.published, DECIMALS).join(' / ')} | ${sideCells(c.ballast, DECIMALS).join(' / ')} | ${c.verdict === 'behind' ? `**${verdict}**` : verdict} |`;
      }),
    ),
    '',
    ...behindLines(published),
    ...winnerLines(published),
    '### Perturbed families',
    '',
    `Each flow-* scenario with published results, ${families[0]?.members.length ?? 0} members each (src/sim/perturb.ts): every transfer's`,
    'amount × 0.8–1.2 and time ± 500 ms, the chains renamed; member k is perturbed and run with seed k, so the seed',
    `jitters the traffic as well as the fills. ${families.reduce((n, f) => n + f.members.length, 0)} runs in ${familySec.toFixed(1)} s of wall time.`,
    '',
    '| family | members | paid (all members) | rebalances min–max | volume median (min–max) | avg wait median (max), ms |',
    '| --- | ---: | ---: | --- | --- | --- |',
    ...families.map(familyLine),
    '',
    '### Every scenario, seed 1',
    '',
    'Token amounts in whole units; waits in ms.',
    '',
    '| scenario | paid | rebalances | volume | avg wait | p95 wait | efficiency | wall ms |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...runs.map(
      ({ name, kpis: k, wallMs }) =>
        `| ${name} | ${k.completedTransfers}/${k.totalTransfers} | ${k.totalRebalances} | ${roundedUnits(BigInt(k.rebalanceVolume), DECIMALS)} | ${k.averageLatency.toFixed(0)} | ${k.p95Latency} | ${k.efficiency.toFixed(3)} | ${wallMs} |`,
    ),
    '',
  ];
}

/** "Where Ballast is behind": one line per comparison Ballast loses by the rule (none: a line saying so). */
function behindLines(published: readonly PublishedScenario[]): string[] {
  const behind = published.flatMap((p) => p.compared.filter((c) => c.verdict === 'behind'));
  const onVolume = behind.some((c) => c.ballast.completionRate === c.published.completionRate);
  const onCompletion = behind.some((c) => c.ballast.completionRate !== c.published.completionRate);
  const lines = published.flatMap((p) =>
    p.compared
      .filter((c) => c.verdict === 'behind')
      .map((c) => {
        const b = c.ballast;
        const s = c.published;
        const moved = (volume: bigint, n: number) => `${roundedUnits(volume, DECIMALS)} tokens in ${n} rebalance${n === 1 ? '' : 's'}`;
        const unpaid = Object.entries(b.perChainMetrics)
          .filter(([, h]) => h.completedPayments < h.payments)
          .map(
            ([chain, h]) =>
              `${h.payments - h.completedPayments} out of ${chain}, which ended holding ${roundedUnits(BigInt(h.finalBalance), DECIMALS)}`,
          );
        const reason =
          b.completionRate !== s.completionRate
            ? `Ballast completed ${b.completedTransfers}/${b.totalTransfers} payments, ${s.strategy} ${s.completedTransfers}/${s.totalTransfers}; unpaid: ${unpaid.join('; ')}`
            : `both completed every payment; Ballast moved ${moved(BigInt(b.rebalanceVolume), b.totalRebalances)}, ${s.strategy} ${moved(s.rebalanceVolume, s.totalRebalances)}`;
        return `- ${p.name}, against ${s.strategy} (rank ${c.rank}): ${reason}.`;
      }),
  );
  return [
    '### Where Ballast is behind by that rule',
    '',
    ...(lines.length > 0 ? lines : ['- Nowhere: no published strategy ranks ahead of Ballast from its own start.']),
    '',
    ...(onVolume
      ? [
          'Where both complete every payment the difference is volume: the published strategy moved less than the refills',
          'of the payments that waited (a flow-mapped holding is refilled just in time: src/sim/hyperlane.ts `flowHoldingOf`).',
          '',
        ]
      : []),
    ...(onCompletion
      ? [
          'A payment left unpaid waits on its holding until the drain window ends. While it waits it is held as a need on that',
          'holding (src/sim/paymentNeeds.ts), so the cycle refills the holding for it when another holding can give: one',
          'left unpaid found no holding above its band to give it.',
          '',
        ]
      : []),
  ];
}

function familyLine(f: FamilyRun): string {
  const m = f.members;
  const paid = m.reduce((n, k) => n + k.completedTransfers, 0);
  const total = m.reduce((n, k) => n + k.totalTransfers, 0);
  const counts = m.map((k) => k.totalRebalances);
  const volumes = m.map((k) => BigInt(k.rebalanceVolume)).sort(byBigint);
  const waits = m.map((k) => k.averageLatency);
  const units = (v: bigint) => roundedUnits(v, DECIMALS);
  const volume = `${units(medianOf(volumes, byBigint))} (${units(volumes[0]!)}–${units(volumes[volumes.length - 1]!)})`; // members ≥ 1
  const wait = `${medianOf(waits, (a, b) => a - b).toFixed(0)} (${Math.max(...waits).toFixed(0)})`;
  return `| ${f.name} | ${m.length} | ${paid}/${total} | ${Math.min(...counts)}–${Math.max(...counts)} | ${volume} | ${wait} |`;
}

/**
 * Ballast beside each scenario's published winner (rank 1), from the winner's start: completion, volume and average
 * wait, each said at or below the winner's or not (both sides' chains mine each transaction as it arrives; the
 * published waits also hold ~50 ms of the harness's RPC time, said beside them).
 */
function winnerLines(published: readonly PublishedScenario[]): string[] {
  const rows = published.flatMap((p) =>
    p.compared
      .filter((c) => c.rank === 1)
      .map((c) => {
        const b = c.ballast;
        const w = c.published;
        const paid = b.completionRate >= w.completionRate ? 'yes' : '**no**';
        const volume = BigInt(b.rebalanceVolume) <= w.rebalanceVolume ? 'yes' : '**no**';
        const wait = b.averageLatency <= w.averageLatency ? 'yes' : `no (+${(b.averageLatency - w.averageLatency).toFixed(0)} ms)`;
        return `| ${p.name} | ${w.strategy} | ${sideCells(w, DECIMALS).join(' / ')} | ${sideCells(b, DECIMALS).join(' / ')} | ${paid} | ${volume} | ${wait} |`;
      }),
  );
  return [
    "### Against each scenario's published winner",
    '',
    "Ballast from the winner's own start (cells as above); \"at or below\" compares with the winner's figure. Both sides'",
    "chains mine each transaction as it arrives; a published wait also holds ~50 ms of its harness's RPC time per payment.",
    '',
    '| scenario | winner | winner | Ballast | completion at or above | volume at or below | average wait at or below |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ];
}
