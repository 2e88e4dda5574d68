/**
 * Dashboard rows about operations: policy and safety, cycle health, the Relay API, chains and signers,
 * withdrawals and webhooks, and the process.
 */
import { bargauge, row, timeseries } from './panels.ts';
import { API_ERRORS, CHAIN, RI, ZERO, quantile, sel } from './promql.ts';

/** Fee skips, verification refusals, spending limits, kill switch, budgets. */
export const policy = [
  row('Policy and safety'),
  timeseries({
    title: 'Quotes skipped by the fee policy',
    description: 'Quotes skipped per interval, by reason (ballast_quotes_skipped_total).',
    queries: [{ expr: `sum by (reason) (increase(${sel('ballast_quotes_skipped_total')}${RI}))${ZERO}`, legend: '{{reason}}' }],
    bars: true,
    stack: true,
    w: 8,
  }),
  timeseries({
    title: 'Verification refusals by rule',
    description: 'Local verification rules failed by quotes per interval (ballast_quotes_refused_total).',
    queries: [{ expr: `sum by (rule) (increase(${sel('ballast_quotes_refused_total')}${RI}))${ZERO}`, legend: '{{rule}}' }],
    bars: true,
    stack: true,
    w: 8,
  }),
  timeseries({
    title: 'Spending-limit hits and kill switch',
    description: 'Transfers refused by a spending limit before signing, by reason; and the kill switch state (1: engaged).',
    queries: [
      { expr: `sum by (reason) (increase(${sel('ballast_spending_limit_hits_total')}${RI}))${ZERO}`, legend: '{{reason}}' },
      { expr: `max(${sel('ballast_kill_switch_engaged')})`, legend: 'kill switch engaged' },
    ],
    w: 8,
  }),
  bargauge({
    title: 'Budget burn',
    description: 'Used ÷ limit of each policy.limits budget over its rolling window (ballast_budget_used_ratio).',
    queries: [{ expr: `max by (budget, asset) (${sel('ballast_budget_used_ratio')})`, legend: '{{budget}} {{asset}}' }],
    unit: 'percentunit',
    min: 0,
    max: 1,
    steps: [
      [null, 'green'],
      [0.75, 'orange'],
      [0.9, 'red'],
    ],
    w: 12,
  }),
  timeseries({
    title: 'Budget burn over time',
    description: 'ballast_budget_used_ratio over time; 1 means the budget is spent and transfers are refused.',
    queries: [{ expr: `max by (budget, asset) (${sel('ballast_budget_used_ratio')})`, legend: '{{budget}} {{asset}}' }],
    unit: 'percentunit',
    min: 0,
    steps: [
      [null, 'green'],
      [0.9, 'red'],
    ],
    w: 12,
  }),
];

/** Cycle outcomes, duration and age. */
export const cycles = [
  row('Cycle health'),
  timeseries({
    title: 'Cycles by outcome',
    description: 'Finished cycles per interval by outcome: ok, refused, error (ballast_cycles_total).',
    queries: [{ expr: `sum by (outcome) (increase(${sel('ballast_cycles_total')}${RI}))`, legend: '{{outcome}}' }],
    bars: true,
    stack: true,
    w: 8,
  }),
  timeseries({
    title: 'Cycle duration',
    description: 'Wall time of a cycle: median, p95 and mean (ballast_cycle_duration_seconds).',
    queries: [
      { expr: quantile(0.5, 'ballast_cycle_duration_seconds'), legend: 'p50' },
      { expr: quantile(0.95, 'ballast_cycle_duration_seconds'), legend: 'p95' },
      {
        expr: `sum(rate(${sel('ballast_cycle_duration_seconds_sum')}${RI})) / sum(rate(${sel('ballast_cycle_duration_seconds_count')}${RI}))`,
        legend: 'mean',
      },
    ],
    unit: 's',
    w: 8,
  }),
  timeseries({
    title: 'Age of last cycle',
    description: 'Seconds since the last successful cycle and since the last cycle of any outcome, per instance.',
    queries: [
      {
        expr: `time() - max by (instance) (${sel('ballast_last_successful_cycle_timestamp_seconds')})`,
        legend: 'last success {{instance}}',
      },
      { expr: `time() - max by (instance) (${sel('ballast_last_cycle_timestamp_seconds')})`, legend: 'last cycle {{instance}}' },
    ],
    unit: 's',
    w: 8,
  }),
];

