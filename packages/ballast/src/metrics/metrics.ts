/**
 * Prometheus metrics of Ballast (prom-client), in a registry of their own so several instances (tests, the
 * demo) never share state.
 *
 * Naming (conventions "Metrics"): prefix `ballast_`, unit in the name, counters end in `_total`. Labels are
 * bounded sets only (chain and asset names from the config, outcomes, policy reasons, verification rule ids,
 * endpoint names, HTTP status codes): never request ids, order ids or addresses. Node's default process
 * metrics (`process_*`, `nodejs_*`) keep their standard unprefixed names so stock dashboards work.
 *
 * Gauges of token amounts are float64: exact up to 2^53 base units (≈ 9e9 USDC at 6 decimals, 0.009 ETH at
 * 18) and within one part in 10^16 above. They are for dashboards and alerts; the SQLite store holds exact values.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { isKnownRequestStatus } from '@ballast/protocol/relay/schemas.ts';
import { buildInfo } from '../core/buildInfo.ts';
import { createLeaderMetrics, type LeaderMetrics } from './leaderMetrics.ts';
import { createMonitorMetrics, type MonitorMetrics } from './monitorMetrics.ts';
import { createRouteChoiceMetrics, type RouteChoiceMetrics } from './routeChoiceMetrics.ts';
import { createScreeningMetrics, type ScreeningMetrics } from './screeningMetrics.ts';
import { createOperatorMetrics, type OperatorMetrics } from './operatorMetrics.ts';
import { createRelayDeprecationMetrics, type RelayDeprecationMetrics } from './relayDeprecationMetrics.ts';
import { createNotifyMetrics, type NotifyMetrics } from './notifyMetrics.ts';

/** Outcomes of a cycle (same values as the store's `cycles.outcome`). */
export const CYCLE_OUTCOMES = ['ok', 'refused', 'error'] as const;

/** Default prom-client metrics removed from the registry because they break the exposition lint. */
const LINT_FAILING_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'] as const;

