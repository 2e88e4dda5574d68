/**
 * The closing lines of a cycle's report, one generator for `ballast plan` and `ballast run --once`: what failed
 * and how to fix it; or which targets are out of band (or unread) and why nothing moves them this cycle, from the
 * planner's decisions (a surplus no deficit takes, a deficit below minTransfer, a refused or paused route, transfers
 * in flight that already cover it, ...). "Every target is in band" is said only when every target was read and
 * every reading is within its band. Pure.
 */
import { formatUnits } from 'viem';
import type { CycleReport } from '../cycle/runCycle.ts';
import type { PlanDecision, TargetBand } from '../planner/types.ts';

/** What the summary needs beyond the report: the config's sweep homes (`policy.sweepTo`), to say whether one is set. */
export interface SummaryOptions {
  /** `policy.sweepTo` of the config: per asset, the home holding `<chain>[:<wallet>]`. */
  sweepTo?: Readonly<Record<string, string>>;
}

/** The line that says nothing is out of band (and nothing is unread). */
export const ALL_IN_BAND = 'nothing to move: every target is in band';

/**
 * The summary of a cycle, one fact a line (indented lines belong to the line above).
 *
 * - The cycle failed (`report.error`): `cycle 3 (plan) failed: <what failed>`, then what was (not) done and the
 *   fix, never a claim about the bands.
 * - Nothing planned: {@link ALL_IN_BAND} when it is true; otherwise `nothing to move this cycle, though …:` and one
 *   line per target out of band or unread, e.g. `USDC alpha is 20000 USDC above max (90000 > 70000 USDC), and no
 *   holding of USDC has a deficit to receive it; set policy.sweepTo.USDC to park surpluses at a home holding`.
 * - Transfers planned: the targets out of band that none of them touches, with their reasons (nothing when none).
 *
 * @param report the cycle's report
 * @param opts the config's `policy.sweepTo`
 */
export function cycleSummary(report: CycleReport, opts: SummaryOptions = {}): string[] {
  if (report.error !== undefined) return failureLines(report);
  const planned = [...report.plan.transfers, ...report.attempts.map((a) => a.planned)];
  const touched = new Set(planned.flatMap((p) => [holdingKey(p.from), holdingKey(p.to)]));
  const problems = [
    ...report.unresolved.map((u) => `${u.asset} ${u.chain} could not be resolved (${u.error}); nothing was planned for it`),
    ...outOfBand(report, opts)
      .filter((o) => !touched.has(holdingKey(o.target)))
      .map((o) => o.line),
  ];
  if (report.plan.transfers.length === 0) {
    if (problems.length === 0) return [ALL_IN_BAND];
    const n = problems.length;
    return [`nothing to move this cycle, though ${n} target${n === 1 ? ' is' : 's are'} out of band or unread:`, ...problems.map(indent)];
  }
  if (problems.length === 0) return [];
  return ['also out of band or unread, and not moved this cycle:', ...problems.map(indent)];
}

/** The first line of a report: `cycle 3 (once): ok`, or `cycle 3 (plan) failed: <error>`. */
export function cycleHeadline(report: Pick<CycleReport, 'cycleId' | 'mode' | 'outcome' | 'error'>): string {
  return report.error !== undefined
    ? `cycle ${report.cycleId} (${report.mode}) failed: ${report.error}`
    : `cycle ${report.cycleId} (${report.mode}): ${report.outcome}`;
}

function indent(line: string): string {
  return `  ${line}`;
}

function holdingKey(t: Pick<TargetBand, 'asset' | 'chain' | 'wallet'>): string {
  return JSON.stringify([t.asset, t.chain, t.wallet]);
}

/** After a failed cycle: what was done before it, and where the fix is. */
function failureLines(report: CycleReport): string[] {
  const error = report.error ?? '';
  const done =
    report.attempts.length > 0
      ? `the ${report.attempts.length} transfer(s) attempted before the failure are in the table above`
      : report.mode === 'plan'
        ? 'nothing was planned or signed'
        : 'nothing was signed or moved this cycle';
  const fix = /\brelay\b|\b(GET|POST) \//i.test(error)
    ? 'check the Relay API: `ballast api-check` probes every endpoint Ballast uses at relay.baseUrl'
    : 'the log lines on stderr carry the cause; `ballast check-config` checks the configuration offline';
  return [`${done}; ${fix}`];
}

/** One target out of band (by its reading) or unread, with the line that says why nothing moves it. */
interface OutOfBand {
  target: TargetBand;
  line: string;
}

