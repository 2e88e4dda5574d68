/**
 * `ballast report` output: the per-route totals of src/ledger/routeReport.ts as a table for people or CSV
 * (RFC 4180, header row first) for spreadsheets. The table sets the fees quoted beside the fees paid (Relay and
 * network, the network cost in the origin's native currency with its symbol), rounded for people
 * (src/cli/format.ts); CSV keeps every digit: USD decimal strings, amounts whole units and base units.
 */
import { formatUnits } from 'viem';
import { formatUsdMicros } from '@ballast/protocol/core/units.ts';
import type { RouteReport } from '../ledger/routeReport.ts';
import { formatUsd, formatWhole, table } from './format.ts';
import { componentLine, networkCost, relayFeeMicros } from './renderFees.ts';

/** What the report adds to the ledger's route totals: fees quoted, and the origin chains' native symbols. */
export interface ReportExtras {
  /** Micro-USD quoted over the route's ledger entries that recorded a quoted fee, by {@link routeKey}. */
  quotedUsdMicros?: ReadonlyMap<string, bigint>;
  /** Native currency symbol per origin chain (e.g. `alpha` → `ETH`). */
  nativeSymbols?: ReadonlyMap<string, string>;
}

/** The key of a route in {@link ReportExtras}. */
export function routeKey(r: { asset: string; originChain: string; destinationChain: string }): string {
  return JSON.stringify([r.asset, r.originChain, r.destinationChain]);
}

/**
 * Sums the quoted fees of ledger entries per route.
 *
 * @param entries the ledger entries the report counts
 * @param quoted micro-USD quoted per transfer id (src/store/quotedFees.ts)
 */
export function quotedByRoute(
  entries: readonly { transferId: number; asset: string; originChain: string; destinationChain: string }[],
  quoted: ReadonlyMap<number, bigint>,
): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const e of entries) {
    const q = quoted.get(e.transferId);
    if (q !== undefined) out.set(routeKey(e), (out.get(routeKey(e)) ?? 0n) + q);
  }
  return out;
}

/** CSV columns, in order. */
export const REPORT_CSV_HEADER = [
  'asset',
  'origin_chain',
  'destination_chain',
  'transfers',
  'finished',
  'in_flight',
  'successes',
  'success_rate',
  'moved',
  'moved_base_units',
  'decimals_in',
  'fee_execution_usd',
  'fee_swap_usd',
  'fee_platform_usd',
  'fee_app_usd',
  'gas_paid_native',
  'gas_paid_base_units',
  'gas_usd',
  'total_fees_usd',
  'settle_median_s',
  'settle_p95_s',
  'quoted_fees_usd',
] as const;

/** Seconds with millisecond precision from integer ms (`12345` → `"12.345"`); empty for null. */
function seconds(ms: number | null): string {
  return ms === null ? '' : (ms / 1000).toFixed(3);
}

/** Whole units of `amount`, or '' when the decimals are unknown (the base-unit column still has it). */
function whole(amount: bigint, decimals: number | null): string {
  return decimals === null ? (amount === 0n ? '0' : '') : formatUnits(amount, decimals);
}

/** Quotes a CSV field when it holds a comma, quote or line break (RFC 4180). */
function csvField(v: string | number): string {
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * The report as CSV: header row, one row per route, `\n` line ends. `quoted_fees_usd` (last, so earlier columns
 * keep their places) is empty when no quoted fees were given.
 */
export function reportCsv(routes: readonly RouteReport[], extras: ReportExtras = {}): string {
  const lines = [REPORT_CSV_HEADER.join(',')];
  for (const r of routes) {
    lines.push(
      [
        r.asset,
        r.originChain,
        r.destinationChain,
        r.transfers,
        r.finished,
        r.inFlight,
        r.successes,
        r.successRate === null ? '' : r.successRate.toFixed(4),
        whole(r.movedIn, r.decimalsIn),
        r.movedIn.toString(),
        r.decimalsIn ?? '',
        formatUsdMicros(r.fees.execution),
        formatUsdMicros(r.fees.swap),
        formatUsdMicros(r.fees.platform),
        formatUsdMicros(r.fees.app),
        whole(r.gasPaid, r.gasDecimals),
        r.gasPaid.toString(),
        formatUsdMicros(r.gasUsdMicros),
        formatUsdMicros(r.totalUsdMicros),
        seconds(r.settleMedianMs),
        seconds(r.settleP95Ms),
        quotedOf(r, extras) === null ? '' : formatUsdMicros(quotedOf(r, extras)!), // checked just before
      ]
        .map(csvField)
        .join(','),
    );
  }
  return lines.join('\n');
}

function quotedOf(r: RouteReport, extras: ReportExtras): bigint | null {
  return extras.quotedUsdMicros?.get(routeKey(r)) ?? null;
}

/**
 * The report as a table; `since` is shown in the title line. Fees: `quoted` beside `paid` (its total, the Relay
 * components, the network cost in the native currency and USD), every USD figure rounded for people.
 */
export function reportTable(routes: readonly RouteReport[], sinceMs: number, extras: ReportExtras = {}): string {
  const title = `transfers created since ${new Date(sinceMs).toISOString()}`;
  if (routes.length === 0) return `${title}: none`;
  const rows = routes.map((r) => [
    r.asset,
    `${r.originChain} → ${r.destinationChain}`,
    r.transfers,
    r.successes,
    r.successRate === null ? '—' : `${(r.successRate * 100).toFixed(1)} %`,
    r.inFlight,
    r.movedIn === 0n ? `0 ${r.asset}` : formatWhole(r.movedIn, r.decimalsIn, r.asset),
    formatUsd(quotedOf(r, extras)),
    [
      `total ${formatUsd(r.totalUsdMicros)}`,
      `Relay ${formatUsd(relayFeeMicros(r.fees))}: ${componentLine(r.fees)}`,
      `network ${networkCost(r.gasPaid, r.gasDecimals, extras.nativeSymbols?.get(r.originChain) ?? null, r.originChain, r.gasUsdMicros)}`,
    ].join('\n'),
    r.settleMedianMs === null ? '—' : `${seconds(r.settleMedianMs)} s`,
    r.settleP95Ms === null ? '—' : `${seconds(r.settleP95Ms)} s`,
  ]);
  return `${title}\n${table(
    [
      'asset',
      'route',
      'transfers',
      'successes',
      'success rate',
      'in flight',
      'moved',
      'fees quoted',
      'fees paid',
      'settle median',
      'settle p95',
    ],
    rows,
  )}`;
}
