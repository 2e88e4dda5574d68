/**
 * The Ballast Grafana dashboard as code. `npm run dashboard` writes it to deploy/grafana/ballast-dashboard.json
 * (provisioned by deploy/grafana/provisioning/dashboards/ballast.yml); a test keeps the committed JSON equal
 * to `buildDashboard()`.
 *
 * Metric names: docs/metrics.md (src/metrics/). Selectors filter on the `job`, `chain` and `asset` template
 * variables (regexes; "All" is `.*`). Counters with labels that only appear once something happened (skips,
 * refusals, errors) end in `or on() vector(0)` so their panels show 0 instead of "No data".
 */
import { VariableHide, VariableRefresh, VariableSort, type Dashboard, type VariableModel } from '@grafana/schema';
import { DATASOURCE, layout } from './panels.ts';
import { chains, cycles, policy, processPanels, relayApi, withdrawals } from './rowsOperations.ts';
import { fees, overview, transfers, treasury } from './rowsTreasury.ts';

/** Stable uid: links and provisioning keep pointing at the same dashboard across versions. */
export const DASHBOARD_UID = 'ballast-treasury';

function queryVariable(name: string, label: string, query: string): VariableModel {
  return {
    type: 'query',
    name,
    label,
    datasource: DATASOURCE,
    query: { qryType: 1, query, refId: 'PrometheusVariableQueryEditor-VariableQuery' },
    refresh: VariableRefresh.onTimeRangeChanged,
    includeAll: true,
    allValue: '.*',
    multi: true,
    current: { text: 'All', value: '$__all', selected: true },
    options: [],
    sort: VariableSort.alphabeticalAsc,
    hide: VariableHide.dontHide,
    regex: '',
    skipUrlSync: false,
  };
}

const variables: VariableModel[] = [
  {
    type: 'datasource',
    name: 'datasource',
    label: 'Data source',
    query: 'prometheus',
    options: [],
    refresh: VariableRefresh.onDashboardLoad,
    regex: '',
    hide: VariableHide.dontHide,
    skipUrlSync: false,
  },
  queryVariable('job', 'Job', 'label_values(ballast_build_info, job)'),
  queryVariable('chain', 'Chain', 'label_values(ballast_balance_units{job=~"$job"}, chain)'),
  queryVariable('asset', 'Asset', 'label_values(ballast_balance_units{job=~"$job"}, asset)'),
];

/**
 * The Ballast dashboard (Grafana dashboard JSON model, `@grafana/schema` `Dashboard`).
 *
 * @returns a new object each call; serialise with `JSON.stringify(d, null, 2)`
 */
export function buildDashboard(): Dashboard {
  return {
    uid: DASHBOARD_UID,
    title: 'Ballast',
    description:
      'Treasury balances vs targets, transfers, fees, policy refusals, cycle health and the Relay API, from the ballast_* metrics.',
    tags: ['ballast', 'treasury', 'relay'],
    editable: true,
    graphTooltip: 1,
    schemaVersion: 39,
    version: 1,
    refresh: '30s',
    time: { from: 'now-6h', to: 'now' },
    timezone: 'browser',
    fiscalYearStartMonth: 0,
    liveNow: false,
    links: [],
    annotations: {
      list: [
        {
          builtIn: 1,
          datasource: { type: 'grafana', uid: '-- Grafana --' },
          enable: true,
          hide: true,
          iconColor: 'rgba(0, 211, 255, 1)',
          name: 'Annotations & Alerts',
          type: 'dashboard',
        },
      ],
    },
    templating: { list: variables },
    panels: layout([
      ...overview,
      ...treasury,
      ...transfers,
      ...fees,
      ...policy,
      ...cycles,
      ...relayApi,
      ...chains,
      ...withdrawals,
      ...processPanels,
    ]),
  };
}
