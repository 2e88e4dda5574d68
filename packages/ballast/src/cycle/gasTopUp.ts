/**
 * Gas top-ups in the cycle (`chains.<name>.gasTopUp`): after the signers' gas balances are read
 * (src/cycle/gasBalances.ts), each signer below `minGasBalance` on a chain with a top-up gets a cross-asset
 * transfer planned by src/planner/gasTopUp.ts, which the cycle then runs through `processTransfer` like any
 * other (quote → fee policy → verification → spending limits → write-ahead → sign → track), before the
 * rebalancing transfers so a signer topped up can pay for its deposits in the same cycle. In `plan` and
 * monitor-only mode the top-up is quoted and judged, never signed.
 *
 * This module resolves the configured amounts to base units with this cycle's decimals, names the native token
 * (GET /chains, docs/relay-contract.md "Chain object"), logs every decision and counts the outcomes in
 * `ballast_gas_top_ups_total`.
 */
import { formatUnits } from 'viem';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { wholeToBaseUnits } from '@ballast/protocol/core/units.ts';
import { routeRuleFor } from '../planner/routes.ts';
import { planGasTopUps, type GasTopUpPlan, type GasTopUpRule, type GasTopUpSkip, type SignerGas } from '../planner/gasTopUp.ts';
import type { ChainAdapter } from '../chains/adapter.ts';
import type { LoadedGasTopUp } from '../config/gasTopUp.ts';
import type { BalanceReading, InFlightTransfer, TargetBand } from '../planner/types.ts';
import type { ChainsResponse } from '@ballast/protocol/relay/schemas.ts';
import type { CycleContext } from './context.ts';
import type { GasReading } from './gasBalances.ts';
import type { TransferAttempt } from './processTransfer.ts';

/** Outcomes of a low signer left without a top-up that `ballast_gas_top_ups_total` counts (not `in_flight`: one is under way). */
const COUNTED_SKIPS: ReadonlySet<string> = new Set(['route_not_allowed', 'source_short', 'source_unreadable', 'amount_invalid']);

/** Input of {@link planCycleGasTopUps}: this cycle's targets (bands applied), readings, gas readings and in-flight view. */
export interface CycleGasTopUpInput {
  targets: readonly TargetBand[];
  balances: readonly BalanceReading[];
  gas: readonly GasReading[];
  inFlight: readonly InFlightTransfer[];
  chainsDoc: ChainsResponse;
}

/**
 * Plans this cycle's gas top-ups and logs each decision (info when one is planned or one is in flight, warn
 * when a low signer gets none).
 *
 * @returns the plan (src/planner/gasTopUp.ts); a top-up whose amounts cannot be put in base units this cycle is
 *   skipped with a decision: the source's decimals unknown (`source_unreadable`), or `amount` finer than them
 *   (`amount_invalid`)
 */