function outOfBand(report: CycleReport, opts: SummaryOptions): OutOfBand[] {
  const perChain = new Map<string, number>();
  for (const t of report.targets) perChain.set(`${t.asset}|${t.chain}`, (perChain.get(`${t.asset}|${t.chain}`) ?? 0) + 1);
  const out: OutOfBand[] = [];
  report.targets.forEach((t, i) => {
    const label = `${t.asset} ${t.chain}${(perChain.get(`${t.asset}|${t.chain}`) ?? 0) > 1 ? ` (${t.wallet})` : ''}`;
    const reading = report.balances[i];
    if (!reading || reading.amount === null) {
      out.push({ target: t, line: `${label} could not be read (${reading?.error ?? 'no reading'}); nothing was planned for it` });
      return;
    }
    const b = reading.amount;
    if (b >= t.min && b <= t.max) return;
    const decisions = report.plan.decisions.filter((d) => d.asset === t.asset && d.chain === t.chain);
    const fmt = (n: bigint) => formatUnits(n, t.decimals);
    const state =
      b > t.max
        ? `${label} is ${fmt(b - t.max)} ${t.asset} above max (${fmt(b)} > ${fmt(t.max)} ${t.asset})`
        : `${label} is ${fmt(t.min - b)} ${t.asset} below min (${fmt(b)} < ${fmt(t.min)} ${t.asset})`;
    // Holdings of the same asset that could not be read: whether they need or give is unknown this cycle.
    const unread = report.targets
      .filter((o, j) => o.asset === t.asset && (report.balances[j]?.amount ?? null) === null)
      .map((o) => o.chain);
    const why =
      coveredReason(decisions) ?? (b > t.max ? surplusReason(t, decisions, report, opts, unread) : deficitReason(t, decisions, unread));
    out.push({ target: t, line: `${state}, and ${why}` });
  });
  return out;
}

function find(decisions: readonly PlanDecision[], kind: PlanDecision['kind']): PlanDecision | undefined {
  return decisions.find((d) => d.kind === kind);
}

/** Why a target out of band by its reading needs nothing: in band once transfers in flight (and needs) are counted, or a paused route. */
function coveredReason(decisions: readonly PlanDecision[]): string | undefined {
  const paused = find(decisions, 'route_paused');
  if (paused) return `its route is paused: ${paused.detail}`;
  if (!find(decisions, 'in_band')) return undefined;
  const credited = find(decisions, 'in_flight_credited');
  return credited
    ? `transfers in flight already cover it (${credited.detail})`
    : 'it is in band once its transfers in flight and needs are counted';
}

/** Why a surplus moves nothing: it gives nothing, the flow strategy keeps it, no deficit takes it, the sweep did not. */
function surplusReason(
  t: TargetBand,
  decisions: readonly PlanDecision[],
  report: CycleReport,
  opts: SummaryOptions,
  unread: readonly string[],
): string {
  const unused = find(decisions, 'surplus_unused');
  const givesNothing = unused?.detail.indexOf('gives nothing: ') ?? -1;
  if (unused && givesNothing >= 0) return `it gives nothing: ${unused.detail.slice(givesNothing + 'gives nothing: '.length)}`;
  if (find(decisions, 'surplus')?.detail.includes('left where it is unless a deficit needs it'))
    return 'the flow strategy leaves it where it is unless a deficit needs it';
  if (unread.length > 0)
    return `no holding of ${t.asset} that was read has a deficit to receive it (${unread.join(', ')} could not be read)`;
  const home = opts.sweepTo?.[t.asset];
  const noDeficit = `no holding of ${t.asset} has a deficit to receive it`;
  if (home === undefined) return `${noDeficit}; set policy.sweepTo.${t.asset} to park surpluses at a home holding`;
  const [homeChain, homeWallet] = home.split(':');
  if (homeChain === t.chain && (homeWallet === undefined || homeWallet === t.wallet))
    return `${noDeficit}; it is the sweep home (policy.sweepTo.${t.asset}), which keeps what it receives`;
  const asset = report.plan.decisions.filter((d) => d.asset === t.asset);
  const sweep =
    asset.find((d) => d.kind === 'sweep') ?? asset.find((d) => d.kind === 'below_min_transfer' || d.kind === 'route_not_allowed');
  return `${noDeficit}, and the sweep to ${home} (policy.sweepTo.${t.asset}) did not take it${sweep ? `: ${sweep.detail}` : ''}`;
}

/** Why a deficit moves nothing: refused routes, below minTransfer, the solver's liquidity; else no surplus to give. */
function deficitReason(t: TargetBand, decisions: readonly PlanDecision[], unread: readonly string[]): string {
  const refused = find(decisions, 'route_not_allowed');
  const small = find(decisions, 'below_min_transfer');
  const liquidity = find(decisions, 'solver_liquidity');
  const reasons = [
    refused ? `the route that could fill it is refused (${refused.detail}; see policy.routes, policy.onlyListedRoutes)` : '',
    small ? `it waits: ${small.detail}` : '',
    liquidity ? `the solver cannot fill it now: ${liquidity.detail}` : '',
  ].filter(Boolean);
  if (reasons.length > 0) return reasons.join('; ');
  const unmet = find(decisions, 'deficit_unmet');
  const read = unread.length > 0 ? ` that was read (${unread.join(', ')} could not be read)` : '';
  return `no holding of ${t.asset}${read} has a surplus to give it${unmet ? ` (${unmet.detail})` : ''}`;
}