/** Relay API rates, errors, latency and announced endpoint sunsets. */
export const relayApi = [
  row('Relay API'),
  timeseries({
    title: 'Requests by endpoint and status',
    description: 'Relay API calls per second by endpoint and HTTP status (ballast_relay_http_requests_total).',
    queries: [
      { expr: `sum by (endpoint, status) (rate(${sel('ballast_relay_http_requests_total')}${RI}))`, legend: '{{endpoint}} {{status}}' },
    ],
    unit: 'reqps',
    w: 8,
  }),
  timeseries({
    title: 'Error ratio (5xx, 429, network)',
    description: 'Share of Relay API calls answered 5xx or 429 or failing at the network level.',
    queries: [
      {
        expr: `(sum(rate(${sel('ballast_relay_http_requests_total', API_ERRORS)}${RI}))${ZERO}) / sum(rate(${sel('ballast_relay_http_requests_total')}${RI}))`,
        legend: 'error ratio',
      },
      {
        expr: `sum by (endpoint, status) (rate(${sel('ballast_relay_http_requests_total', 'status!~"2.."')}${RI}))${ZERO}`,
        legend: 'non-2xx {{endpoint}} {{status}}',
      },
    ],
    unit: 'percentunit',
    steps: [
      [null, 'green'],
      [0.05, 'orange'],
      [0.2, 'red'],
    ],
    w: 8,
  }),
  timeseries({
    title: 'Request latency (p95)',
    description: 'p95 round trip of Relay API calls by endpoint, and p50/p95 of POST /quote/v2.',
    queries: [
      { expr: quantile(0.95, 'ballast_relay_request_duration_seconds', ['endpoint']), legend: 'p95 {{endpoint}}' },
      { expr: quantile(0.5, 'ballast_quote_duration_seconds'), legend: 'quote p50' },
      { expr: quantile(0.95, 'ballast_quote_duration_seconds'), legend: 'quote p95' },
    ],
    unit: 's',
    w: 8,
  }),
  bargauge({
    title: 'Days until Relay endpoint sunset',
    description:
      'Days left before each Relay API endpoint Ballast calls stops answering, from the Sunset header of its responses (ballast_relay_endpoint_sunset_timestamp_seconds; RFC 8594). Red under 30 days (alert BallastRelayEndpointSunset); the logs name the successor once a day.',
    queries: [
      { expr: `(max by (endpoint) (${sel('ballast_relay_endpoint_sunset_timestamp_seconds')}) - time()) / 86400`, legend: '{{endpoint}}' },
    ],
    unit: 'd',
    min: 0,
    decimals: 0,
    steps: [
      [null, 'red'],
      [30, 'orange'],
      [90, 'green'],
    ],
    w: 24,
    h: 5,
  }),
];

/** RPC errors and signer gas. */
export const chains = [
  row('Chains and signers'),
  timeseries({
    title: 'RPC errors by chain',
    description: 'Failed chain RPC calls (reads, broadcasts, lookups) and failed balance reads per interval.',
    queries: [
      { expr: `sum by (chain) (increase(${sel('ballast_rpc_errors_total', CHAIN)}${RI}))${ZERO}`, legend: 'rpc {{chain}}' },
      { expr: `sum by (chain) (increase(${sel('ballast_chain_read_errors_total', CHAIN)}${RI}))${ZERO}`, legend: 'balance read {{chain}}' },
      { expr: `sum by (chain) (increase(${sel('ballast_origin_reorgs_total', CHAIN)}${RI}))${ZERO}`, legend: 'reorg {{chain}}' },
    ],
    bars: true,
    w: 12,
  }),
  timeseries({
    title: 'Signer gas balance vs minimum',
    description:
      "Each signer's native balance in whole units, with chains.<name>.minGasBalance (ballast_gas_balance_units, ballast_gas_balance_min_units).",
    queries: [
      { expr: sel('ballast_gas_balance_units', CHAIN), legend: '{{chain}} {{wallet}}' },
      { expr: sel('ballast_gas_balance_min_units', CHAIN), legend: 'minimum {{chain}} {{wallet}}' },
    ],
    w: 12,
  }),
];

/** Withdrawals and webhooks. */
export const withdrawals = [
  row('Withdrawals and webhooks'),
  timeseries({
    title: 'Withdrawals by state',
    description: 'Withdrawals of unfilled deposits by state (ballast_withdrawals), and those under way.',
    queries: [
      { expr: `sum by (state) (${sel('ballast_withdrawals')})${ZERO}`, legend: '{{state}}' },
      { expr: `sum(${sel('ballast_withdrawals_open')})`, legend: 'open' },
    ],
    w: 8,
  }),
  timeseries({
    title: 'Withdrawals ended and restarted',
    description: 'Withdrawals that ended per interval by outcome, and jobs restarted from prepare by reason.',
    queries: [
      { expr: `sum by (outcome) (increase(${sel('ballast_withdrawals_total')}${RI}))${ZERO}`, legend: '{{outcome}}' },
      { expr: `sum by (reason) (increase(${sel('ballast_withdrawal_restarts_total')}${RI}))${ZERO}`, legend: 'restart {{reason}}' },
    ],
    bars: true,
    w: 8,
  }),
  timeseries({
    title: 'Webhooks received by result',
    description: 'Relay webhook deliveries per interval by result (ballast_webhooks_received_total; docs/webhooks.md).',
    queries: [{ expr: `sum by (result) (increase(${sel('ballast_webhooks_received_total')}${RI}))${ZERO}`, legend: '{{result}}' }],
    bars: true,
    stack: true,
    w: 8,
  }),
];

/** Memory, CPU and event loop of the process. */
export const processPanels = [
  row('Process'),
  timeseries({
    title: 'Memory',
    description: 'Resident memory and V8 heap of the Ballast process.',
    queries: [
      { expr: sel('process_resident_memory_bytes'), legend: 'resident {{instance}}' },
      { expr: `sum by (instance) (${sel('nodejs_heap_size_used_bytes')})`, legend: 'heap used {{instance}}' },
    ],
    unit: 'bytes',
    w: 12,
  }),
  timeseries({
    title: 'CPU and event loop lag',
    description: 'CPU seconds per second and the p99 event loop lag of the Ballast process.',
    queries: [
      { expr: `rate(${sel('process_cpu_seconds_total')}${RI})`, legend: 'cpu {{instance}}' },
      { expr: sel('nodejs_eventloop_lag_p99_seconds'), legend: 'event loop lag p99 {{instance}}' },
    ],
    unit: 's',
    w: 12,
  }),
];
