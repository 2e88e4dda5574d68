/**
 * Route choice: when several donors could fill a deficit, quote them in parallel (bounded by
 * `policy.routeChoice.parallelQuotes`, every quote also waiting for the client's /quote rate limit, docs/relay-contract.md
 * "Limits"), put each through the fee policy and local verification (src/cycle/checkQuote.ts), and keep the
 * cheapest by total fees in USD that passed. The alternatives and why each lost are recorded
 * (`route_candidates`), counted (`ballast_route_candidates_total`) and logged. Nothing here signs.
 */
import pLimit from 'p-limit';
import { formatUnits } from 'viem';
import type { PlannedTransfer } from '../planner/types.ts';
import { targetKey } from '../planner/effective.ts';
import { formatUsdMicros } from '@ballast/protocol/core/units.ts';
import { recordRouteCandidates, type RouteCandidateOutcome } from '../store/routeCandidates.ts';
import { checkQuote, guaranteedOut, type CheckArgs, type CheckQuoteDeps, type CheckStage } from './checkQuote.ts';
import type { CheckedAttempt } from './transferAttempt.ts';

/** One candidate route of a planned transfer and how it fared. `rank` 0 is the planner's pick. */
export interface RouteCandidate {
  rank: number;
  planned: PlannedTransfer;
  outcome: RouteCandidateOutcome;
  /** Total fees the fee policy counted, micro-USD (quoted candidates whose fees were evaluated). */
  feesMicros?: bigint;
  /** Output the order guarantees, destination base units. */
  minOut?: bigint;
  quoteId?: number;
  detail: string;
}

/** Route choice settings (`policy.routeChoice`) and the cycle's spare surplus per donor (donor base units). */
export interface RouteChoiceOptions {
  spare: Map<string, bigint>;
  maxCandidates: number;
  parallelQuotes: number;
}

/**
 * Checks the planner's pick and its alternatives and returns the attempt of the one to go on with.
 *
 * Candidates: the planner's pick, then each alternative whose donor's spare still covers it, up to
 * `maxCandidates` and to the /quote slots free now under the client's rate limit (alternatives beyond are
 * `not_quoted`, those without spare `no_spare`). The winner is the
 * passing candidate with the lowest total fees in USD; ties go to the larger guaranteed output, then to the lower
 * rank (the planner's pick first). When an alternative wins, its spare shrinks by what it sends and the planner's
 * donor gets its amount back as spare, so later transfers of the cycle never count one surplus twice. When no
 * candidate passes, the planner's pick's attempt is returned as it ended (e.g. `skipped_fee`).
 *
 * @param onStage called for the winner only (`quoted`, `verified`), once the choice is made
 * @returns the winner's attempt (outcome `quoted`), with `candidates` and its `planned` replaced by the winner's
 * @throws only on store failures
 */
export async function chooseRoute(
  ctx: CheckQuoteDeps,
  args: CheckArgs,
  opts: RouteChoiceOptions,
  onStage: (stage: CheckStage, minOut: bigint | undefined) => void = () => {},
): Promise<CheckedAttempt> {
  const pick = args.planned;
  const candidates: RouteCandidate[] = [{ rank: 0, planned: pick, outcome: 'not_quoted', detail: "the planner's pick" }];
  for (const [i, alt] of (pick.alternatives ?? []).entries()) {
    const planned: PlannedTransfer = {
      ...pick,
      from: alt.from,
      amountIn: alt.amountIn,
      reason: `${pick.reason}; alternative donor: ${alt.why}`,
    };
    delete planned.alternatives;
    const spare = opts.spare.get(targetKey(alt.from)) ?? 0n;
    const c: RouteCandidate = { rank: i + 1, planned, outcome: 'not_quoted', detail: alt.why };
    if (spare < alt.amountIn)
      Object.assign(c, {
        outcome: 'no_spare',
        detail: `${describe(planned)}: its spare surplus ${formatUnits(spare, alt.from.decimals)} no longer covers it (an earlier transfer of this cycle took it)`,
      });
    else if (candidates.filter((x) => x.outcome === 'not_quoted').length >= opts.maxCandidates)
      Object.assign(c, { detail: `${alt.why}; not quoted: policy.routeChoice.maxCandidates is ${opts.maxCandidates}` });
    candidates.push(c);
  }
  // Rate-limit aware: alternatives are quoted only from /quote slots free right now, so route choice never makes
  // a cycle wait for the limit (the planner's pick is always quoted, waiting if it must).
  const free = ctx.relay.quoteSlotsFree?.() ?? Number.POSITIVE_INFINITY;
  const quotable = Math.max(1, Math.min(opts.maxCandidates, free));
  const open = candidates.filter((c) => c.outcome === 'not_quoted');
  for (const c of open.slice(quotable, opts.maxCandidates))
    c.detail = `${c.detail}; not quoted: only ${free} /quote slot(s) free under the rate limit this minute`;
  const toQuote = open.slice(0, quotable);
  const limit = pLimit(opts.parallelQuotes);
  const attempts = new Map<RouteCandidate, CheckedAttempt>();
  await Promise.all(toQuote.map((c) => limit(async () => void attempts.set(c, await checkQuote(ctx, { ...args, planned: c.planned })))));

  for (const [c, a] of attempts) {
    if (a.fee?.breakdown) c.feesMicros = a.fee.breakdown.totalMicros;
    if (a.quote) c.minOut = guaranteedOut(a.quote);
    if (a.quoteId !== undefined) c.quoteId = a.quoteId;
    c.outcome =
      a.outcome === 'quoted' ? 'costlier' : a.outcome === 'skipped_fee' || a.outcome === 'refused_verification' ? a.outcome : 'quote_error';
    c.detail = a.outcome === 'quoted' ? describe(c.planned) : `${describe(c.planned)}: ${whyNot(a)}`;
  }
  const passed = toQuote.filter((c) => attempts.get(c)!.outcome === 'quoted').sort(cheaperFirst);
  const winner = passed[0];
  if (!winner) {
    await record(ctx, args, candidates, pick);
    return { ...attempts.get(candidates[0]!)!, planned: pick, candidates };
  }
  winner.outcome = 'chosen';
  for (const c of passed.slice(1)) {
    c.detail = `${c.detail}: fees ${usd(c.feesMicros)} USD, ${usd((c.feesMicros ?? 0n) - (winner.feesMicros ?? 0n))} USD more than ${winner.planned.from.chain}`;
  }
  winner.detail = `${describe(winner.planned)}: fees ${usd(winner.feesMicros)} USD, the cheapest of ${passed.length} passing candidate(s) out of ${toQuote.length} quoted`;
  const won = attempts.get(winner)!;
  const planned: PlannedTransfer =
    winner.rank === 0
      ? pick
      : {
          ...winner.planned,
          reason: `${pick.reason}; route choice: ${winner.planned.from.chain} (${winner.planned.from.wallet}) sends instead of ${pick.from.chain}, fees ${usd(winner.feesMicros)} USD`,
        };
  if (winner.rank !== 0) {
    const altKey = targetKey(winner.planned.from);
    const pickKey = targetKey(pick.from);
    opts.spare.set(altKey, (opts.spare.get(altKey) ?? 0n) - winner.planned.amountIn);
    opts.spare.set(pickKey, (opts.spare.get(pickKey) ?? 0n) + pick.amountIn);
    const first = candidates[0]!;
    if (first.outcome === 'costlier' && first.feesMicros !== undefined && winner.feesMicros !== undefined) {
      ctx.metrics.routeChoiceSavedUsdTotal.inc({ asset: pick.asset }, Number(first.feesMicros - winner.feesMicros) / 1e6);
    }
  }
  await record(ctx, args, candidates, pick);
  onStage('quoted', winner.minOut);
  onStage('verified', winner.minOut);
  return { ...won, planned, candidates };
}

