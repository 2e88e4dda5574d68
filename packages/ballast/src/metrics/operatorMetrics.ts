/**
 * The operator metrics of Ballast: build info, balances in whole units and USD, distance from the target band,
 * Relay latencies, chain RPC errors, signer gas balances, spending budget usage, withdrawals by state and the
 * fees paid. Registered by `createMetrics` (src/metrics/metrics.ts) into the same registry as the core metrics;
 * the catalogue with label value sets is docs/metrics.md (checked against the registry by a test).
 *
 * Amounts in whole units are float64 gauges converted at the edge (src/metrics/units.ts); the store holds exact
 * base-unit values.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Values of the `budget` label of `ballast_budget_used_ratio`. */
export const BUDGETS = ['daily_notional', 'daily_fees_usd', 'transfers_per_hour'] as const;
/** A `budget` label value. */
export type BudgetName = (typeof BUDGETS)[number];

/** Values of the `component` label of `ballast_fees_paid_usd_total`. */
export const FEE_COMPONENTS = ['execution', 'swap', 'platform', 'app', 'gas'] as const;
/** A `component` label value. */
export type FeeComponent = (typeof FEE_COMPONENTS)[number];

/** Values of the `status` label of `ballast_needs` (src/cycle/needsForPlan.ts). */
export const NEED_STATUSES = ['held', 'later', 'unmatched'] as const;

/** Values of the `bound` label of `ballast_target_units` (same as `ballast_target_base_units`). */
export const TARGET_BOUNDS = ['min', 'target', 'max'] as const;

/** The operator metrics (see the module comment); part of `BallastMetrics`. */
export interface OperatorMetrics {
  /** `ballast_build_info{version, commit}` = 1 (src/core/buildInfo.ts). */
  buildInfo: Gauge<'version' | 'commit'>;
  /** `ballast_last_cycle_timestamp_seconds`: unix time the last cycle finished, whatever its outcome (0: none yet). */
  lastCycleTimestampSeconds: Gauge<string>;
  /** `ballast_balance_units{chain, asset, wallet}`: last balance read, in whole token units. */
  balanceUnits: Gauge<'chain' | 'asset' | 'wallet'>;
  /** `ballast_balance_usd{chain, asset, wallet}`: last balance read in USD; absent while no USD price is known. */
  balanceUsd: Gauge<'chain' | 'asset' | 'wallet'>;
  /** `ballast_target_units{chain, asset, wallet, bound}`: configured band (min, target, max), whole units. */
  targetUnits: Gauge<'chain' | 'asset' | 'wallet' | 'bound'>;
  /** `ballast_distance_from_target_units{chain, asset, wallet}`: balance − target, whole units (negative: short). */
  distanceFromTargetUnits: Gauge<'chain' | 'asset' | 'wallet'>;
  /** `ballast_deficit_units{chain, asset, wallet}`: target − balance when balance < min, else 0; whole units. */
  deficitUnits: Gauge<'chain' | 'asset' | 'wallet'>;
  /** `ballast_surplus_units{chain, asset, wallet}`: balance − target when balance > max, else 0; whole units. */
  surplusUnits: Gauge<'chain' | 'asset' | 'wallet'>;
  /** `ballast_balance_below_min{chain, asset, wallet}`: 1 when balance < min, else 0. */
  balanceBelowMin: Gauge<'chain' | 'asset' | 'wallet'>;
  /** `ballast_quote_duration_seconds`: round trip of POST /quote/v2 (successful or not). */
  quoteDurationSeconds: Histogram<string>;
  /** `ballast_relay_request_duration_seconds{endpoint}`: Relay API request duration by endpoint name. */
  relayRequestDurationSeconds: Histogram<'endpoint'>;
  /** `ballast_signer_requests_total{wallet,kind,outcome}`: requests to key services (docs/keys.md). */
  signerRequestsTotal: Counter<'wallet' | 'kind' | 'outcome'>;
  /** `ballast_signer_latency_seconds{wallet,kind}`: duration of each request to a key service. */
  signerLatencySeconds: Histogram<'wallet' | 'kind'>;
  /** `ballast_rpc_errors_total{chain}`: failed chain RPC calls (balance and gas reads, broadcasts, lookups). */
  rpcErrorsTotal: Counter<'chain'>;
  /** `ballast_gas_balance_units{chain, wallet}`: signer wallet's native balance on a chain it is used on, whole units. */
  gasBalanceUnits: Gauge<'chain' | 'wallet'>;
  /** `ballast_gas_balance_min_units{chain, wallet}`: `chains.<name>.minGasBalance`, whole units (only when set). */
  gasBalanceMinUnits: Gauge<'chain' | 'wallet'>;
  /** `ballast_gas_balance_low{chain, wallet}`: 1 when the gas balance is below `minGasBalance`, else 0. */
  gasBalanceLow: Gauge<'chain' | 'wallet'>;
  /**
   * `ballast_gas_top_ups_total{chain, wallet, outcome}`: gas top-ups of signers below `minGasBalance` by how they
   * ended: a transfer outcome (`success`, `in_flight`, `skipped_fee`, …) or, when none was sent, `source_short` /
   * `source_unreadable` (src/cycle/gasTopUp.ts). Normal cycles only (not `plan` or monitor-only).
   */
  gasTopUpsTotal: Counter<'chain' | 'wallet' | 'outcome'>;
  /** `ballast_budget_used_ratio{budget, asset}`: used ÷ limit of a configured spending limit over its window. */
  budgetUsedRatio: Gauge<'budget' | 'asset'>;
  /** `ballast_withdrawals{state}`: withdrawals in the store by state (src/store/withdrawals.ts). */
  withdrawalsByState: Gauge<'state'>;
  /** `ballast_approval_requests{status}`: approval requests in the store by status (src/store/approvalRequests.ts). */
  approvalRequests: Gauge<'status'>;
  /**
   * `ballast_approval_policy_held`: 1 while the config's approval policy is not the approved one (or none was
   * approved), so transfers above the approved threshold wait (src/approvals/standing.ts); 0 otherwise.
   */
  approvalPolicyHeld: Gauge;
  /**
   * `ballast_needs{status}`: open needs (docs/needs.md) by what the planner does with them: `held` (due within
   * `policy.needsHorizonSec`), `later` (due after it), `unmatched` (their holding is not a target this cycle).
   */
  needs: Gauge<'status'>;
  /**
   * `ballast_need_funded_ratio{chain, asset, wallet}`: balance read ÷ the needs held on the holding, capped at 1 (1:
   * it could pay every need due within the horizon now); only holdings with needs held this cycle.
   */
  needFundedRatio: Gauge<'chain' | 'asset' | 'wallet'>;
  /** `ballast_fees_paid_usd_total{component}`: USD fees paid, by component (Relay components of successes; `gas` of every ledger entry). */
  feesPaidUsdTotal: Counter<'component'>;
  /** `ballast_transfer_fees_usd`: total USD fees of each successful transfer. */
  transferFeesUsd: Histogram<string>;
  /** `ballast_transfer_settle_seconds`: signing → fill time of each successful transfer. */
  transferSettleSeconds: Histogram<string>;
}

