/**
 * Fitting a plan to the solver's liquidity (pure; the reads are src/cycle/solverLiquidity.ts). A transfer larger
 * than the solver holds on its destination is refunded, not filled (docs/relay-contract.md "GET /chains/liquidity"),
 * so a transfer that would deliver more than the solver's balance of the destination currency is reduced to that
 * balance when the rest is still at least its minimum, else deferred to a later cycle. Transfers to the same
 * destination currency share the balance in plan order. Gas top-ups are left alone.
 *
 * Amounts are bigint base units: `amountIn` in the origin's decimals, liquidity in the destination's. The delivered
 * amount is taken as the input scaled to the destination's decimals (fees ignored, so the check errs on the side of
 * what the solver must pay).
 */
import { formatUnits } from 'viem';
import type { ChainLiquidity } from '@ballast/protocol/relay/schemas.ts';
import { targetKey } from '../planner/effective.ts';
import { pairBoundsAt } from '../planner/routes.ts';
import type { Plan, PlanInput, PlanDecision, PlannedTransfer, RouteAlternative } from '../planner/types.ts';
import { commonScale, transferBoundsAt } from '../planner/validate.ts';

/** What GET /chains/liquidity gave for one destination chain: its entries, or why it could not be read. */
export type LiquidityAnswer = { entries: readonly ChainLiquidity[] } | { error: string };

/** A destination chain whose liquidity could not be used: its transfers were left as planned. One per chain. */
export interface LiquidityWarning {
  /** Config name of the chain. */
  chain: string;
  chainId: number;
  /** Every distinct reason, `; `-separated (an error, a missing currency, a decimals mismatch). */
  reason: string;
}

/** Result of {@link fitToSolverLiquidity}. */
export interface LiquidityFit {
  /** The plan with transfers reduced or removed and one `solver_liquidity` decision for each. */
  plan: Plan;
  warnings: LiquidityWarning[];
}

/** How one transfer fits the solver's balance: as planned, reduced to `amountIn`, or deferred. */
export type TransferFit =
  | { kind: 'fits'; delivered: bigint }
  | { kind: 'reduced'; amountIn: bigint; delivered: bigint }
  | { kind: 'deferred'; maxAmountIn: bigint };

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/**
 * Destination base units `amountIn` delivers, scaled exactly from `fromDecimals` to `toDecimals` (rounded down).
 */
export function deliveredAmount(amountIn: bigint, fromDecimals: number, toDecimals: number): bigint {
  return (amountIn * pow10(toDecimals)) / pow10(fromDecimals);
}

/**
 * Largest origin amount (base units of `fromDecimals`, rounded down) whose {@link deliveredAmount} is at most `held`
 * destination base units.
 */
export function maxAmountInFor(held: bigint, fromDecimals: number, toDecimals: number): bigint {
  return held <= 0n ? 0n : (held * pow10(fromDecimals)) / pow10(toDecimals);
}

/**
 * Fits one transfer to `held`, the solver's balance left for its destination currency.
 *
 * @param p.minAmountIn the transfer's minimum, origin base units; a reduced transfer is also always > 0
 * @returns `fits` (delivers at most `held`), `reduced` (the largest amount that fits, when at least the minimum) or
 *   `deferred`
 */
export function fitTransferToLiquidity(p: {
  amountIn: bigint;
  fromDecimals: number;
  toDecimals: number;
  held: bigint;
  minAmountIn: bigint;
}): TransferFit {
  const delivered = deliveredAmount(p.amountIn, p.fromDecimals, p.toDecimals);
  if (delivered <= p.held) return { kind: 'fits', delivered };
  const maxIn = maxAmountInFor(p.held, p.fromDecimals, p.toDecimals);
  if (maxIn > 0n && maxIn >= p.minAmountIn) {
    return { kind: 'reduced', amountIn: maxIn, delivered: deliveredAmount(maxIn, p.fromDecimals, p.toDecimals) };
  }
  return { kind: 'deferred', maxAmountIn: maxIn };
}

const HEX_RE = /^0x[0-9a-fA-F]+$/;

