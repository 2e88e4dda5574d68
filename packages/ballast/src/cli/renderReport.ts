/**
 * Renders a cycle report for people (tables) or machines (JSON with bigints as strings).
 */
import type { CycleReport } from '../cycle/runCycle.ts';
import { sumPayments, type TransferAttempt } from '../cycle/processTransfer.ts';
import { formatAmount, formatUsd, roundUsd, shortHash, table, toJson } from './format.ts';
import { cycleHeadline, cycleSummary, type SummaryOptions } from './cycleSummary.ts';

/** Balance table: one row per target with its band and state. */
export function renderBalances(report: CycleReport): string {
  return table(
    ['asset', 'chain', 'wallet', 'balance', 'min', 'target', 'max', 'state'],
    report.targets.map((t, i) => {
      const b = report.balances[i]?.amount ?? null;
      const state =
        b === null ? `unreadable: ${report.balances[i]?.error ?? ''}` : b < t.min ? 'below min' : b > t.max ? 'above max' : 'in band';
      return [
        t.asset,
        t.chain,
        t.wallet,
        formatAmount(b, t.decimals),
        formatAmount(t.min, t.decimals),
        formatAmount(t.target, t.decimals),
        formatAmount(t.max, t.decimals),
        state,
      ];
    }),
  );
}

function feeCell(a: TransferAttempt): string {
  if (!a.fee) return '—';
  const b = a.fee.breakdown;
  if (!b) return a.fee.accepted ? 'accepted' : `SKIP ${a.fee.reason}`;
  // Rounded for people (src/cli/format.ts); `--json` keeps the micro-USD.
  const parts = Object.entries(b.components).map(([k, v]) => `${k} ${roundUsd(v)}`);
  const head = a.fee.accepted ? `quoted ${formatUsd(b.totalMicros)}` : `SKIP ${a.fee.reason}: ${a.fee.detail}`;
  return `${head}\n${parts.join(', ')}`;
}

function verdictCell(a: TransferAttempt): string {
  if (!a.verdict) return '—';
  if (a.verdict.ok) return `ok (${a.verdict.rules.length} rules)`;
  return a.verdict.rules
    .filter((r) => !r.ok)
    .map((r) => `FAIL ${r.rule}: ${r.detail}`)
    .join('\n');
}

/**
 * Planned transfers with their quote, fees, verdict and outcome; empty when nothing was planned (the summary of
 * src/cli/cycleSummary.ts says why). A transfer that reached the store is named by its id there (`#4`), as
 * `history`, `resume` and `withdraw` name it.
 */
export function renderAttempts(report: CycleReport): string {
  if (report.plan.transfers.length === 0) return '';
  const rows = report.plan.transfers.map((planned, i) => {
    const a = report.attempts[i];
    // The transfer as attempted: route choice may have moved it to another donor.
    const p = a?.planned ?? planned;
    // The guaranteed output as signed in the order (verified), not the informational details block.
    const payments = a?.quote?.protocol?.v2?.orderData.output.payments;
    const out = payments ? formatAmount(sumPayments(payments, 'minimumAmount'), p.to.decimals) : '—';
    // A gas top-up buys another asset (the destination's native token): say which, and for which signer.
    const id = a?.transferId !== undefined ? `#${a.transferId} ` : '';
    const route = p.gasTopUp
      ? `${id}gas top-up: ${p.asset} ${p.from.chain} → ${p.to.asset} ${p.to.chain} (${p.to.wallet})`
      : `${id}${p.asset} ${p.from.chain} → ${p.to.chain}`;
    return [
      route,
      formatAmount(p.amountIn, p.from.decimals),
      p.gasTopUp && out !== '—' ? `${out} ${p.to.asset}` : out,
      a ? feeCell(a) : '—',
      a ? verdictCell(a) : '—',
      a ? `${a.outcome}${a.error ? `: ${a.error}` : ''}${routeChoiceNote(a)}` : 'not attempted',
      (a?.originTxHashes ?? []).map(shortHash).join('\n') || '—',
    ];
  });
  return table(['transfer', 'amount in', 'min out', 'fees', 'verification', 'outcome', 'origin txs'], rows);
}

/** The candidates route choice weighed for an attempt, one line: "route choice: gamma 0.05 USD chosen; alpha 1.05 USD costlier". */
function routeChoiceNote(a: TransferAttempt): string {
  if (!a.candidates) return '';
  const parts = a.candidates.map(
    (c) => `${c.planned.from.chain}${c.feesMicros !== undefined ? ` ${formatUsd(c.feesMicros)}` : ''} ${c.outcome}`,
  );
  return `\nroute choice: ${parts.join('; ')}`;
}

/** Planner decisions worth showing (everything but plain in-band). */
export function renderDecisions(report: CycleReport): string {
  const rows = report.plan.decisions.filter((d) => d.kind !== 'in_band').map((d) => [d.asset, d.chain ?? '', d.kind, d.detail]);
  return rows.length ? table(['asset', 'chain', 'decision', 'detail'], rows) : '';
}

/**
 * Why each planned transfer is proposed, in words (the planner's reason: the deficit and surplus it closes, the
 * route rule that set its bounds, a batched minimum), one numbered line per transfer in the attempts' order.
 */
export function renderReasons(report: CycleReport): string {
  if (report.plan.transfers.length === 0) return '';
  const funds = (ids: readonly number[] | undefined) =>
    ids?.length ? `; funds ${ids.length === 1 ? 'need' : 'needs'} ${ids.map((id) => `#${id}`).join(', ')}` : '';
  const lines = report.plan.transfers.map((p, i) => `  ${i + 1}. ${p.asset} ${p.from.chain} → ${p.to.chain}: ${p.reason}${funds(p.funds)}`);
  return ['why:', ...lines].join('\n');
}

/**
 * The full human report: the headline, the balance table (when any target was resolved), the planner's decisions,
 * the transfers with their quotes, fees and outcomes, why each was planned, and the closing summary of
 * src/cli/cycleSummary.ts (what failed and the fix, or what is out of band and why nothing moved it).
 *
 * @param opts the config's `policy.sweepTo`, so the summary says whether a sweep home is set
 */
export function renderReport(report: CycleReport, opts: SummaryOptions = {}): string {
  return [
    cycleHeadline(report),
    report.targets.length > 0 ? renderBalances(report) : '',
    renderDecisions(report),
    renderAttempts(report),
    renderReasons(report),
    ...cycleSummary(report, opts),
  ]
    .filter(Boolean)
    .join('\n');
}

/** The report as JSON (quotes omitted except their ids, to keep output small). */
export function reportJson(report: CycleReport): string {
  return toJson({
    ...report,
    attempts: report.attempts.map(({ quote: _quote, ...rest }) => rest),
  });
}
