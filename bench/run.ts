/**
 * Benchmarks (`npm run bench`): the hot pure paths of a cycle, each measured side by side with a reference in
 * the same run so the printed ratios hold on any machine.
 *
 * - order-id hashing: ours vs the published settlement SDK (`@reservoir0x/relay-protocol-sdk` getOrderId);
 *   target: not slower than 1.5× the SDK.
 * - full local verification of a quote, relative to one order-id hash; target: under 20× a hash (verification
 *   hashes once and decodes calldata; anything more means repeated work).
 * - planning 200 targets across 20 chains, relative to one order-id hash; target: under 50×.
 * - fill detection on the sandbox, webhook vs polling once a second (bench/webhookLatency.ts); target: under
 *   0.2× (`BALLAST_BENCH_SANDBOX=0` skips it: it starts anvil chains).
 *
 * Quotes: the offline quote (built by the sandbox's pure quote builder, always available) and the genuine
 * published quote when its files are present (`BALLAST_RELAY_FIXTURES` or `../shared/fixtures/relay`).
 */
import { getOrderId } from '@reservoir0x/relay-protocol-sdk';
import { computeOrderId } from '../src/protocol/orderId.ts';
import { slugVmTypesFromChains } from '../src/protocol/vmTypes.ts';
import { verifyQuote } from '../src/verify/verifyQuote.ts';
import { planRebalance } from '../src/planner/planRebalance.ts';
import type { TargetBand } from '../src/planner/types.ts';
import { QUOTE_CASES } from '../test/fixtures/quoteCase.ts';
import { relayFixturesDir, relayFixturesPresent } from '../test/fixtures/relay.ts';
import { fillDetectionRow } from './webhookLatency.ts';

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
      asset: `A${a}`, chain: `chain${c}`, chainId: 1000 + c, currency: `0x${String(a).padStart(40, '0')}`,
      wallet: 'w', address: `0x${'1'.repeat(40)}`, decimals: 6, min: 40n * 10n ** 9n, target: 50n * 10n ** 9n, max: 60n * 10n ** 9n,
    });
  }
}
const balances = targets.map((t, i) => ({ chain: t.chain, currency: t.currency, address: t.address, amount: BigInt(i % 3) * 45n * 10n ** 9n }));

if (!relayFixturesPresent) console.log(`genuine Relay fixtures not found at ${relayFixturesDir}: benchmarking the offline quote only`);
const rows: [string, number, number][] = [];
let hash = 0; // µs of one order-id hash of the offline quote (the first case): the unit of the plan target
for (const c of QUOTE_CASES) {
  const { quote, chains } = c.load();
  const order = quote.protocol!.v2!.orderData; // every quote case carries protocol.v2
  const vmTypes = slugVmTypesFromChains(chains);
  const ours = await measure(`order id (ours, ${c.name})`, 2000, () => computeOrderId(order, vmTypes));
  const sdk = await measure(`order id (settlement SDK, ${c.name})`, 2000, () => // The SDK's types are narrower spellings of the same JSON shapes (its VmType lacks xrp-vm); same runtime data.
    getOrderId(order as Parameters<typeof getOrderId>[0], vmTypes as Parameters<typeof getOrderId>[1]));
  const verify = await measure(`verify ${c.name} quote`, 500, () =>
    verifyQuote({ quote, chains, expect: { user: c.facts.user, recipient: c.facts.recipient }, nowSec: c.facts.nowSec }),
  );
  rows.push([`order id (${c.name}): ours / SDK`, ours / sdk, 1.5]);
  rows.push([`verify ${c.name} / one order-id hash`, verify / ours, 20]);
  hash ||= ours;
}
const plan = await measure('plan 200 targets / 20 chains', 200, () =>
  planRebalance({ targets, balances, inFlight: [], minTransfer: '100', maxTransfer: '50000' }),
);
rows.push(['plan 200 targets / one order-id hash', plan / hash, 50]);
if (process.env.BALLAST_BENCH_SANDBOX !== '0') rows.push(await fillDetectionRow());

console.log('');
let failed = false;
for (const [label, ratio, limit] of rows) {
  const ok = ratio <= limit;
  failed ||= !ok;
  console.log(`${label.padEnd(38)} ${ratio.toFixed(2).padStart(7)}×  target ≤ ${limit}×  ${ok ? 'ok' : 'OVER TARGET'}`);
}
console.log(`heap used: ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(1)} MiB`);
process.exitCode = failed ? 1 : 0;