/** Lower total fees first, then the larger guaranteed output, then the lower rank. */
function cheaperFirst(a: RouteCandidate, b: RouteCandidate): number {
  const fa = a.feesMicros ?? 0n;
  const fb = b.feesMicros ?? 0n;
  if (fa !== fb) return fa < fb ? -1 : 1;
  const oa = a.minOut ?? 0n;
  const ob = b.minOut ?? 0n;
  if (oa !== ob) return oa > ob ? -1 : 1;
  return a.rank - b.rank;
}

/** Writes the candidates, counts them and logs the choice in one line. */
async function record(
  ctx: Pick<CheckQuoteDeps, 'db' | 'metrics' | 'logger' | 'now'>,
  args: CheckArgs,
  candidates: readonly RouteCandidate[],
  pick: PlannedTransfer,
): Promise<void> {
  const decidedAtMs = ctx.now();
  await recordRouteCandidates(
    ctx.db,
    candidates.map((c) => ({
      cycleId: args.cycleId,
      planId: args.planId,
      rank: c.rank,
      originChain: c.planned.from.chain,
      originWallet: c.planned.from.wallet,
      amountIn: c.planned.amountIn,
      ...(c.quoteId !== undefined ? { quoteId: c.quoteId } : {}),
      ...(c.feesMicros !== undefined ? { feesUsd: formatUsdMicros(c.feesMicros) } : {}),
      ...(c.minOut !== undefined ? { minOut: c.minOut } : {}),
      outcome: c.outcome,
      detail: c.detail,
      decidedAtMs,
    })),
  );
  for (const c of candidates) ctx.metrics.routeCandidatesTotal.inc({ asset: pick.asset, outcome: c.outcome });
  const chosen = candidates.find((c) => c.outcome === 'chosen');
  ctx.logger.info(
    {
      component: 'route-choice',
      asset: pick.asset,
      to: pick.to.chain,
      chosen: chosen ? chosen.planned.from.chain : null,
      candidates: candidates.map((c) => ({
        from: c.planned.from.chain,
        wallet: c.planned.from.wallet,
        outcome: c.outcome,
        ...(c.feesMicros !== undefined ? { feesUsd: formatUsdMicros(c.feesMicros) } : {}),
      })),
    },
    chosen ? `route choice: ${chosen.detail}` : `route choice: no candidate passed for ${pick.asset} → ${pick.to.chain}`,
  );
}

function describe(p: PlannedTransfer): string {
  return `${p.from.chain} (${p.from.wallet}) → ${p.to.chain}: ${formatUnits(p.amountIn, p.from.decimals)} ${p.asset}`;
}

function usd(micros: bigint | undefined): string {
  return micros === undefined ? '?' : formatUsdMicros(micros);
}

/** Why a checked candidate did not pass, in one line. */
function whyNot(a: CheckedAttempt): string {
  if (a.outcome === 'skipped_fee') return `fee policy: ${a.fee.reason}: ${a.fee.detail}`;
  if (a.outcome === 'refused_verification')
    return `verification refused: ${a.verdict.rules
      .filter((r) => !r.ok)
      .map((r) => r.rule)
      .join(', ')}`;
  return a.error ?? a.outcome;
}
