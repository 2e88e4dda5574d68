/**
 * The Grafana dashboard built as code (deploy/grafana/dashboard.ts): the committed JSON is the generated one,
 * every panel query is valid PromQL (promtool parses it as a recording rule), uses only defined variables and
 * names only metrics the Ballast registry defines, the layout fits the 24-column grid without overlaps, and
 * the provisioning files point Grafana at the compose stack's Prometheus and dashboard folder.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Panel, RowPanel } from '@grafana/schema';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { buildDashboard } from '../../../deploy/grafana/dashboard.ts';
import { DASHBOARD_JSON, dashboardJson } from '../../../deploy/grafana/generate.ts';
import { dashboardQueries, expandVariables } from '../../../deploy/grafana/queries.ts';
import { createMetrics } from '../../../packages/ballast/src/metrics/metrics.ts';
import { ROOT } from '../../e2e/helpers/cli.ts';
import { tempDir } from '../../e2e/helpers/sandboxBallast.ts';
import { promqlMetricNames, registryMetricNames } from './metricNames.ts';

const tmp = tempDir('ballast-dashboard-');
afterAll(() => tmp.cleanup());

const dashboard = buildDashboard();
const queries = dashboardQueries(dashboard);
const ALL = { vars: { job: '.*', chain: '.*', asset: '.*' }, rateInterval: '5m', range: '1h' };

describe('ballast-dashboard.json', () => {
  it('is the JSON generated from dashboard.ts (run npm run dashboard after changing it)', () => {
    expect(readFileSync(DASHBOARD_JSON, 'utf8')).toBe(dashboardJson());
    const committed = JSON.parse(readFileSync(DASHBOARD_JSON, 'utf8')) as { uid: string; panels: unknown[] };
    expect(committed.uid).toBe('ballast-treasury');
    expect(committed.panels.length).toBe(dashboard.panels?.length);
  });

  it('has every query as valid PromQL (promtool check rules on one recording rule per query)', () => {
    expect(queries.length).toBeGreaterThan(40);
    const rules = queries.map((q) => ({ record: `ballast_dashboard_panel_${q.panelId}_${q.refId}`, expr: expandVariables(q.expr, ALL) }));
    const file = path.join(tmp.dir, 'panels.rules.yml');
    writeFileSync(file, stringify({ groups: [{ name: 'dashboard', rules }] }));
    const out = execFileSync('promtool', ['check', 'rules', file], { encoding: 'utf8' });
    expect(out).toContain(`SUCCESS: ${rules.length} rules found`);
  });

  it('promtool rejects a broken expression (the check above can fail)', () => {
    const file = path.join(tmp.dir, 'broken.rules.yml');
    writeFileSync(file, stringify({ groups: [{ name: 'g', rules: [{ record: 'x', expr: 'sum by (chain (ballast_balance_units)' }] }] }));
    expect(() => execFileSync('promtool', ['check', 'rules', file], { stdio: 'pipe' })).toThrow();
  });

  it('names only metrics that the Ballast registry defines (or Prometheus itself: up)', async () => {
    const known = new Set([...(await registryMetricNames(createMetrics().registry)), 'up']);
    const unknown = queries.flatMap((q) =>
      promqlMetricNames(q.expr)
        .filter((n) => !known.has(n))
        .map((n) => `${q.panelTitle}: ${n}`),
    );
    expect(unknown).toEqual([]);
  });

  it('covers the operator views: balances vs targets, fees, refusals, budgets, gas, Relay API, build info', () => {
    const used = new Set(queries.flatMap((q) => promqlMetricNames(q.expr)));
    for (const name of [
      'ballast_balance_units',
      'ballast_balance_usd',
      'ballast_target_units',
      'ballast_distance_from_target_units',
      'ballast_deficit_units',
      'ballast_surplus_units',
      'ballast_transfers_total',
      'ballast_fees_paid_usd_total',
      'ballast_transfers_in_flight',
      'ballast_transfers_stalled',
      'ballast_quotes_skipped_total',
      'ballast_quotes_refused_total',
      'ballast_spending_limit_hits_total',
      'ballast_kill_switch_engaged',
      'ballast_cycle_duration_seconds_bucket',
      'ballast_last_successful_cycle_timestamp_seconds',
      'ballast_cycles_total',
      'ballast_relay_http_requests_total',
      'ballast_relay_request_duration_seconds_bucket',
      'ballast_rpc_errors_total',
      'ballast_gas_balance_units',
      'ballast_gas_balance_min_units',
      'ballast_budget_used_ratio',
      'ballast_withdrawals',
      'ballast_webhooks_received_total',
      'ballast_build_info',
    ]) {
      expect(used, name).toContain(name);
    }
  });

  it('uses only defined template variables, and a datasource variable for every panel', () => {
    const list = dashboard.templating?.list ?? [];
    const names = list.map((v) => v.name);
    expect(names).toEqual(['datasource', 'job', 'chain', 'asset']);
    expect(list[0]).toMatchObject({ type: 'datasource', query: 'prometheus' });
    for (const q of queries) expect(() => expandVariables(q.expr, ALL), `${q.panelTitle} ${q.refId}`).not.toThrow();
    expect(() => expandVariables('up{x=~"$nope"}', ALL)).toThrow(/\$nope/);
    const panels = (dashboard.panels ?? []).filter((p): p is Panel => p.type !== 'row');
    for (const p of panels) {
      expect(p.datasource, p.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
      for (const t of p.targets ?? []) expect(t.datasource, p.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
    }
  });

  it('has unique panel ids and a layout inside 24 columns without overlaps', () => {
    const all = dashboard.panels ?? [];
    const ids = all.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const boxes = all.map((p: Panel | RowPanel) => ({ title: p.title, ...p.gridPos! }));
    for (const b of boxes) expect(b.x + b.w, b.title).toBeLessThanOrEqual(24);
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i]!;
        const b = boxes[j]!;
        const overlap = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
        expect(overlap, `${a.title} overlaps ${b.title}`).toBe(false);
      }
    }
  });
});

describe('Grafana provisioning', () => {
  it('points the data source at the compose Prometheus and the dashboards at /var/lib/grafana/dashboards', () => {
    const ds = parse(readFileSync(path.join(ROOT, 'deploy/grafana/provisioning/datasources/prometheus.yml'), 'utf8'));
    expect(ds.apiVersion).toBe(1);
    expect(ds.datasources).toEqual([expect.objectContaining({ type: 'prometheus', url: 'http://prometheus:9090', isDefault: true })]);
    const dash = parse(readFileSync(path.join(ROOT, 'deploy/grafana/provisioning/dashboards/ballast.yml'), 'utf8'));
    expect(dash.apiVersion).toBe(1);
    expect(dash.providers).toEqual([
      expect.objectContaining({ type: 'file', options: expect.objectContaining({ path: '/var/lib/grafana/dashboards' }) }),
    ]);
  });
});