/** Whether two currency identifiers name the same currency: 0x hex case-insensitively, anything else exactly. */
export function sameCurrency(a: string, b: string): boolean {
  return HEX_RE.test(a) && HEX_RE.test(b) ? a.toLowerCase() === b.toLowerCase() : a === b;
}

/** The entry of `currency` among a chain's liquidity entries, if any ({@link sameCurrency}). */
export function liquidityEntryFor(entries: readonly ChainLiquidity[], currency: string): ChainLiquidity | undefined {
  return entries.find((e) => sameCurrency(e.address, currency));
}

/** What {@link solverLiquidityDetail} says about one transfer. Amounts in base units. */
export interface SolverLiquidityNote {
  transfer: PlannedTransfer;
  /** The solver's balance the API reported, destination base units. */
  reported: bigint;
  /** What was left of it for this transfer after the earlier ones of the plan, destination base units. */
  held: bigint;
  fit: Exclude<TransferFit, { kind: 'fits' }>;
  minAmountIn: bigint;
}

/**
 * The decision text, e.g. "beta: the solver holds 12000 USDC on beta; transfer alpha → beta reduced from 20000 to
 * 12000 USDC", or "…; transfer alpha → beta of 20000 USDC deferred: at most 500 would be filled, below its minimum
 * 1000 USDC". When earlier transfers of the plan took part of the balance, the text says what they left.
 */
export function solverLiquidityDetail(n: SolverLiquidityNote): string {
  const t = n.transfer;
  const dest = (v: bigint) => `${formatUnits(v, t.to.decimals)} ${t.to.asset}`;
  const orig = (v: bigint) => formatUnits(v, t.from.decimals);
  const left = n.held === n.reported ? '' : `, ${dest(n.held)} of it left after this cycle's earlier transfers`;
  const head = `${t.to.chain}: the solver holds ${dest(n.reported)} on ${t.to.chain}${left}; transfer ${t.from.chain} → ${t.to.chain}`;
  if (n.fit.kind === 'reduced') return `${head} reduced from ${orig(t.amountIn)} to ${orig(n.fit.amountIn)} ${t.asset}`;
  return (
    `${head} of ${orig(t.amountIn)} ${t.asset} deferred: at most ${orig(n.fit.maxAmountIn)} would be filled, ` +
    `below its minimum ${orig(n.minAmountIn)} ${t.asset}`
  );
}

/** `amount` from `fromDecimals` to `toDecimals` when it is a whole number of base units there, else undefined. */
function rescaleExact(amount: bigint, fromDecimals: number, toDecimals: number): bigint | undefined {
  const scaled = deliveredAmount(amount, fromDecimals, toDecimals);
  return deliveredAmount(scaled, toDecimals, fromDecimals) === amount ? scaled : undefined;
}

/** The transfer sending `amountIn` instead; its alternatives send the same value, or are dropped when they cannot. */
function reducedTransfer(t: PlannedTransfer, amountIn: bigint): PlannedTransfer {
  if (!t.alternatives) return { ...t, amountIn };
  const alternatives = t.alternatives.flatMap((a): RouteAlternative[] => {
    const n = rescaleExact(amountIn, t.from.decimals, a.from.decimals);
    return n === undefined || n === 0n ? [] : [{ ...a, amountIn: n }];
  });
  const reduced: PlannedTransfer = { ...t, amountIn, alternatives };
  if (alternatives.length === 0) delete reduced.alternatives;
  return reduced;
}

/**
 * Fits every planned transfer (gas top-ups excepted) to the solver's liquidity on its destination chain.
 *
 * A transfer whose chain has no usable answer (absent from `answers`, an error, no entry for the destination
 * currency, or an entry whose decimals differ from the target's) is left as planned and its chain gets one
 * {@link LiquidityWarning}. Otherwise the transfer is kept, reduced (its alternatives rescaled to the new amount,
 * the amount taken off added back to its donor's `spare`) or removed (all of it back to `spare`), with a
 * `solver_liquidity` decision on the destination chain for each reduced or removed one.
 *
 * @param answers destination chain id → what GET /chains/liquidity gave
 * @param minAmountIn the transfer's minimum in origin base units (e.g. {@link minAmountInFromPlanInput})
 * @returns a new plan (`plan` is not modified) and the warnings
 */