export function planCycleGasTopUps(
  ctx: Pick<CycleContext, 'config' | 'chains' | 'wallets' | 'logger'>,
  input: CycleGasTopUpInput,
): GasTopUpPlan {
  const log = ctx.logger.child({ component: 'gas' });
  const rules: GasTopUpRule[] = [];
  const unresolved: GasTopUpSkip[] = [];
  for (const [name, chain] of Object.entries(ctx.config.chains)) {
    const adapter = ctx.chains.get(name);
    const low = input.gas.filter((g) => g.chain === name && g.low);
    if (!chain.gasTopUp || !adapter || low.length === 0) continue;
    const rule = ruleFor(name, chain.gasTopUp, adapter, input);
    if ('source' in rule) rules.push(rule);
    else
      for (const g of low)
        unresolved.push({
          chain: name,
          wallet: g.wallet,
          reason: rule.reason,
          detail: `${g.wallet} is below minGasBalance on ${name}; no top-up: ${rule.why}`,
        });
  }
  const signers: SignerGas[] = input.gas.flatMap((g) => {
    const address = ctx.wallets.get(g.wallet)?.address;
    return address === undefined
      ? []
      : [{ chain: g.chain, wallet: g.wallet, address, amount: g.amount, ...(g.min !== undefined ? { min: g.min } : {}) }];
  });
  // A route policy.routes refuses is refused to a top-up as to any other transfer.
  const routeRefusal = (source: TargetBand, to: { chain: string; wallet: string }) => {
    const route = routeRuleFor(ctx.config.policy, source, { asset: source.asset, ...to });
    return route.allowed ? undefined : route.text;
  };
  const plan = planGasTopUps({ rules, signers, balances: input.balances, inFlight: input.inFlight, routeRefusal });
  for (const t of plan.transfers) {
    log.info(
      { chain: t.to.chain, wallet: t.to.wallet, from: t.from.chain, asset: t.asset, amountIn: formatUnits(t.amountIn, t.from.decimals) },
      t.reason,
    );
  }
  for (const s of [...unresolved, ...plan.skipped]) {
    if (s.reason === 'in_flight') log.info({ chain: s.chain, wallet: s.wallet, reason: s.reason }, s.detail);
    else log.warn({ chain: s.chain, wallet: s.wallet, reason: s.reason }, s.detail);
  }
  const sourceOf = (chain: string) => ctx.config.chains[chain]?.gasTopUp?.from.asset ?? '';
  return {
    ...plan,
    decisions: [
      ...unresolved.map((s) => ({ asset: sourceOf(s.chain), chain: s.chain, kind: 'gas_top_up' as const, detail: s.detail })),
      ...plan.decisions,
    ],
    skipped: [...unresolved, ...plan.skipped],
  };
}

/** The rule of one chain with its amounts in base units, or why it cannot be made this cycle. */
function ruleFor(
  name: string,
  topUp: LoadedGasTopUp,
  adapter: ChainAdapter,
  input: CycleGasTopUpInput,
): GasTopUpRule | { reason: 'source_unreadable' | 'amount_invalid'; why: string } {
  const { asset, chain, wallet } = topUp.from;
  const source = input.targets.find((t) => t.asset === asset && t.chain === chain && t.wallet === wallet);
  if (!source)
    return {
      reason: 'source_unreadable',
      why: `the decimals of ${asset} on ${chain} are unknown this cycle (its chain or GET /chains could not be read)`,
    };
  let amountIn: bigint;
  let minOut: bigint;
  try {
    amountIn = wholeToBaseUnits(topUp.amount, source.decimals);
    minOut = wholeToBaseUnits(topUp.minOut, adapter.nativeDecimals);
  } catch (error) {
    return { reason: 'amount_invalid', why: `chains.${name}.gasTopUp: ${shortErrorMessage(error)}` };
  }
  const symbol = input.chainsDoc.chains.find((c) => c.id === adapter.chainId)?.currency.symbol ?? 'native';
  return {
    chain: name,
    chainId: adapter.chainId,
    native: { currency: adapter.nativeCurrency, decimals: adapter.nativeDecimals, symbol },
    source,
    amountIn,
    minOut,
  };
}

/**
 * Counts a cycle's top-ups in `ballast_gas_top_ups_total{chain, wallet, outcome}`: each attempted one under its
 * attempt outcome, each low signer left without one under the reason (not when one is already in flight).
 * Call for normal cycles only (a `plan` or monitor-only cycle sends nothing).
 */
export function countGasTopUps(
  ctx: Pick<CycleContext, 'metrics'>,
  attempts: readonly TransferAttempt[],
  skipped: GasTopUpPlan['skipped'],
): void {
  for (const a of attempts) {
    if (a.planned.gasTopUp) ctx.metrics.gasTopUpsTotal.inc({ chain: a.planned.to.chain, wallet: a.planned.to.wallet, outcome: a.outcome });
  }
  for (const s of skipped) {
    if (COUNTED_SKIPS.has(s.reason)) ctx.metrics.gasTopUpsTotal.inc({ chain: s.chain, wallet: s.wallet, outcome: s.reason });
  }
}