/** All Ballast metrics plus the registry that exposes them (the operator metrics are in ./operatorMetrics.ts). */
export interface BallastMetrics
  extends OperatorMetrics, LeaderMetrics, MonitorMetrics, RouteChoiceMetrics, RelayDeprecationMetrics, ScreeningMetrics, NotifyMetrics {
  /** Registry to serve at /metrics. */
  registry: Registry;
  /** `ballast_cycles_total{outcome}`: finished cycles by outcome (ok, refused, error). */
  cyclesTotal: Counter<'outcome'>;
  /** `ballast_cycle_duration_seconds`: wall time of a cycle. */
  cycleDurationSeconds: Histogram<string>;
  /** `ballast_last_successful_cycle_timestamp_seconds`: unix time of the last cycle that did not error (0: none yet). */
  lastSuccessfulCycleTimestampSeconds: Gauge<string>;
  /** `ballast_transfers_total{outcome, asset, origin_chain, destination_chain}`: transfers that reached an end state. */
  transfersTotal: Counter<'outcome' | 'asset' | 'origin_chain' | 'destination_chain'>;
  /** `ballast_transfers_in_flight`: transfers prepared, broadcast or deposited but not final. */
  transfersInFlight: Gauge<string>;
  /** `ballast_transfers_stalled`: in-flight transfers flagged stalled (past `tracking.stalledAfterSec`). */
  transfersStalled: Gauge<string>;
  /**
   * `ballast_cycles_aborted_total`: cycles of dead runs closed as `aborted` by the next run (with a leader lease: of
   * leaders whose term ended, closed by the leader that took over).
   */
  cyclesAbortedTotal: Counter<string>;
  /** `ballast_quotes_total{asset, origin_chain, destination_chain}`: quotes received. */
  quotesTotal: Counter<'asset' | 'origin_chain' | 'destination_chain'>;
  /** `ballast_quotes_skipped_total{reason}`: quotes skipped by the fee policy, by reason. */
  quotesSkippedTotal: Counter<'reason'>;
  /** `ballast_spending_limit_hits_total{reason}`: transfers refused by a spending limit before signing, by reason. */
  spendingLimitHitsTotal: Counter<'reason'>;
  /** `ballast_kill_switch_engaged`: 1 while the kill switch (flag or file) halts execution, else 0. */
  killSwitchEngaged: Gauge;
  /** `ballast_quotes_refused_total{rule}`: failed verification rules (one increment per failing rule). */
  quotesRefusedTotal: Counter<'rule'>;
  /** `ballast_relay_http_requests_total{endpoint, status}`: Relay API calls by endpoint and HTTP status. */
  relayHttpRequestsTotal: Counter<'endpoint' | 'status'>;
  /** `ballast_balance_base_units{chain, asset, wallet}`: last balance read, in token base units. */
  balanceBaseUnits: Gauge<'chain' | 'asset' | 'wallet'>;
  /** `ballast_target_base_units{chain, asset, wallet, bound}`: configured band (min, target, max) in base units. */
  targetBaseUnits: Gauge<'chain' | 'asset' | 'wallet' | 'bound'>;
  /** `ballast_chain_read_errors_total{chain}`: failed balance reads per chain. */
  chainReadErrorsTotal: Counter<'chain'>;
  /**
   * `ballast_relay_statuses_total{status}`: request statuses read from the status endpoint, by value; a value
   * outside the known set counts as `unknown` (bounded labels; the raw value is logged and stored).
   */
  relayStatusesTotal: Counter<'status'>;
  /** `ballast_routes_paused`: routes (asset, origin, destination) paused by a failed deposit not yet resolved. */
  routesPaused: Gauge<string>;
  /** `ballast_origin_reorgs_total{chain}`: mined origin transactions a reorg removed before they were final. */
  originReorgsTotal: Counter<'chain'>;
  /**
   * `ballast_origin_rebroadcasts_total{chain, kind}`: recorded transactions the node did not know, sent again
   * exactly as signed by reconciliation (`deposit`: an item of the quote; `replacement`: one ending a deposit;
   * `nonce_gap`: an earlier transaction of the wallet at a free nonce below an unmined one, src/cycle/nonceGap.ts).
   */
  originRebroadcastsTotal: Counter<'chain' | 'kind'>;
  /**
   * `ballast_origin_replacements_total{chain, outcome}`: cancels of a deposit still unmined past its order
   * deadline (Bitcoin), first ones and re-priced ones, by outcome: `sent` (the node accepted it), `refused` (the
   * node refused it: a BIP-125 rule, its minimum fee), `send_failed` (no answer: outcome unknown), `sign_failed`,
   * `at_cap` (no cancel fits under `maxCancelFeeSats` / `maxFeeRateSatPerVb`; the transfer is flagged stalled).
   */
  originReplacementsTotal: Counter<'chain' | 'outcome'>;
  /**
   * `ballast_webhooks_received_total{result}`: webhook deliveries by what became of them: applied (`closed`,
   * `recorded`, `unchanged`), acknowledged and ignored (`not_ours`, `foreign_deposit`, `already_final`,
   * `out_of_order`, `unknown_event`) or refused (a signature reason such as `mismatch`, `stale`, `replay`;
   * `too_large`, `invalid_payload`, `method_not_allowed`, `aborted`, `error`). See docs/webhooks.md.
   */
  webhooksReceivedTotal: Counter<'result'>;
  /**
   * `ballast_withdrawals_total{outcome}`: withdrawals of unfilled deposits that ended: `executed` (funds back),
   * `refused` (Ballast's own checks: owner VM, record mismatch, ready transaction), `failed` (the service refused or
   * every attempt expired/failed). See src/withdraw/.
   */
  withdrawalsTotal: Counter<'outcome'>;
  /**
   * `ballast_withdrawal_restarts_total{reason}`: withdrawal jobs started again from prepare (`expired`, `failed`,
   * `rejected`, `short`: the job executed for less than what was open, the remainder is withdrawn next).
   */
  withdrawalRestartsTotal: Counter<'reason'>;
  /** `ballast_withdrawals_open`: withdrawals under way (attesting through sending). */
  withdrawalsOpen: Gauge<string>;
  /**
   * `ballast_withdrawal_remainders_open`: withdrawals that brought part of their deposit back and leave the rest
   * open in the hub (src/store/withdrawalAmounts.ts); their transfers are not `withdrawn`. Refreshed after each
   * withdrawal pass.
   */
  withdrawalRemaindersOpen: Gauge<string>;
  /**
   * `ballast_refunds_total{chain, outcome, reason}`: refunds followed up (src/cycle/followRefund.ts), by origin
   * chain (config name); outcome `refunded` (reason `none`) or `not_refunded` (reason: the published
   * `refundFailReason`, `OTHER` for one not known here).
   */
  refundsTotal: Counter<'chain' | 'outcome' | 'reason'>;
}

