/**
 * `ballast report` output: the per-route totals of src/ledger/routeReport.ts as a table for people or CSV
 * (RFC 4180, header row first) for spreadsheets. USD values are decimal strings; amounts whole units.
 */
import { formatUnits } from 'viem';
import { formatUsdMicros } from '@ballast/protocol/core/units.ts';
import type { RouteReport } from '../ledger/routeReport.ts';
import { formatWhole, table } from './format.ts';

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

/** The report as CSV: header row, one row per route, `\n` line ends. */
export function reportCsv(routes: readonly RouteReport[]): string {
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
      ]
        .map(csvField)
        .join(','),
    );
  }
  return lines.join('\n');
}

/** The report as a table; `since` is shown in the title line. */
export function reportTable(routes: readonly RouteReport[], sinceMs: number): string {
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
    [
      `execution ${formatUsdMicros(r.fees.execution)}`,
      `swap ${formatUsdMicros(r.fees.swap)}`,
      `platform ${formatUsdMicros(r.fees.platform)}`,
      `app ${formatUsdMicros(r.fees.app)}`,
    ].join('\n'),
    `${r.gasDecimals === null ? `${r.gasPaid} base units` : formatUnits(r.gasPaid, r.gasDecimals)}\n${formatUsdMicros(r.gasUsdMicros)} USD`,
    formatUsdMicros(r.totalUsdMicros),
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
      'fees USD',
      'origin cost (native, USD)',
      'total USD',
      'settle median',
      'settle p95',
    ],
    rows,
  )}`;
}
