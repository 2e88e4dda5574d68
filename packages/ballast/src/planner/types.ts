/**
 * Data shapes of the rebalancing planner (docs/design.md "planner (pure: targets, bands, balances, in-flight →
 * transfers)"). Every amount is a `bigint` in the base units of the chain it belongs to.
 */
import type { FeeCaps } from '../policy/feePolicy.ts';

/**
 * One configured target, amounts resolved to the chain's base units.
 *
 * `asset` groups targets that hold the same value (e.g. "USDC" on several chains, possibly with different
 * `decimals`). `currency` is the token address on that chain (native: the VM's identifier, docs/relay-contract.md
 * "Currency"). The band must satisfy `min <= target <= max`.
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
 * `guaranteedOut` until the transfer is final (docs/design.md "Count in-flight transfers as already moved").
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
export interface PlanInput extends RouteRules {
  targets: TargetBand[];
  balances: BalanceReading[];
  inFlight: InFlightTransfer[];
  minTransfer: string;
  maxTransfer: string;
  /** Per-asset bounds overriding `minTransfer` / `maxTransfer` (whole units of that asset). */
  transferLimits?: Readonly<Record<string, TransferLimits>>;
  /** Per asset: where a surplus no deficit took goes (src/planner/sweep.ts); absent: it stays. */
  sweepTo?: Readonly<Record<string, { chain: string; wallet?: string }>>;
  /**
   * Route choice: at most this many other donors are listed per transfer as {@link RouteAlternative}s
   * (src/planner/alternatives.ts). Absent or 0: none.
   */
  maxAlternatives?: number;
  /**
   * A deficit smaller than its route's minTransfer is raised to minTransfer when its band can take it: one transfer
   * and one flat execution fee (docs/relay-contract.md "Fee components", "Limits": 0.02 USD on every request, plus the
   * fill's gas) instead of a string of small ones; otherwise it waits. Absent: true.
   */
  batchSmallDeficits?: boolean;
  /**
   * Per asset: how its holdings are judged. Absent (or an asset not listed): bands only, as described in
   * `planRebalance`. `kind: 'flow'`: bands plus each holding's smoothed net flow (`flows`), src/planner/flowMode.ts.
   */
  strategy?: Readonly<Record<string, FlowStrategy>>;
  /** Smoothed net flow per holding (src/planner/flow.ts), read only for assets whose `strategy` is `flow`. */
  flows?: readonly HoldingFlow[];
  /**
   * Per asset: where a holding below min is refilled to (config `policy.refillTo`, docs/simulate.md "Refill point").
   * Absent (or an asset not listed): its target.
   */
  refillTo?: Readonly<Record<string, RefillPoint>>;
  /**
   * Known outflows (docs/needs.md) to hold on their holdings: the open needs due within `policy.needsHorizonSec`,
   * chosen by the caller (the planner has no clock). Absent: none.
   */
  needs?: readonly PlanNeed[];
}

/** A refill point: the holding's target, or min + `bandBps` / 10 000 of (max − min). */
export type RefillPoint = 'target' | { bandBps: number };

/**
 * A known outflow the planner holds on its holding (docs/needs.md): a holding keeps `min` plus every such need, so
 * a need is funded before it is due and no donor gives away what its own needs will take.
 */
export interface PlanNeed {
  /** The need's id in the store. */
  id: number;
  chain: string;
  currency: string;
  address: string;
  /** Base units of the holding. */
  amount: bigint;
  /** When it is due, ms since the epoch (for the decision's text). */
  dueAtMs: number;
}

/**
 * Flow-aware strategy of one asset (config `policy.strategy.<asset>`, docs/design.md "Flow-aware strategy"): a
 * holding whose smoothed net outflow would take it below `min` within `horizonSec` is funded now; a holding above
 * `max` whose flow nets to zero or brings it back within the horizon is left alone (not swept).
 */
export interface FlowStrategy {
  kind: 'flow';
  /**
   * Seconds after which an observed flow weighs half as much in the smoothed rate (read by the estimator that
   * computes `flows`, not by the planner).
   */
  halfLifeSec: number;
  /** Seconds ahead the planner projects each balance: about a transfer's delivery time plus one cycle. > 0. */
  horizonSec: number;
  /** Net flow at or below this, either way, counts as zero: whole units of the asset per hour (e.g. "100"). */
  deadbandPerHour: string;
  /** Intervals of history a holding needs before its flow is used; before that it is planned on bands alone. */
  minSamples: number;
}