export function fitToSolverLiquidity(
  plan: Plan,
  answers: ReadonlyMap<number, LiquidityAnswer>,
  minAmountIn: (t: PlannedTransfer) => bigint,
): LiquidityFit {
  const transfers: PlannedTransfer[] = [];
  const decisions: PlanDecision[] = [...plan.decisions];
  const spare = plan.spare ? new Map(plan.spare) : undefined;
  const giveBack = (t: PlannedTransfer, amount: bigint) => {
    if (spare) spare.set(targetKey(t.from), (spare.get(targetKey(t.from)) ?? 0n) + amount);
  };
  const used = new Map<string, bigint>();
  const problems = new Map<number, { chain: string; reasons: string[] }>();
  const unusable = (t: PlannedTransfer, reason: string) => {
    const p = problems.get(t.to.chainId) ?? { chain: t.to.chain, reasons: [] };
    if (!p.reasons.includes(reason)) p.reasons.push(reason);
    problems.set(t.to.chainId, p);
    transfers.push(t);
  };

  for (const t of plan.transfers) {
    const answer = answers.get(t.to.chainId);
    if (t.gasTopUp || answer === undefined) {
      transfers.push(t);
      continue;
    }
    if ('error' in answer) {
      unusable(t, answer.error);
      continue;
    }
    const entry = liquidityEntryFor(answer.entries, t.to.currency);
    if (!entry) {
      unusable(t, `no entry for ${t.to.asset} (${t.to.currency})`);
      continue;
    }
    if (entry.decimals !== t.to.decimals) {
      unusable(t, `${t.to.asset} (${t.to.currency}) has ${entry.decimals} decimals there, the target ${t.to.decimals}`);
      continue;
    }
    const key = `${t.to.chainId}\u0000${HEX_RE.test(entry.address) ? entry.address.toLowerCase() : entry.address}`;
    const held = entry.balance - (used.get(key) ?? 0n);
    const min = minAmountIn(t);
    const fit = fitTransferToLiquidity({
      amountIn: t.amountIn,
      fromDecimals: t.from.decimals,
      toDecimals: t.to.decimals,
      held,
      minAmountIn: min,
    });
    if (fit.kind === 'fits') {
      used.set(key, (used.get(key) ?? 0n) + fit.delivered);
      transfers.push(t);
      continue;
    }
    const detail = solverLiquidityDetail({ transfer: t, reported: entry.balance, held, fit, minAmountIn: min });
    decisions.push({ asset: t.asset, chain: t.to.chain, kind: 'solver_liquidity', detail });
    if (fit.kind === 'reduced') {
      used.set(key, (used.get(key) ?? 0n) + fit.delivered);
      transfers.push(reducedTransfer(t, fit.amountIn));
      giveBack(t, t.amountIn - fit.amountIn);
    } else {
      giveBack(t, t.amountIn);
    }
  }

  const warnings = [...problems].map(([chainId, p]) => ({ chain: p.chain, chainId, reason: p.reasons.join('; ') }));
  return { plan: { transfers, decisions, ...(spare ? { spare } : {}) }, warnings };
}

/**
 * The planner's per-transfer minimum for a planned transfer, in origin base units (rounded up): the matching
 * `policy.routes` entry's `minTransfer`, else the asset's (`transferLimits[asset]`, else `minTransfer`), read at the
 * asset's common scale like the planner does (src/planner/validate.ts `transferBoundsAt`, src/planner/routes.ts
 * `pairBoundsAt`).
 *
 * @param input the planner input the plan was made from
 * @throws PlanInputError as `transferBoundsAt` (the planner would have thrown first)
 */
export function minAmountInFromPlanInput(input: PlanInput): (t: PlannedTransfer) => bigint {
  return (t) => {
    const targets = input.targets.filter((x) => x.asset === t.asset);
    const scale = commonScale([...targets, t.from]);
    const bounds = transferBoundsAt(input, scale, t.asset);
    const pair = pairBoundsAt(input, t.asset, scale, bounds)?.(t.from, t.to);
    const minN = pair?.allowed ? pair.minN : bounds.minN;
    const unit = pow10(scale - t.from.decimals);
    return (minN + unit - 1n) / unit;
  };
}
