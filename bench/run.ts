/**
 * Benchmarks (`npm run bench`): each result measured side by side with a reference in the same run (so the
 * printed ratios hold on any machine) or against an absolute target, written to bench/RESULTS.md with the
 * machine and date. The run exits non-zero when a target is missed. Under 10 minutes on 2 cores.
 *
 * Pure paths:
 * - order-id hashing: ours vs the published settlement SDK (`@reservoir0x/relay-protocol-sdk` getOrderId);
 *   target: not slower than 1.5× the SDK.
 * - full local verification of a quote, relative to one order-id hash; target: under 20× a hash (verification
 *   hashes once and decodes calldata; anything more means repeated work).
 * - planning 200 targets across 20 chains, relative to one order-id hash; target: under 50×.
 * - planner CPU time for 10 / 100 / 1,000 / 10,000 targets (bench/planner.ts): 1,000 under 20 ms, growth
 *   exponent ≤ 1.2.
 * - CLI start, `ballast --version` vs `node -e 0` (bench/cliStart.ts): under 0.3 s.
 * - simulated traffic (bench/simulate.ts): all of Hyperlane's rebalancer-sim scenarios under 120 s; on the flow-*
 *   ones, no published strategy ranking ahead of Ballast from the same start by Hyperlane's rule (completion, then
 *   volume), and every payment of their perturbed families completed.
 *
 * On anvil and the sandbox (`BALLAST_BENCH_SANDBOX=0` leaves these out, and RESULTS.md is then not written):
 * - balance reads per cycle, batched vs naive, 2 / 5 / 20 chains × 1 / 5 / 20 / 50 tokens (bench/balanceReads.ts).
 * - a full cycle vs its parts, and fill detection with 250 ms polling (bench/cycleParts.ts).
 * - fill detection, webhook vs polling once a second (bench/webhookLatency.ts); target: under 0.2×.
 * - daemon heap and RSS over 10,000 idle cycles (bench/daemonMemory.ts): flat within 10 %.
 * - route choice with donors whose fees differ (bench/routeChoice.ts): chosen ÷ cheapest fees 1.00, and the extra
 *   latency of quoting three candidates in parallel under one single-candidate cycle.
 *
 * Quotes: the offline quote (built by the sandbox's pure quote builder, always available) and the genuine
 * published quote when its files are present (`BALLAST_RELAY_FIXTURES` or `../shared/fixtures/relay`).
 */
import { getOrderId } from '@reservoir0x/relay-protocol-sdk';
import { computeOrderId } from '../packages/protocol/src/protocol/orderId.ts';
import { slugVmTypesFromChains } from '../packages/protocol/src/protocol/vmTypes.ts';
import { verifyQuote } from '../packages/ballast/src/verify/verifyQuote.ts';
import { planRebalance } from '../packages/ballast/src/planner/planRebalance.ts';
import type { TargetBand } from '../packages/ballast/src/planner/types.ts';
import { QUOTE_CASES } from '../test/fixtures/quoteCase.ts';
import { relayFixturesDir, relayFixturesPresent } from '../test/fixtures/relay.ts';
import { fillDetectionRow } from './webhookLatency.ts';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { balanceReadRows } from './balanceReads.ts';
import { cliStartRows } from './cliStart.ts';
import { cyclePartsRows } from './cycleParts.ts';
import { daemonMemoryRows } from './daemonMemory.ts';
import { formatValue, type BenchRow } from './lib.ts';
import { plannerRows } from './planner.ts';
import { routeChoiceRows } from './routeChoice.ts';
import { concurrencyRows } from './concurrency.ts';
import { SIMULATE_HEADING, simulateBench } from './simulate.ts';
import { machineLine, rowOk, targetText, verdictText, writeKeptSection, writeResults } from './results.ts';

const startedMs = Date.now();
/** Every line printed, for RESULTS.md. */
const details: string[] = [];
const print = console.log;
console.log = (...args: unknown[]) => {
  details.push(args.map(String).join(' '));
  print(...args);
};
console.log(`machine: ${machineLine()}`);

async function measure(name: string, iterations: number, fn: () => unknown | Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(50, iterations); i++) await fn(); // warm-up
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) await fn();
  const perOpUs = Number(process.hrtime.bigint() - start) / 1000 / iterations;
  console.log(`${name.padEnd(34)} ${perOpUs.toFixed(1).padStart(9)} µs/op  (${iterations} ops)`);
  return perOpUs;
}

