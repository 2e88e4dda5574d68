/**
 * Per-route totals of the ledger for `ballast report`. Pure; no I/O. A route is (asset, origin chain,
 * destination chain).
 */
import { FEE_COMPONENTS } from '../policy/feeBreakdown.ts';
import type { LedgerEntry } from './ledgerEntry.ts';
import type { ComponentCosts } from './requestRecord.ts';

/** Transfer statuses that count as finished for the success rate. */
const FINISHED = new Set(['success', 'failure', 'refund', 'origin_failed', 'withdrawn']);

/** One route's totals. Amounts bigint base units, USD micro-USD bigints, times ms. */
export interface RouteReport {
  asset: string;
  originChain: string;
  destinationChain: string;
  /** Transfers created in the window (every status). */
  transfers: number;
  /** Of those, finished (success, failure, refund, origin_failed, withdrawn) and still in flight. */
  finished: number;
  inFlight: number;
  successes: number;
  /** successes ÷ finished, null when none finished. */
  successRate: number | null;
  /** Origin base units moved by successful transfers that have a ledger entry. */
  movedIn: bigint;
  /** Input decimals shared by those entries; null when unknown or they differ. */
  decimalsIn: number | null;
  /** Fee costs summed over ledger entries (successes), micro-USD. */
  fees: ComponentCosts;
  /** Origin gas paid over every ledger entry (native base units), and its decimals (null when they differ). */
  gasPaid: bigint;
  gasDecimals: number | null;
  /** Gas in USD over entries whose gas had a price. */
  gasUsdMicros: bigint;
  /** fees + gas, micro-USD. */
  totalUsdMicros: bigint;
  /** Median and 95th percentile (nearest rank) of settle times of successes, ms; null without any. */
  settleMedianMs: number | null;
  settleP95Ms: number | null;
}

/**
 * Builds route totals from per-status transfer counts and the ledger entries of the same window.
 *
 * @param counts transfers per route and status (every transfer created in the window)
 * @param entries ledger entries of transfers created in the window
 * @returns one report per route, ordered by asset, origin, destination
 */
export function buildRouteReports(
  counts: readonly { asset: string; originChain: string; destinationChain: string; status: string; count: number }[],
  entries: readonly LedgerEntry[],
): RouteReport[] {
  const routes = new Map<string, RouteReport>();
  const settle = new Map<string, number[]>();
  const get = (r: { asset: string; originChain: string; destinationChain: string }): RouteReport => {
    const key = JSON.stringify([r.asset, r.originChain, r.destinationChain]);
    let rep = routes.get(key);
    if (!rep) {
      rep = emptyReport(r);
      routes.set(key, rep);
      settle.set(key, []);
    }
    return rep;
  };
  for (const c of counts) {
    const rep = get(c);
    rep.transfers += c.count;
    if (FINISHED.has(c.status)) rep.finished += c.count;
    else rep.inFlight += c.count;
    if (c.status === 'success') rep.successes += c.count;
  }
  const seenDecimals = new Map<RouteReport, Set<number | null>>();
  const seenGasDecimals = new Map<RouteReport, Set<number>>();
  for (const e of entries) {
    const rep = get(e);
    if (e.fees) for (const k of FEE_COMPONENTS) rep.fees[k] += e.fees[k];
    rep.gasPaid += e.gasPaid ?? 0n;
    rep.gasUsdMicros += e.gasUsdMicros ?? 0n;
    rep.totalUsdMicros += e.totalFeesUsdMicros;
    if (e.gasPaid !== null) add(seenGasDecimals, rep, e.gasDecimals);
    if (e.status !== 'success') continue;
    rep.movedIn += e.amountIn;
    add(seenDecimals, rep, e.decimalsIn);
    if (e.settleMs !== null) settle.get(JSON.stringify([e.asset, e.originChain, e.destinationChain]))!.push(e.settleMs); // set by get()
  }
  for (const [key, rep] of routes) {
    rep.successRate = rep.finished === 0 ? null : rep.successes / rep.finished;
    const d = seenDecimals.get(rep);
    rep.decimalsIn = d && d.size === 1 ? ([...d][0] ?? null) : null;
    const g = seenGasDecimals.get(rep);
    rep.gasDecimals = g && g.size === 1 ? ([...g][0] ?? null) : g ? null : 0;
    const times = settle.get(key)!; // set with the route
    rep.settleMedianMs = median(times);
    rep.settleP95Ms = nearestRank(times, 95);
  }
  return [...routes.values()].sort(
    (a, b) => cmp(a.asset, b.asset) || cmp(a.originChain, b.originChain) || cmp(a.destinationChain, b.destinationChain),
  );
}

/** Median of integers (mean of the two middle values, rounded down, for an even count); null when empty. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : Math.floor((s[mid - 1]! + s[mid]!) / 2);
}

/** Nearest-rank percentile `p` (0 < p ≤ 100): the value at rank ⌈p/100 · n⌉ of the sorted values; null when empty. */
export function nearestRank(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil((p / 100) * s.length) - 1)]!;
}

function emptyReport(r: { asset: string; originChain: string; destinationChain: string }): RouteReport {
  return {
    asset: r.asset,
    originChain: r.originChain,
    destinationChain: r.destinationChain,
    transfers: 0,
    finished: 0,
    inFlight: 0,
    successes: 0,
    successRate: null,
    movedIn: 0n,
    decimalsIn: null,
    fees: { execution: 0n, swap: 0n, platform: 0n, app: 0n },
    gasPaid: 0n,
    gasDecimals: 0,
    gasUsdMicros: 0n,
    totalUsdMicros: 0n,
    settleMedianMs: null,
    settleP95Ms: null,
  };
}

function add<K, V>(m: Map<K, Set<V>>, k: K, v: V): void {
  const s = m.get(k) ?? new Set<V>();
  s.add(v);
  m.set(k, s);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
