/**
 * Planner CPU time for 10 / 100 / 1,000 / 10,000 targets over 20 chains, with the growth exponent fitted over
 * 100 → 10,000 (log-log least squares). Targets: 1,000 targets under 20 ms, exponent ≤ 1.2 (linear growth; the
 * planner indexes readings and in-flight transfers by holding instead of scanning them per target).
 *
 * Two shapes: many assets (20 chains × N/20 assets, one wallet: the common treasury) and one asset held by
 * N/20 wallets on each chain (every target matched against every other: the matcher's worst case).
 */
import { planRebalance } from '../packages/ballast/src/planner/planRebalance.ts';
import type { PlanInput, TargetBand } from '../packages/ballast/src/planner/types.ts';
import { growthExponent, median, type BenchRow } from './lib.ts';

const CHAINS = 20;
export const PLANNER_SIZES = [10, 100, 1_000, 10_000] as const;

/**
 * A plan input of `n` targets over 20 chains: a third below min, a third in band, a third above max.
 *
 * @param shape `assets`: one wallet, n/20 assets per chain; `wallets`: one asset, n/20 wallets per chain
 */
export function plannerInput(n: number, shape: 'assets' | 'wallets'): PlanInput {
  const targets: TargetBand[] = [];
  for (let i = 0; i < n; i++) {
    const c = i % CHAINS;
    const k = Math.floor(i / CHAINS);
    const asset = shape === 'assets' ? `A${k}` : 'USDC';
    const wallet = shape === 'assets' ? 0 : k;
    targets.push({
      asset,
      chain: `chain${c}`,
      chainId: 1000 + c,
      currency: `0x${(shape === 'assets' ? k + 1 : 1).toString(16).padStart(40, '0')}`,
      wallet: `w${wallet}`,
      address: `0xb${(wallet + 1).toString(16).padStart(39, '0')}`,
      decimals: 6,
      min: 40n * 10n ** 9n,
      target: 50n * 10n ** 9n,
      max: 60n * 10n ** 9n,
    });
  }
  const balances = targets.map((t, i) => ({
    chain: t.chain,
    currency: t.currency,
    address: t.address,
    amount: BigInt(i % 3) * 45n * 10n ** 9n,
    blockNumber: 1n,
  }));
  return { targets, balances, inFlight: [], minTransfer: '100', maxTransfer: '50000' };
}

/**
 * CPU time of one plan of `input`, ms (process user + system time, so other processes on the machine count
 * less than in wall time): the median of batches run for at least `budgetMs` after a warm-up, each batch long
 * enough (≥ 20 ms) for the microsecond clock.
 */
function planMs(input: PlanInput, budgetMs: number): number {
  const warm = performance.now();
  while (performance.now() - warm < budgetMs / 4) planRebalance(input);
  const once = performance.now();
  planRebalance(input);
  const batch = Math.max(1, Math.ceil(20 / Math.max(0.001, performance.now() - once)));
  const samples: number[] = [];
  const start = performance.now();
  while (samples.length < 5 || performance.now() - start < budgetMs) {
    const cpu = process.cpuUsage();
    for (let i = 0; i < batch; i++) planRebalance(input);
    const used = process.cpuUsage(cpu);
    samples.push((used.user + used.system) / 1000 / batch);
  }
  return median(samples);
}

/** Measures both shapes; prints one line per size; returns the rows. */
export function plannerRows(): BenchRow[] {
  const rows: BenchRow[] = [];
  for (const shape of ['assets', 'wallets'] as const) {
    const points: { x: number; y: number }[] = [];
    for (const n of PLANNER_SIZES) {
      const ms = planMs(plannerInput(n, shape), n >= 10_000 ? 3000 : 600);
      points.push({ x: n, y: ms });
      console.log(`plan ${String(n).padStart(6)} targets / 20 chains (${shape.padEnd(7)})  ${ms.toFixed(3).padStart(9)} ms`);
    }
    const k = growthExponent(points.filter((p) => p.x >= 100));
    const at1000 = points.find((p) => p.x === 1_000)!.y;
    const at10000 = points.find((p) => p.x === 10_000)!.y;
    const label = shape === 'assets' ? 'many assets' : 'one asset, many wallets';
    rows.push({ label: `plan 1,000 targets (${label})`, value: at1000, limit: 20, unit: 'ms' });
    rows.push({
      label: `plan growth exponent 100→10,000 (${label})`,
      value: k,
      limit: 1.2,
      unit: '',
      note: `10,000 / 1,000 targets: ${(at10000 / at1000).toFixed(1)}×`,
    });
  }
  return rows;
}
