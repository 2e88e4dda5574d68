/**
 * Dashboard rows about the treasury: overview, balances vs their band, transfers and fees.
 */
import { bargauge, row, stat, table, timeseries } from './panels.ts';
import { ASSET, CHAIN, RI, ZERO, quantile, sel } from './promql.ts';

/** Overview: health at a glance. */
export const overview = [
  row('Overview'),
  stat({
    title: 'Scrape target up',
    description: 'Prometheus `up` of the selected jobs (0: the daemon or Pushgateway is not answering).',
    queries: [{ expr: `min(${sel('up')})` }],
    w: 3,
    steps: [
      [null, 'red'],
      [1, 'green'],
    ],
  }),
  stat({
    title: 'Since last successful cycle',
    description: 'Seconds since a cycle last finished without error (ballast_last_successful_cycle_timestamp_seconds).',
    queries: [{ expr: `time() - max(${sel('ballast_last_successful_cycle_timestamp_seconds')})` }],
    unit: 's',
    w: 3,
    steps: [
      [null, 'green'],
      [3600, 'orange'],
      [7200, 'red'],
    ],
  }),
  stat({
    title: 'Since last cycle',
    description: 'Seconds since any cycle last finished (ballast_last_cycle_timestamp_seconds).',
    queries: [{ expr: `time() - max(${sel('ballast_last_cycle_timestamp_seconds')})` }],
    unit: 's',
    w: 3,
    steps: [
      [null, 'green'],
      [3600, 'orange'],
      [7200, 'red'],
    ],
  }),
  stat({
    title: 'Kill switch',
    description: '1 while the kill switch (policy.limits.killSwitch or its file) halts execution.',
    queries: [{ expr: `max(${sel('ballast_kill_switch_engaged')})` }],
    unit: 'bool_on_off',
    w: 3,
    steps: [
      [null, 'green'],
      [1, 'red'],
    ],
  }),
  stat({
    title: 'Transfers in flight',
    description: 'Transfers prepared, broadcast or deposited but not final.',
    queries: [{ expr: `sum(${sel('ballast_transfers_in_flight')})` }],
    w: 3,
    steps: [[null, 'blue']],
  }),
  stat({
    title: 'Stalled transfers',
    description: 'In-flight transfers past tracking.stalledAfterSec: look at `ballast history`.',
    queries: [{ expr: `sum(${sel('ballast_transfers_stalled')})` }],
    w: 3,
    steps: [
      [null, 'green'],
      [1, 'red'],
    ],
  }),
  stat({
    title: 'Holdings below min',
    description: 'Holdings whose balance is below their configured min (ballast_balance_below_min).',
    queries: [{ expr: `sum(${sel('ballast_balance_below_min', CHAIN, ASSET)})` }],
    w: 3,
    steps: [
      [null, 'green'],
      [1, 'orange'],
    ],
  }),
  stat({
    title: 'Signers low on gas',
    description: 'Signers whose native balance is below chains.<name>.minGasBalance.',
    queries: [{ expr: `sum(${sel('ballast_gas_balance_low', CHAIN)})` }],
    w: 3,
    steps: [
      [null, 'green'],
      [1, 'red'],
    ],
  }),
  stat({
    title: 'Treasury value',
    description: 'Sum of the balances with a known USD price (ballast_balance_usd).',
    queries: [{ expr: `sum(${sel('ballast_balance_usd', CHAIN, ASSET)})` }],
    unit: 'currencyUSD',
    w: 4,
    steps: [[null, 'blue']],
  }),
  stat({
    title: 'Routes paused',
    description: 'Routes paused by a failed deposit not yet resolved.',
    queries: [{ expr: `sum(${sel('ballast_routes_paused')})` }],
    w: 4,
    steps: [
      [null, 'green'],
      [1, 'orange'],
    ],
  }),
  table({
    title: 'Build',
    description: 'Version and commit of each running Ballast (ballast_build_info).',
    queries: [{ expr: sel('ballast_build_info') }],
    hide: ['Value'],
    w: 16,
  }),
];

/** Balances vs targets, deficits and surpluses. */
export const treasury = [
  row('Treasury balances'),
  timeseries({
    title: 'Balance vs band (whole units)',
    description: 'Balance per holding with its configured target, min and max (ballast_balance_units, ballast_target_units).',
    queries: [
      { expr: sel('ballast_balance_units', CHAIN, ASSET), legend: '{{asset}} on {{chain}} ({{wallet}})' },
      { expr: sel('ballast_target_units', CHAIN, ASSET, 'bound="target"'), legend: 'target {{asset}} on {{chain}}' },
      { expr: sel('ballast_target_units', CHAIN, ASSET, 'bound="min"'), legend: 'min {{asset}} on {{chain}}' },
      { expr: sel('ballast_target_units', CHAIN, ASSET, 'bound="max"'), legend: 'max {{asset}} on {{chain}}' },
    ],
    h: 9,
  }),
  timeseries({
    title: 'Balance (USD)',
    description: 'Balance per chain and asset in USD, where a USD price is known (ballast_balance_usd).',
    queries: [{ expr: `sum by (chain, asset) (${sel('ballast_balance_usd', CHAIN, ASSET)})`, legend: '{{asset}} on {{chain}}' }],
    unit: 'currencyUSD',
    stack: true,
    h: 9,
  }),
  timeseries({
    title: 'Distance from target (whole units)',
    description: 'Balance − target per holding; negative means short of target (ballast_distance_from_target_units).',
    queries: [{ expr: sel('ballast_distance_from_target_units', CHAIN, ASSET), legend: '{{asset}} on {{chain}} ({{wallet}})' }],
    w: 8,
  }),
  bargauge({
    title: 'Deficits (below min)',
    description: 'Target − balance of holdings below their min, whole units; 0 elsewhere (ballast_deficit_units).',
    queries: [{ expr: sel('ballast_deficit_units', CHAIN, ASSET), legend: '{{asset}} on {{chain}}' }],
    w: 8,
    steps: [
      [null, 'green'],
      [0.000001, 'orange'],
    ],
  }),
  bargauge({
    title: 'Surpluses (above max)',
    description: 'Balance − target of holdings above their max, whole units; 0 elsewhere (ballast_surplus_units).',
    queries: [{ expr: sel('ballast_surplus_units', CHAIN, ASSET), legend: '{{asset}} on {{chain}}' }],
    w: 8,
    steps: [
      [null, 'green'],
      [0.000001, 'blue'],
    ],
  }),
];

