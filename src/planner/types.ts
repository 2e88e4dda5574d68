/**
 * Data shapes of the rebalancing planner (DESIGN.md "planner (pure: targets, bands, balances, in-flight →
 * transfers)"). Every amount is a `bigint` in the base units of the chain it belongs to.
 */

/**
 * One configured target, amounts resolved to the chain's base units.
 *
 * `asset` groups targets that hold the same value (e.g. "USDC" on several chains, possibly with different
 * `decimals`). `currency` is the token address on that chain (native: the VM's identifier, spec "Currency").
 * The band must satisfy `min <= target <= max`.
 */
export interface TargetBand {
  asset: string;
  chain: string;
  chainId: number;
  currency: string;
  wallet: string;
  address: string;
  decimals: number;
  /** Lower edge of the band, base units. Below it the target is in deficit. */
  min: bigint;
  /** Level a rebalance aims for, base units. */
  target: bigint;
  /** Upper edge of the band, base units. Above it the target has a surplus. */
  max: bigint;
  /**
   * Base units the planner never moves out of this holding, whatever the band says: the gas reserve of a native
   * holding (`chains.<name>.gasReserve`). A surplus gives at most `balance − reserve`. Absent: 0.
   */
  reserve?: bigint;
  /** Weighted holding (src/planner/weights.ts): its share of the asset's total; min/target/max are computed each cycle. */
  weight?: number;
  /** Weighted holding: half-width of its band in bps of the asset's total. */
  toleranceBps?: number;
}

/** A balance read for one target; `amount: null` means the chain could not be read (`error` says why). */
export interface BalanceReading {
  chain: string;
  currency: string;
  address: string;
  /** Base units, or null when the read failed. */
  amount: bigint | null;
  /**
   * The block the amount was read at (every balance of a chain is read at one block), so in-flight transfers
   * can be judged against the same moment: a deposit or fill mined at or before it is already in `amount`.
   */
  blockNumber?: bigint;
  error?: string;
}

/**
 * A transfer already under way (from SQLite). `originSettled`: the origin deposit is confirmed on chain, so the
 * origin balance already reflects it and must NOT be debited again. The destination is always credited with
 * `guaranteedOut` until the transfer is final (DESIGN.md "Count in-flight transfers as already moved").
 */
export interface InFlightTransfer {
  asset: string;
  originChain: string;
  originCurrency: string;
  originAddress: string;
  destinationChain: string;
  destinationCurrency: string;
  destinationAddress: string;
  /** Origin base units. */
  amountIn: bigint;
  /**
   * Destination base units the order guarantees (`minimumAmount`), never the quote's `expectedAmount`: an
   * estimate the API alone vouches for must not make the planner believe a deficit is already covered.
   */
  guaranteedOut: bigint;
  originSettled: boolean;
}

/** Planner input. `minTransfer` / `maxTransfer` are whole units of the asset per transfer (e.g. "1000"). */
export interface PlanInput {
  targets: TargetBand[];
  balances: BalanceReading[];
  inFlight: InFlightTransfer[];
  minTransfer: string;
  maxTransfer: string;
  /** Per-asset bounds overriding `minTransfer` / `maxTransfer` (whole units of that asset). */
  transferLimits?: Readonly<Record<string, TransferLimits>>;
  /** Per asset: where a surplus no deficit took goes (src/planner/sweep.ts); absent: it stays. */
  sweepTo?: Readonly<Record<string, { chain: string; wallet?: string }>>;
}

/** Transfer bounds of one asset, whole units (e.g. `{ minTransfer: "0.05", maxTransfer: "20" }` for ETH). */
export interface TransferLimits {
  minTransfer: string;
  maxTransfer: string;
}

/**
 * A transfer the caller should quote and execute. `amountIn` is in the origin's base units. `asset` is the asset
 * paid (the origin's); a rebalancing transfer receives the same asset, a gas top-up the destination's native token.
 */
export interface PlannedTransfer {
  asset: string;
  from: TargetBand;
  to: TargetBand;
  amountIn: bigint;
  /** Human explanation, e.g. "beta below min: 10000 < 20000 USDC; alpha above max: 90000 > 80000 USDC". */
  reason: string;
  /**
   * Set on a gas top-up (src/planner/gasTopUp.ts): a cross-asset transfer buying `to`'s native token. Input and
   * output are different assets, so the guaranteed-output floor is the operator's `minOut` (destination native
   * base units, `chains.<name>.gasTopUp.minOut`), not the input converted to the destination's decimals.
   */
  gasTopUp?: { minOut: bigint };
}

/** Kinds of planner decision; the caller logs and meters them (label values are this bounded set). */
export type PlanDecisionKind =
  | 'chain_unreadable'
  | 'in_band'
  | 'deficit'
  | 'surplus'
  | 'deficit_unmet'
  | 'below_min_transfer'
  | 'capped_max_transfer'
  | 'in_flight_credited'
  | 'surplus_unused'
  /** Set by the cycle, not the planner: a failed deposit paused the route (src/cycle/pausedRoutes.ts). */
  | 'route_paused'
  /** Set by the cycle before planning: how weighted holdings' bands were computed (src/planner/weights.ts). */
  | 'weights'
  /** Unused surplus moved to the asset's home holding (`policy.sweepTo`, src/planner/sweep.ts). */
  | 'sweep'
  /** A signer below `minGasBalance` topped up, or why not (`chains.<name>.gasTopUp`, src/planner/gasTopUp.ts). */
  | 'gas_top_up';

/** One decision with its reason. `chain` is the target's chain when the decision concerns one target. */
export interface PlanDecision {
  asset: string;
  chain?: string;
  kind: PlanDecisionKind;
  detail: string;
}

/** Planner output: transfers to make this cycle and every decision taken, in a deterministic order. */
export interface Plan {
  transfers: PlannedTransfer[];
  decisions: PlanDecision[];
}
