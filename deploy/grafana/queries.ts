/**
 * The PromQL of a dashboard's panels, and its Grafana variables replaced by concrete values, so tests can run
 * every panel query against a real Prometheus. Pure.
 */
import type { Dashboard, Panel, RowPanel } from '@grafana/schema';

/** One panel query: where it is and its PromQL as written in the dashboard (with `$variables`). */
export interface DashboardQuery {
  panelId: number;
  panelTitle: string;
  refId: string;
  expr: string;
}

/** Every `expr` of every panel (row headers have none; panels inside collapsed rows are included). */
export function dashboardQueries(dashboard: Dashboard): DashboardQuery[] {
  const out: DashboardQuery[] = [];
  const visit = (p: Panel | RowPanel) => {
    if (p.type === 'row') {
      for (const inner of (p as RowPanel).panels) visit(inner); // type 'row' is only ever a RowPanel
      return;
    }
    const panel = p as Panel; // not a row
    for (const t of panel.targets ?? []) {
      if (typeof t.expr !== 'string') throw new Error(`panel ${panel.id} "${panel.title}" target ${String(t.refId)} has no expr`);
      out.push({ panelId: panel.id ?? 0, panelTitle: panel.title ?? '', refId: String(t.refId), expr: t.expr });
    }
  };
  for (const p of dashboard.panels ?? []) visit(p);
  return out;
}

/** Values that stand in for the Grafana variables in a query. */
export interface VariableValues {
  /** Dashboard variables by name, e.g. `{ job: '.*', chain: '.*' }` (regex values, as "All" gives). */
  vars: Record<string, string>;
  /** `$__rate_interval`, e.g. `30s`. */
  rateInterval: string;
  /** `$__range`, e.g. `5m`. */
  range: string;
}

/**
 * `expr` with `$__rate_interval`, `$__range`, `$name` and `${name}` replaced.
 *
 * @throws Error naming the variable when `expr` uses one with no value
 */
export function expandVariables(expr: string, values: VariableValues): string {
  return expr
    .replaceAll('$__rate_interval', values.rateInterval)
    .replaceAll('$__range', values.range)
    .replace(/\$\{(\w+)\}|\$(\w+)/g, (_m, braced: string | undefined, bare: string | undefined) => {
      const name = (braced ?? bare)!; // one of the two alternatives matched
      const value = values.vars[name];
      if (value === undefined) throw new Error(`query uses $${name}, which has no value: ${expr}`);
      return value;
    });
}
