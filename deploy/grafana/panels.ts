/**
 * Small builders for the panels of the Ballast Grafana dashboard, typed against `@grafana/schema` (the
 * dashboard JSON model, schemaVersion 39+). Every panel queries the Prometheus data source picked by the
 * `datasource` template variable. Pure: no I/O.
 */
import {
  BigValueColorMode,
  BigValueGraphMode,
  BigValueJustifyMode,
  BigValueTextMode,
  FieldColorModeId,
  GraphDrawStyle,
  LegendDisplayMode,
  SortOrder,
  StackingMode,
  ThresholdsMode,
  TooltipDisplayMode,
  VizOrientation,
  type DataQuery,
  type DataSourceRef,
  type FieldConfigSource,
  type GridPos,
  type Panel,
  type RowPanel,
  type Threshold,
} from '@grafana/schema';

/** The data source of every panel and query variable: the one chosen in the `datasource` variable. */
export const DATASOURCE: DataSourceRef = { type: 'prometheus', uid: '${datasource}' };

/** A Prometheus query of a panel (the Grafana Prometheus data source's query model). */
export type PromQuery = Pick<DataQuery, 'refId' | 'hide'> & {
  datasource: DataSourceRef;
  /** PromQL; may use the `$job`, `$chain`, `$asset` variables and `$__rate_interval` / `$__range`. */
  expr: string;
  /** Series name template, e.g. `{{chain}}`. */
  legendFormat?: string;
  /** Evaluate once at the end of the range (stat, bar gauge, table panels). */
  instant?: boolean;
  range?: boolean;
  format?: 'time_series' | 'table';
};

/** A query as written in the dashboard source: expression and legend; refId is assigned A, B, C... */
export interface QuerySpec {
  expr: string;
  legend?: string;
}

/** Options every panel builder takes. `w`/`h` are grid units (24 columns wide); position is set by `layout`. */
export interface PanelSpec {
  title: string;
  description: string;
  queries: QuerySpec[];
  /** Grafana unit id: `short`, `currencyUSD`, `s`, `percentunit`, `reqps`, `bool_on_off`... */
  unit?: string;
  w?: number;
  h?: number;
  /** Colour steps: `[[null, 'green'], [0.9, 'red']]` (null is the base step). */
  steps?: [number | null, string][];
  min?: number;
  max?: number;
  decimals?: number;
}

/** Panels before layout (no id or position yet). */
export type UnplacedPanel = Omit<Panel, 'id' | 'gridPos'> & { gridPos: Pick<GridPos, 'w' | 'h'> };
/** A row header before layout. */
export type UnplacedRow = Omit<RowPanel, 'id' | 'gridPos'>;

const REF_IDS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

function targets(queries: QuerySpec[], instant: boolean): PromQuery[] {
  return queries.map((q, i) => ({
    refId: REF_IDS[i] ?? `Q${i}`,
    datasource: DATASOURCE,
    expr: q.expr,
    legendFormat: q.legend ?? '__auto',
    range: !instant,
    instant,
    format: 'time_series',
  }));
}

function thresholds(steps: [number | null, string][] | undefined): { mode: ThresholdsMode; steps: Threshold[] } {
  const list = steps ?? [[null, 'green']];
  return { mode: ThresholdsMode.Absolute, steps: list.map(([value, color]) => ({ value, color })) };
}

function fieldConfig(spec: PanelSpec, custom: Record<string, unknown>, colorMode: FieldColorModeId): FieldConfigSource {
  return {
    defaults: {
      unit: spec.unit ?? 'short',
      ...(spec.min !== undefined ? { min: spec.min } : {}),
      ...(spec.max !== undefined ? { max: spec.max } : {}),
      ...(spec.decimals !== undefined ? { decimals: spec.decimals } : {}),
      color: { mode: colorMode },
      thresholds: thresholds(spec.steps),
      custom,
    },
    overrides: [],
  };
}

