/**
 * Gas top-ups (pure): a signer wallet whose native balance is below its chain's `minGasBalance` gets native
 * token bought for it from a configured source holding (`chains.<name>.gasTopUp`), as one cross-asset
 * `EXACT_INPUT` transfer (docs/relay-contract.md "POST /quote/v2") that then goes through the same pipeline as any other:
 * quote, fee policy, verification, spending limits, write-ahead, signing, tracking. No clock, no I/O.
 *
 * For each low signer, in the order given:
 * - a transfer paying native token to that signer on that chain already in flight (its top-up, or any other)
 *   means no second one: the next cycle reads the balance again;
 * - the source holding must be readable, and hold the amount above its reserve after what is already in flight
 *   from it and the top-ups planned before this one this cycle;
 * - otherwise a transfer is planned whose guaranteed-output floor is the configured `minOut`.
 * Every case yields one `gas_top_up` decision saying what was done and why.
 */
import { formatUnits } from 'viem';
import { effectiveFromIndex, indexInFlight, indexReadings, normalizeAddress, targetKey } from './effective.ts';
import type { BalanceReading, InFlightTransfer, PlanDecision, PlannedTransfer, TargetBand } from './types.ts';

/** The native token of a chain: its currency id (docs/relay-contract.md "Currency"), decimals and symbol (for messages). */
export interface NativeToken {
  currency: string;
  decimals: number;
  symbol: string;
}

/** How the signers of one chain are topped up, amounts resolved to base units. */
export interface GasTopUpRule {
  /** The chain whose signers are topped up (config name) and its Relay chain id. */
  chain: string;
  chainId: number;
  native: NativeToken;
  /** The holding that pays, as this cycle's band (its `reserve` is never dug into). */
  source: TargetBand;
  /** Paid per top-up, source base units. */
  amountIn: bigint;
  /** Least native token the order must guarantee (summed output `minimumAmount`), native base units. */
  minOut: bigint;
}

/** A signer's gas reading (src/cycle/gasBalances.ts) with its address. */
export interface SignerGas {
  chain: string;
  wallet: string;
  address: string;
  /** Native balance, base units; null when the read failed (never topped up on a failed read). */
  amount: bigint | null;
  /** `chains.<name>.minGasBalance`, native base units; absent: no minimum, never low. */
  min?: bigint;
}

/**
 * Why a low signer was not topped up this cycle (bounded: a metric label). `amount_invalid` is the cycle's
 * (src/cycle/gasTopUp.ts): the configured amounts could not be put in base units this cycle.
 */
export type GasTopUpSkipReason = 'in_flight' | 'route_not_allowed' | 'source_unreadable' | 'source_short' | 'amount_invalid';

/** A low signer left without a top-up: which, why (`reason`) and the decision's text (`detail`). */
export interface GasTopUpSkip {
  chain: string;
  wallet: string;
  reason: GasTopUpSkipReason;
  detail: string;
}

/** Input of {@link planGasTopUps}. */
export interface PlanGasTopUpsInput {
  rules: readonly GasTopUpRule[];
  signers: readonly SignerGas[];
  /** This cycle's balance readings; the sources' are looked up by holding. */
  balances: readonly BalanceReading[];
  /** Transfers under way (src/cycle/plannerInFlight.ts), as the rebalancing planner sees them. */
  inFlight: readonly InFlightTransfer[];
  /**
   * Route rules (`policy.routes`, src/planner/routes.ts) as `from` → the signer's wallet on its chain: the text of
   * the rule that refuses the route, or undefined when it is allowed. Absent: every route is allowed.
   */
  routeRefusal?: (source: TargetBand, signer: { chain: string; wallet: string }) => string | undefined;
}

/** Output of {@link planGasTopUps}. */
export interface GasTopUpPlan {
  /** The top-ups to run, each with `gasTopUp.minOut` set. */
  transfers: PlannedTransfer[];
  /** One `gas_top_up` decision per low signer with a rule. */
  decisions: PlanDecision[];
  /** Low signers left without a top-up, and why. */
  skipped: GasTopUpSkip[];
  /**
   * The planned top-ups as transfers under way (origin not settled, destination credited with `minOut`), so the
   * rebalancing planner of the same cycle does not spend the same source balance twice.
   */
  inFlight: InFlightTransfer[];
}