/** Smoothed net flow of one holding, located like a {@link BalanceReading}. */
export interface HoldingFlow {
  chain: string;
  currency: string;
  address: string;
  /** Base units per second; + inflow, − outflow (src/planner/flow.ts `FlowSignal`). */
  netFlowPerSec: bigint;
  /** Observed intervals behind the rate. */
  samples: number;
}

/**
 * One entry of `policy.routes` (src/planner/routes.ts): which (origin, destination) holdings it concerns and what
 * it says about them. `from` / `to` are `"<chain>"`, `"<chain>:<wallet>"` or `"*"`; `asset` absent: every asset.
 * `minTransfer` / `maxTransfer` are whole units of the asset moved (override the asset's bounds on this route);
 * `maxFees` keys override the global `policy.maxFees` keys one by one (src/policy/routeFees.ts).
 */
export interface RouteRule {
  from: string;
  to: string;
  asset?: string;
  /** Absent: true. False: no transfer on a route this entry matches (the planner's, the sweep's, a manual one). */
  allow?: boolean;
  minTransfer?: string;
  maxTransfer?: string;
  maxFees?: FeeCaps;
  /** Sign-offs on this route (policy.approvals): threshold (USD decimal string) and quorum over the asset's and the defaults. */
  approvals?: { aboveUsd?: string | undefined; required?: number | undefined };
}

/**
 * Route rules as the config's `policy` section holds them: entries tried in order, the first match wins (like
 * firewall rules); `onlyListedRoutes: true` refuses a route no entry matches (absent: false, such a route is
 * allowed with the asset's bounds and the global fee caps).
 */
export interface RouteRules {
  routes?: readonly RouteRule[];
  onlyListedRoutes?: boolean;
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
  /** Other donors that could send the same value to `to` from surplus nothing else takes (route choice). */
  alternatives?: RouteAlternative[];
  /** Ids of the needs (docs/needs.md) held on `to` that this transfer funds, in due order; absent: none. */
  funds?: number[];
  /**
   * Set on a gas top-up (src/planner/gasTopUp.ts): a cross-asset transfer buying `to`'s native token. Input and
   * output are different assets, so the guaranteed-output floor is the operator's `minOut` (destination native
   * base units, `chains.<name>.gasTopUp.minOut`), not the input converted to the destination's decimals.
   */
  gasTopUp?: { minOut: bigint };
}

/**
 * Another donor for a planned transfer: `from` sends `amountIn` (its own base units, the same value as the
 * planned amount) to the same recipient. `why` says in words why it qualifies.
 */
export interface RouteAlternative {
  from: TargetBand;
  amountIn: bigint;
  why: string;
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
  /** A (donor, deficit) pair skipped because `policy.routes` / `policy.onlyListedRoutes` forbid its route. */
  | 'route_not_allowed'
  /** A deficit below minTransfer raised to minTransfer, one transfer instead of several small ones. */
  | 'batched'
  /** A signer below `minGasBalance` topped up, or why not (`chains.<name>.gasTopUp`, src/planner/gasTopUp.ts). */
  | 'gas_top_up'
  /** A holding keeps its open needs due within the horizon on top of `min` (docs/needs.md). */
  | 'need_held'
  /**
   * Set by the cycle after planning: a transfer larger than the solver's liquidity on its destination
   * (`GET /chains/liquidity`) was reduced to it or deferred (src/cycle/solverLiquidity.ts).
   */
  | 'solver_liquidity'
  /**
   * Set by the daemon's cycle: a planned transfer left to the next cycle because fills of earlier cycles still hold
   * every `policy.maxConcurrentTransfers` slot (src/cycle/runTransfers.ts).
   */
  | 'deferred_concurrency';

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
  /**
   * Per donor holding (`targetKey`): surplus no planned transfer takes, in that donor's base units. Route choice
   * spends it when it moves a transfer to an alternative donor. Absent: no spare anywhere.
   */
  spare?: ReadonlyMap<string, bigint>;
}