/** A time series panel (lines; `stack` stacks them, `bars` draws bars, e.g. for per-interval increases). */
export function timeseries(spec: PanelSpec & { stack?: boolean; bars?: boolean }): UnplacedPanel {
  return {
    type: 'timeseries',
    title: spec.title,
    description: spec.description,
    datasource: DATASOURCE,
    gridPos: { w: spec.w ?? 12, h: spec.h ?? 8 },
    targets: targets(spec.queries, false),
    fieldConfig: fieldConfig(
      spec,
      {
        drawStyle: spec.bars ? GraphDrawStyle.Bars : GraphDrawStyle.Line,
        lineWidth: 1,
        fillOpacity: spec.stack || spec.bars ? 60 : 10,
        showPoints: 'never',
        spanNulls: true,
        stacking: { mode: spec.stack ? StackingMode.Normal : StackingMode.None, group: 'A' },
        thresholdsStyle: { mode: spec.steps ? 'dashed' : 'off' },
      },
      FieldColorModeId.PaletteClassic,
    ),
    options: {
      legend: { displayMode: LegendDisplayMode.Table, placement: 'bottom', showLegend: true, calcs: ['lastNotNull', 'max'] },
      tooltip: { mode: TooltipDisplayMode.Multi, sort: SortOrder.Descending },
    },
  };
}

/** A single-value panel (instant query; the last value, coloured by `steps`). */
export function stat(spec: PanelSpec): UnplacedPanel {
  return {
    type: 'stat',
    title: spec.title,
    description: spec.description,
    datasource: DATASOURCE,
    gridPos: { w: spec.w ?? 4, h: spec.h ?? 4 },
    targets: targets(spec.queries, true),
    fieldConfig: fieldConfig(spec, {}, FieldColorModeId.Thresholds),
    options: {
      reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
      colorMode: BigValueColorMode.Background,
      graphMode: BigValueGraphMode.None,
      justifyMode: BigValueJustifyMode.Auto,
      textMode: BigValueTextMode.Auto,
      orientation: VizOrientation.Auto,
      showPercentChange: false,
      wideLayout: true,
    },
  };
}

/** Horizontal bars, one per series (instant query), coloured by `steps`. */
export function bargauge(spec: PanelSpec): UnplacedPanel {
  return {
    type: 'bargauge',
    title: spec.title,
    description: spec.description,
    datasource: DATASOURCE,
    gridPos: { w: spec.w ?? 12, h: spec.h ?? 8 },
    targets: targets(spec.queries, true),
    fieldConfig: fieldConfig(spec, {}, FieldColorModeId.Thresholds),
    options: {
      reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
      orientation: VizOrientation.Horizontal,
      displayMode: 'gradient',
      showUnfilled: true,
      valueMode: 'color',
      namePlacement: 'auto',
      sizing: 'auto',
      minVizHeight: 16,
      minVizWidth: 8,
      maxVizHeight: 300,
    },
  };
}

/** A table of the label sets of instant series (e.g. build info: version and commit). */
export function table(spec: PanelSpec & { hide?: string[] }): UnplacedPanel {
  const excludeByName = Object.fromEntries(['Time', 'Value', '__name__', ...(spec.hide ?? [])].map((f) => [f, true]));
  return {
    type: 'table',
    title: spec.title,
    description: spec.description,
    datasource: DATASOURCE,
    gridPos: { w: spec.w ?? 12, h: spec.h ?? 4 },
    targets: targets(spec.queries, true).map((t) => ({ ...t, format: 'table' as const })),
    fieldConfig: fieldConfig(spec, { align: 'auto', cellOptions: { type: 'auto' } }, FieldColorModeId.Thresholds),
    options: { showHeader: true, cellHeight: 'sm', footer: { show: false, reducer: ['sum'], fields: '' } },
    transformations: [{ id: 'organize', options: { excludeByName } }],
  };
}

/** A row header (not collapsed: its panels follow it in the dashboard's flat panel list). */
export function row(title: string): UnplacedRow {
  return { type: 'row', title, collapsed: false, panels: [] };
}

/**
 * Assigns ids (1, 2, ...) and grid positions: panels flow left to right on a 24-column grid and wrap; a row
 * header starts a new line and takes the full width.
 *
 * @returns the placed panels in order
 */
export function layout(items: (UnplacedPanel | UnplacedRow)[]): (Panel | RowPanel)[] {
  let x = 0;
  let y = 0;
  let lineHeight = 0;
  return items.map((item, i) => {
    const id = i + 1;
    if (item.type === 'row') {
      y += lineHeight;
      const placed: RowPanel = { ...(item as UnplacedRow), id, gridPos: { x: 0, y, w: 24, h: 1 } };
      y += 1;
      x = 0;
      lineHeight = 0;
      return placed;
    }
    const panel = item as UnplacedPanel; // not a row: the only other member of the union
    const { w, h } = panel.gridPos;
    if (x + w > 24) {
      y += lineHeight;
      x = 0;
      lineHeight = 0;
    }
    const placed: Panel = { ...panel, id, gridPos: { x, y, w, h } };
    x += w;
    lineHeight = Math.max(lineHeight, h);
    return placed;
  });
}