/**
 * The `status` label of `ballast_relay_statuses_total` for a status as the API sent it: the value itself when
 * known, else `unknown`.
 */
export function relayStatusLabel(status: string): string {
  return isKnownRequestStatus(status) ? status : 'unknown';
}

/**
 * Creates a registry with every Ballast metric and Node's default process metrics.
 *
 * `cycles_total` starts at 0 for each outcome and `transfers_in_flight` at 0, so rates and alerts work from
 * the first scrape.
 *
 * @returns the metrics; serve `registry` with `startMetricsServer`
 */
export function createMetrics(): BallastMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // prom-client also exports these gauges with a `_total` suffix, which `promtool check metrics` rejects
  // (only counters may end in _total); the same values remain as nodejs_active_{handles,requests,resources}.
  for (const name of LINT_FAILING_DEFAULTS) registry.removeSingleMetric(name);
  const registers = [registry];
  const metrics: BallastMetrics = {
    registry,
    ...createOperatorMetrics(registry, buildInfo()),
    ...createLeaderMetrics(registry),
    ...createMonitorMetrics(registry),
    ...createRouteChoiceMetrics(registry),
    ...createRelayDeprecationMetrics(registry),
    ...createScreeningMetrics(registry),
    ...createNotifyMetrics(registry),
    cyclesTotal: new Counter({
      name: 'ballast_cycles_total',
      help: 'Rebalancing cycles finished, by outcome (ok, refused, error).',
      labelNames: ['outcome'],
      registers,
    }),
    cycleDurationSeconds: new Histogram({
      name: 'ballast_cycle_duration_seconds',
      help: 'Wall-clock duration of a rebalancing cycle in seconds.',
      buckets: [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
      registers,
    }),
    lastSuccessfulCycleTimestampSeconds: new Gauge({
      name: 'ballast_last_successful_cycle_timestamp_seconds',
      help: 'Unix time in seconds at which the last cycle without error finished.',
      registers,
    }),
    transfersTotal: new Counter({
      name: 'ballast_transfers_total',
      help: 'Transfers that reached an end state, by outcome, asset and route.',
      labelNames: ['outcome', 'asset', 'origin_chain', 'destination_chain'],
      registers,
    }),
    transfersInFlight: new Gauge({
      name: 'ballast_transfers_in_flight',
      help: 'Transfers prepared, broadcast or deposited but not yet final.',
      registers,
    }),
    transfersStalled: new Gauge({
      name: 'ballast_transfers_stalled',
      help: 'Transfers in flight for longer than tracking.stalledAfterSec (still credited, never dropped; need an operator look).',
      registers,
    }),
    cyclesAbortedTotal: new Counter({
      name: 'ballast_cycles_aborted_total',
      help: 'Cycles of runs that died before finishing them (crash, kill), or of leaders whose term ended first, closed as aborted by the next run or leader.',
      registers,
    }),
    quotesTotal: new Counter({
      name: 'ballast_quotes_total',
      help: 'Quotes received from the Relay API, by asset and route.',
      labelNames: ['asset', 'origin_chain', 'destination_chain'],
      registers,
    }),
    quotesSkippedTotal: new Counter({
      name: 'ballast_quotes_skipped_total',
      help: 'Quotes skipped by the fee policy, by reason.',
      labelNames: ['reason'],
      registers,
    }),
    spendingLimitHitsTotal: new Counter({
      name: 'ballast_spending_limit_hits_total',
      help: 'Transfers refused by a spending limit before anything was signed, by reason.',
      labelNames: ['reason'],
      registers,
    }),
    killSwitchEngaged: new Gauge({
      name: 'ballast_kill_switch_engaged',
      help: '1 while the kill switch (policy.limits.killSwitch or its file) halts execution, else 0.',
      registers,
    }),
    quotesRefusedTotal: new Counter({
      name: 'ballast_quotes_refused_total',
      help: 'Local verification rules failed by quotes (a quote failing two rules counts twice).',
      labelNames: ['rule'],
      registers,
    }),
    relayHttpRequestsTotal: new Counter({
      name: 'ballast_relay_http_requests_total',
      help: 'HTTP requests to the Relay API, by endpoint and response status.',
      labelNames: ['endpoint', 'status'],
      registers,
    }),
    balanceBaseUnits: new Gauge({
      name: 'ballast_balance_base_units',
      help: 'Last balance read per chain, asset and wallet, in token base units.',
      labelNames: ['chain', 'asset', 'wallet'],
      registers,
    }),
    targetBaseUnits: new Gauge({
      name: 'ballast_target_base_units',
      help: 'Configured balance band per chain, asset and wallet (bound = min, target, max), in token base units.',
      labelNames: ['chain', 'asset', 'wallet', 'bound'],
      registers,
    }),
    chainReadErrorsTotal: new Counter({
      name: 'ballast_chain_read_errors_total',
      help: 'Failed balance reads per chain.',
      labelNames: ['chain'],
      registers,
    }),
    routesPaused: new Gauge({
      name: 'ballast_routes_paused',
      help: 'Routes (asset, origin chain, destination chain) paused because a deposit ended in failure and is not resolved yet.',
      registers,
    }),
    originReorgsTotal: new Counter({
      name: 'ballast_origin_reorgs_total',
      help: 'Mined origin transactions that a reorg removed before chains.<name>.confirmations blocks, by chain.',
      labelNames: ['chain'],
      registers,
    }),
    originRebroadcastsTotal: new Counter({
      name: 'ballast_origin_rebroadcasts_total',
      help: 'Recorded origin transactions unknown to the node, broadcast again exactly as signed, by chain and kind (deposit, replacement, nonce_gap).',
      labelNames: ['chain', 'kind'],
      registers,
    }),
    originReplacementsTotal: new Counter({
      name: 'ballast_origin_replacements_total',
      help: 'Cancels of a Bitcoin deposit still unmined past its order deadline, by chain and outcome (sent: accepted by the node; refused; send_failed: no answer; sign_failed; at_cap: none fits under the cancel caps).',
      labelNames: ['chain', 'outcome'],
      registers,
    }),
    relayStatusesTotal: new Counter({
      name: 'ballast_relay_statuses_total',
      help: 'Request statuses read from the Relay status endpoint, by value (unknown = a value Ballast does not know; non-final).',
      labelNames: ['status'],
      registers,
    }),
    webhooksReceivedTotal: new Counter({
      name: 'ballast_webhooks_received_total',
      help: 'Relay webhook deliveries received, by result (applied, acknowledged and ignored, or refused with the reason).',
      labelNames: ['result'],
      registers,
    }),
    withdrawalsTotal: new Counter({
      name: 'ballast_withdrawals_total',
      help: 'Withdrawals of unfilled deposits that ended, by outcome (executed, refused, failed).',
      labelNames: ['outcome'],
      registers,
    }),
    withdrawalRestartsTotal: new Counter({
      name: 'ballast_withdrawal_restarts_total',
      help: 'Withdrawal jobs started again from prepare, by reason (expired, failed, rejected, short).',
      labelNames: ['reason'],
      registers,
    }),
    withdrawalsOpen: new Gauge({
      name: 'ballast_withdrawals_open',
      help: 'Withdrawals of unfilled deposits under way (attesting through sending the ready transaction).',
      registers,
    }),
    withdrawalRemaindersOpen: new Gauge({
      name: 'ballast_withdrawal_remainders_open',
      help: 'Withdrawals that brought part of their deposit back and leave the rest open in the hub (transfer not withdrawn).',
      registers,
    }),
    refundsTotal: new Counter({
      name: 'ballast_refunds_total',
      help: 'Refunds followed up, by origin chain: refunded to the origin wallet, or not refunded (reason: refundFailReason).',
      labelNames: ['chain', 'outcome', 'reason'],
      registers,
    }),
  };
  for (const outcome of CYCLE_OUTCOMES) metrics.cyclesTotal.inc({ outcome }, 0);
  metrics.transfersInFlight.set(0);
  metrics.transfersStalled.set(0);
  metrics.routesPaused.set(0);
  metrics.withdrawalsOpen.set(0);
  metrics.withdrawalRemaindersOpen.set(0);
  return metrics;
}

/**
 * Converts a base-unit amount to a gauge value (float64; exact up to 2^53, approximate above).
 *
 * @param amount token amount in base units
 * @returns the nearest float64
 */
export function baseUnitsToGauge(amount: bigint): number {
  return Number(amount);
}