/** Transfers, their outcomes, settle time, quotes and request statuses. */
export const transfers = [
  row('Transfers'),
  timeseries({
    title: 'Transfers by outcome',
    description: 'Transfers that reached an end state per interval, by outcome (ballast_transfers_total).',
    queries: [{ expr: `sum by (outcome) (increase(${sel('ballast_transfers_total', ASSET)}${RI}))`, legend: '{{outcome}}' }],
    bars: true,
    stack: true,
    w: 8,
  }),
  timeseries({
    title: 'Successful transfers by route',
    description: 'Filled transfers per interval by asset, origin and destination chain.',
    queries: [
      {
        expr: `sum by (asset, origin_chain, destination_chain) (increase(${sel('ballast_transfers_total', 'outcome="success"', ASSET)}${RI}))`,
        legend: '{{asset}} {{origin_chain}} → {{destination_chain}}',
      },
    ],
    bars: true,
    stack: true,
    w: 8,
  }),
  timeseries({
    title: 'In flight, stalled, routes paused',
    description: 'Transfers not yet final, those past tracking.stalledAfterSec, and routes paused by a failed deposit.',
    queries: [
      { expr: `sum(${sel('ballast_transfers_in_flight')})`, legend: 'in flight' },
      { expr: `sum(${sel('ballast_transfers_stalled')})`, legend: 'stalled' },
      { expr: `sum(${sel('ballast_routes_paused')})`, legend: 'routes paused' },
    ],
    w: 8,
  }),
  timeseries({
    title: 'Settle time (signing → fill)',
    description: 'Time from signing the deposit to the fill, per successful transfer (ballast_transfer_settle_seconds).',
    queries: [
      { expr: quantile(0.5, 'ballast_transfer_settle_seconds'), legend: 'p50' },
      { expr: quantile(0.95, 'ballast_transfer_settle_seconds'), legend: 'p95' },
    ],
    unit: 's',
    w: 8,
  }),
  timeseries({
    title: 'Quotes received by route',
    description: 'Quotes received from the Relay API per interval (ballast_quotes_total).',
    queries: [
      {
        expr: `sum by (asset, origin_chain, destination_chain) (increase(${sel('ballast_quotes_total', ASSET)}${RI}))`,
        legend: '{{asset}} {{origin_chain}} → {{destination_chain}}',
      },
    ],
    bars: true,
    w: 8,
  }),
  timeseries({
    title: 'Request statuses read',
    description: 'Statuses read from the Relay status endpoint per interval, by value (ballast_relay_statuses_total).',
    queries: [{ expr: `sum by (status) (increase(${sel('ballast_relay_statuses_total')}${RI}))${ZERO}`, legend: '{{status}}' }],
    bars: true,
    stack: true,
    w: 8,
  }),
];

/** Fees paid in USD. */
export const fees = [
  row('Fees (USD)'),
  timeseries({
    title: 'Fees paid per component',
    description: 'USD fees of successful transfers per interval, by component (ballast_fees_paid_usd_total).',
    queries: [{ expr: `sum by (component) (increase(${sel('ballast_fees_paid_usd_total')}${RI}))`, legend: '{{component}}' }],
    unit: 'currencyUSD',
    bars: true,
    stack: true,
    w: 10,
  }),
  bargauge({
    title: 'Fees paid in the time range',
    description: 'USD fees per component over the dashboard time range.',
    queries: [{ expr: `sum by (component) (increase(${sel('ballast_fees_paid_usd_total')}[$__range]))`, legend: '{{component}}' }],
    unit: 'currencyUSD',
    w: 6,
    steps: [[null, 'blue']],
  }),
  timeseries({
    title: 'Fees per transfer',
    description: 'Total USD fees of each successful transfer: median, p95 and mean (ballast_transfer_fees_usd).',
    queries: [
      { expr: quantile(0.5, 'ballast_transfer_fees_usd'), legend: 'p50' },
      { expr: quantile(0.95, 'ballast_transfer_fees_usd'), legend: 'p95' },
      {
        expr: `sum(rate(${sel('ballast_transfer_fees_usd_sum')}${RI})) / sum(rate(${sel('ballast_transfer_fees_usd_count')}${RI}))`,
        legend: 'mean',
      },
    ],
    unit: 'currencyUSD',
    w: 8,
  }),
];