const BALANCE_LABELS = ['chain', 'asset', 'wallet'] as const;

/**
 * Creates the operator metrics in `registry`. Counters of bounded label sets start at 0 for every value so
 * rates work from the first scrape; `ballast_build_info` is set here.
 *
 * @param build version and commit for `ballast_build_info`
 */
export function createOperatorMetrics(registry: Registry, build: { version: string; commit: string }): OperatorMetrics {
  const registers = [registry];
  const m: OperatorMetrics = {
    buildInfo: new Gauge({
      name: 'ballast_build_info',
      help: 'Always 1; the labels carry the version and commit this Ballast was built from.',
      labelNames: ['version', 'commit'],
      registers,
    }),
    lastCycleTimestampSeconds: new Gauge({
      name: 'ballast_last_cycle_timestamp_seconds',
      help: 'Unix time in seconds at which the last cycle finished, whatever its outcome (0: none yet).',
      registers,
    }),
    balanceUnits: new Gauge({
      name: 'ballast_balance_units',
      help: 'Last balance read per chain, asset and wallet, in whole token units.',
      labelNames: BALANCE_LABELS,
      registers,
    }),
    balanceUsd: new Gauge({
      name: 'ballast_balance_usd',
      help: 'Last balance read per chain, asset and wallet, in USD (absent while no USD price of the asset is known).',
      labelNames: BALANCE_LABELS,
      registers,
    }),
    targetUnits: new Gauge({
      name: 'ballast_target_units',
      help: 'Configured balance band per chain, asset and wallet (bound = min, target, max), in whole token units.',
      labelNames: [...BALANCE_LABELS, 'bound'],
      registers,
    }),
    distanceFromTargetUnits: new Gauge({
      name: 'ballast_distance_from_target_units',
      help: 'Balance minus target per chain, asset and wallet, in whole token units (negative: short of the target).',
      labelNames: BALANCE_LABELS,
      registers,
    }),
    deficitUnits: new Gauge({
      name: 'ballast_deficit_units',
      help: 'Target minus balance when the balance is below min, else 0, in whole token units.',
      labelNames: BALANCE_LABELS,
      registers,
    }),
    surplusUnits: new Gauge({
      name: 'ballast_surplus_units',
      help: 'Balance minus target when the balance is above max, else 0, in whole token units.',
      labelNames: BALANCE_LABELS,
      registers,
    }),
    balanceBelowMin: new Gauge({
      name: 'ballast_balance_below_min',
      help: '1 when the balance is below the configured min, else 0.',
      labelNames: BALANCE_LABELS,
      registers,
    }),
    quoteDurationSeconds: new Histogram({
      name: 'ballast_quote_duration_seconds',
      help: 'Round trip of POST /quote/v2 to the Relay API in seconds (answered or failed).',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
      registers,
    }),
    relayRequestDurationSeconds: new Histogram({
      name: 'ballast_relay_request_duration_seconds',
      help: 'Duration of Relay API requests in seconds, by endpoint.',
      labelNames: ['endpoint'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
      registers,
    }),
    signerRequestsTotal: new Counter({
      name: 'ballast_signer_requests_total',
      help: 'Requests to a key service that holds a wallet key (awsKms), by wallet, kind and outcome: ok, refused, unavailable, bad_signature.',
      labelNames: ['wallet', 'kind', 'outcome'],
      registers,
    }),
    signerLatencySeconds: new Histogram({
      name: 'ballast_signer_latency_seconds',
      help: 'Duration of each request to a key service in seconds (answered or failed), by wallet and kind.',
      labelNames: ['wallet', 'kind'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10],
      registers,
    }),
    rpcErrorsTotal: new Counter({
      name: 'ballast_rpc_errors_total',
      help: 'Failed chain RPC calls (balance and gas reads, broadcasts, lookups), by chain.',
      labelNames: ['chain'],
      registers,
    }),
    gasBalanceUnits: new Gauge({
      name: 'ballast_gas_balance_units',
      help: "Signer wallet's native token balance on a chain it signs on, in whole units.",
      labelNames: ['chain', 'wallet'],
      registers,
    }),
    gasBalanceMinUnits: new Gauge({
      name: 'ballast_gas_balance_min_units',
      help: 'Configured minimum native balance of signer wallets (chains.<name>.minGasBalance), in whole units.',
      labelNames: ['chain', 'wallet'],
      registers,
    }),
    gasBalanceLow: new Gauge({
      name: 'ballast_gas_balance_low',
      help: '1 when the signer wallet holds less native token than chains.<name>.minGasBalance, else 0.',
      labelNames: ['chain', 'wallet'],
      registers,
    }),
    gasTopUpsTotal: new Counter({
      name: 'ballast_gas_top_ups_total',
      help: 'Gas top-ups of signer wallets below chains.<name>.minGasBalance (chains.<name>.gasTopUp), by chain, wallet and outcome.',
      labelNames: ['chain', 'wallet', 'outcome'],
      registers,
    }),
    budgetUsedRatio: new Gauge({
      name: 'ballast_budget_used_ratio',
      help: 'Used part of a configured spending limit over its window (1 = exhausted); asset is set for daily_notional only.',
      labelNames: ['budget', 'asset'],
      registers,
    }),
    withdrawalsByState: new Gauge({
      name: 'ballast_withdrawals',
      help: 'Withdrawals of unfilled deposits in the store, by state.',
      labelNames: ['state'],
      registers,
    }),
    approvalRequests: new Gauge({
      name: 'ballast_approval_requests',
      help: 'Approval requests (policy.approvals) in the store, by status: pending, approved, executed, expired, rejected, not_needed.',
      labelNames: ['status'],
      registers,
    }),
    approvalPolicyHeld: new Gauge({
      name: 'ballast_approval_policy_held',
      help: "1 while the config's approval policy is not the approved one (or none is approved): transfers above the approved threshold wait.",
      registers,
    }),
    needs: new Gauge({
      name: 'ballast_needs',
      help: 'Open needs (known outflows) by what the planner does with them: held (due within policy.needsHorizonSec), later, unmatched (holding not a target).',
      labelNames: ['status'],
      registers,
    }),
    needFundedRatio: new Gauge({
      name: 'ballast_need_funded_ratio',
      help: 'Balance read divided by the needs held on the holding, capped at 1 (1: it could pay every need due within the horizon now).',
      labelNames: [...BALANCE_LABELS],
      registers,
    }),
    feesPaidUsdTotal: new Counter({
      name: 'ballast_fees_paid_usd_total',
      help: 'USD fees paid, by component: execution, swap, platform, app of successful transfers; gas (origin gas or miner fee) of every finished transfer.',
      labelNames: ['component'],
      registers,
    }),
    transferFeesUsd: new Histogram({
      name: 'ballast_transfer_fees_usd',
      help: 'Total USD fees of each successful transfer.',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100],
      registers,
    }),
    transferSettleSeconds: new Histogram({
      name: 'ballast_transfer_settle_seconds',
      help: 'Seconds from signing the origin transaction to the fill, per successful transfer.',
      buckets: [1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800],
      registers,
    }),
  };
  m.buildInfo.set({ version: build.version, commit: build.commit }, 1);
  m.lastCycleTimestampSeconds.set(0);
  for (const component of FEE_COMPONENTS) m.feesPaidUsdTotal.inc({ component }, 0);
  for (const status of NEED_STATUSES) m.needs.set({ status }, 0);
  return m;
}