const targets: TargetBand[] = [];
for (let c = 0; c < 20; c++) {
  for (let a = 0; a < 10; a++) {
    targets.push({
      asset: `A${a}`,
      chain: `chain${c}`,
      chainId: 1000 + c,
      currency: `0x${String(a).padStart(40, '0')}`,
      wallet: 'w',
      address: `0x${'1'.repeat(40)}`,
      decimals: 6,
      min: 40n * 10n ** 9n,
      target: 50n * 10n ** 9n,
      max: 60n * 10n ** 9n,
    });
  }
}
const balances = targets.map((t, i) => ({
  chain: t.chain,
  currency: t.currency,
  address: t.address,
  amount: BigInt(i % 3) * 45n * 10n ** 9n,
}));

if (!relayFixturesPresent) console.log(`genuine Relay fixtures not found at ${relayFixturesDir}: benchmarking the offline quote only`);
const rows: BenchRow[] = [];
let hash = 0; // µs of one order-id hash of the offline quote (the first case): the unit of the plan target
for (const c of QUOTE_CASES) {
  const { quote, chains } = c.load();
  const order = quote.protocol!.v2!.orderData; // every quote case carries protocol.v2
  const vmTypes = slugVmTypesFromChains(chains);
  const ours = await measure(`order id (ours, ${c.name})`, 2000, () => computeOrderId(order, vmTypes));
  const sdk = await measure(`order id (settlement SDK, ${c.name})`, 2000, () =>
    // The SDK's types are narrower spellings of the same JSON shapes (its VmType lacks xrp-vm); same runtime data.
    getOrderId(order as Parameters<typeof getOrderId>[0], vmTypes as Parameters<typeof getOrderId>[1]),
  );
  const verify = await measure(`verify ${c.name} quote`, 500, () =>
    verifyQuote({ quote, chains, expect: { user: c.facts.user, recipient: c.facts.recipient }, nowSec: c.facts.nowSec }),
  );
  rows.push({ label: `order id (${c.name}): ours / SDK`, value: ours / sdk, limit: 1.5, unit: '×' });
  rows.push({ label: `verify ${c.name} / one order-id hash`, value: verify / ours, limit: 20, unit: '×' });
  hash ||= ours;
}
const plan = await measure('plan 200 targets / 20 chains', 200, () =>
  planRebalance({ targets, balances, inFlight: [], minTransfer: '100', maxTransfer: '50000' }),
);
rows.push({ label: 'plan 200 targets / one order-id hash', value: plan / hash, limit: 50, unit: '×' });
rows.push(...plannerRows());
rows.push(...cliStartRows());
const simulated = await simulateBench();
rows.push(...simulated.rows);
const onSandbox = process.env.BALLAST_BENCH_SANDBOX !== '0';
if (onSandbox) {
  rows.push(...(await balanceReadRows()).rows);
  rows.push(...(await cyclePartsRows()));
  const [label, value, limit] = await fillDetectionRow();
  rows.push({ label, value, limit, unit: '×' });
  rows.push(...(await daemonMemoryRows()));
  rows.push(...(await routeChoiceRows()));
  rows.push(...(await concurrencyRows()));
}

console.log('');
for (const r of rows) {
  console.log(
    `${r.label.padEnd(62)} ${formatValue(r.value, r.unit).padStart(12)}  ${targetText(r).padEnd(11)} ${verdictText(r, 'OVER TARGET')}${r.note ? `  (${r.note})` : ''}`,
  );
}
console.log(`heap used: ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(1)} MiB`);
const totalSec = (Date.now() - startedMs) / 1000;
console.log(`total: ${totalSec.toFixed(0)} s`);
const failed = rows.some((r) => !rowOk(r));
if (onSandbox) {
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), 'RESULTS.md');
  writeResults(file, rows, details, totalSec);
  if (simulated.section.length > 0) writeKeptSection(file, SIMULATE_HEADING, simulated.section);
  print(`wrote ${file}`);
} else {
  print('BALLAST_BENCH_SANDBOX=0: sandbox benchmarks left out, bench/RESULTS.md not written');
}
process.exitCode = failed ? 1 : 0;
