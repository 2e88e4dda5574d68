/**
 * Shared pieces of the benchmarks (`npm run bench`): result rows with their targets, timing helpers and a
 * free loopback port.
 */
import { createServer } from 'node:net';

/**
 * One benchmark result checked against its target: `value` must be at most `limit` (both in `unit`).
 * Ratios (`unit: '×'`) are measured side by side in the same run, so they hold on any machine.
 */
export interface BenchRow {
  label: string;
  value: number;
  limit: number;
  unit: '×' | 'ms' | 's' | 'calls' | '';
  /** What the value is compared with, for the results file (e.g. "node -e 0: 41 ms"). */
  note?: string;
}

/** Median of a non-empty list. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of no values');
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Wall time of `fn`, ms (high-resolution clock). */
export async function timeMs(fn: () => unknown | Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port; // listening on TCP: the address is an object
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/**
 * Least-squares slope of log(y) over log(x): the growth exponent k of y ≈ c·x^k (1 = linear, 2 = quadratic).
 */
export function growthExponent(points: readonly { x: number; y: number }[]): number {
  const xs = points.map((p) => Math.log(p.x));
  const ys = points.map((p) => Math.log(p.y));
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  xs.forEach((x, i) => {
    num += (x - mx) * (ys[i]! - my);
    den += (x - mx) ** 2;
  });
  return num / den;
}

/** Formats a row's value with its unit for the console and the results file. */
export function formatValue(value: number, unit: BenchRow['unit']): string {
  if (unit === '×') return `${value.toFixed(2)}×`;
  if (unit === 'ms') return `${value.toFixed(1)} ms`;
  if (unit === 's') return `${value.toFixed(3)} s`;
  if (unit === 'calls') return `${value} calls`;
  return value.toFixed(3);
}