/**
 * Plans this cycle's gas top-ups.
 *
 * @returns transfers, decisions, skipped signers and the top-ups as in-flight entries (see {@link GasTopUpPlan})
 */
export function planGasTopUps(input: PlanGasTopUpsInput): GasTopUpPlan {
  const out: GasTopUpPlan = { transfers: [], decisions: [], skipped: [], inFlight: [] };
  const index = indexInFlight(input.inFlight);
  const readings = indexReadings(input.balances);
  const planned = new Map<string, bigint>();
  for (const signer of input.signers) {
    const rule = input.rules.find((r) => r.chain === signer.chain);
    if (!rule || signer.amount === null || signer.min === undefined || signer.amount >= signer.min) continue;
    const { native, source } = rule;
    const nat = (n: bigint) => `${formatUnits(n, native.decimals)} ${native.symbol}`;
    const src = (n: bigint) => `${formatUnits(n, source.decimals)} ${source.asset}`;
    const low = `${signer.wallet} holds ${nat(signer.amount)} on ${signer.chain}, below minGasBalance ${nat(signer.min)}`;
    const decide = (detail: string) => out.decisions.push({ asset: source.asset, chain: signer.chain, kind: 'gas_top_up', detail });
    const skip = (reason: GasTopUpSkipReason, detail: string) => {
      out.skipped.push({ chain: signer.chain, wallet: signer.wallet, reason, detail });
      decide(detail);
    };

    const pending = input.inFlight.find(
      (f) =>
        f.destinationChain === signer.chain &&
        sameId(f.destinationCurrency, native.currency) &&
        sameId(f.destinationAddress, signer.address),
    );
    if (pending) {
      skip(
        'in_flight',
        `${low}; ${nat(pending.guaranteedOut)} (guaranteed) already on its way from ${pending.originChain}: no second top-up while it is in flight`,
      );
      continue;
    }
    const refused = input.routeRefusal?.(source, signer);
    if (refused !== undefined) {
      skip(
        'route_not_allowed',
        `${low}; no top-up: ${source.asset} from ${source.chain} (${source.wallet}) to ${signer.chain} (${signer.wallet}) is not allowed by ${refused}`,
      );
      continue;
    }
    const key = targetKey(source);
    const reading = readings.get(key);
    const from = `${source.chain} (${source.wallet})`;
    if (reading === undefined) {
      skip('source_unreadable', `${low}; no top-up: the source ${source.asset} on ${from} could not be read this cycle`);
      continue;
    }
    const available = effectiveFromIndex(source, reading, index, key).effective - (planned.get(key) ?? 0n);
    const reserve = source.reserve ?? 0n;
    if (available - rule.amountIn < reserve) {
      const kept = reserve > 0n ? ` and keep its reserve of ${src(reserve)}` : '';
      skip(
        'source_short',
        `${low}; no top-up: ${source.asset} on ${from} has ${src(available)} available (after transfers in flight), too little to pay ${src(rule.amountIn)}${kept}`,
      );
      continue;
    }
    planned.set(key, (planned.get(key) ?? 0n) + rule.amountIn);
    const to: TargetBand = {
      asset: native.symbol,
      chain: signer.chain,
      chainId: rule.chainId,
      currency: native.currency,
      wallet: signer.wallet,
      address: signer.address,
      decimals: native.decimals,
      min: signer.min,
      target: signer.min,
      max: signer.min,
    };
    const reason = `gas top-up: ${low}; buying at least ${nat(rule.minOut)} with ${src(rule.amountIn)} from ${source.chain}`;
    out.transfers.push({ asset: source.asset, from: source, to, amountIn: rule.amountIn, reason, gasTopUp: { minOut: rule.minOut } });
    decide(reason);
    out.inFlight.push({
      asset: source.asset,
      originChain: source.chain,
      originCurrency: source.currency,
      originAddress: source.address,
      destinationChain: signer.chain,
      destinationCurrency: native.currency,
      destinationAddress: signer.address,
      amountIn: rule.amountIn,
      guaranteedOut: rule.minOut,
      originSettled: false,
    });
  }
  return out;
}

/** Addresses and currency ids compared as the planner compares holdings (src/planner/effective.ts). */
function sameId(a: string, b: string): boolean {
  return normalizeAddress(a) === normalizeAddress(b);
}
