/**
 * Pictures of a simulation run as standalone SVG documents (docs/simulate.md "The picture"), hand-written, no chart
 * library. {@link balancesSvg}: the treasury's balance per holding over simulated time, one panel per holding, with
 * the band of a banded holding (min and max dashed, target dotted), the transfers Ballast made (▼ on the origin
 * when quoted, ▲ where the funds land when settled: the destination when filled, back on the origin when refunded),
 * and the payments that waited for their holding. {@link compareSvg}: the balances of several runs of one scenario,
 * one line per run. Balances are plotted in whole token units (viem `formatUnits`, a JS number only for the
 * drawing); x is simulated seconds. Pure: the same log gives the same document.
 */
import { formatUnits } from 'viem';
import type { SimLog, TransferRecord } from './run.ts';

const WIDTH = 960;
const LEFT = 84;
const RIGHT = 24;
const TOP = 60;
/** Panel: its title, the plot, then tick labels and the x axis label. */
const PLOT_TOP = 26;
const PLOT_H = 150;
const PANEL_H = PLOT_TOP + PLOT_H + 48;
const PLOT_W = WIDTH - LEFT - RIGHT;
const LEGEND_ROW = 20;

const COLOURS = {
  balance: '#1f4e79',
  band: '#6c757d',
  filled: '#2a9d8f',
  refunded: '#d62828',
  open: '#8d99ae',
  waited: '#f4a261',
  failed: '#d62828',
};
/** One colour per variant in {@link compareSvg}, repeated past ten. */
const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf', '#d62728'];

/** Escapes text for SVG/XML content and attribute values; control characters XML 1.0 cannot hold are dropped. */
export function escapeXml(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '')
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!); // every matched char is a key
}

/** A coordinate with one decimal (stable text for the same input). */
const n = (v: number) => (Math.round(v * 10) / 10).toString();
/** A tick value without float noise. */
const tickText = (v: number) => String(Number(v.toPrecision(10)));
/** Base units as whole token units, a number for plotting only. */
const units = (amount: bigint, decimals: number) => Number(formatUnits(amount, decimals));
const seconds = (ms: number) => `${tickText(ms / 1000)} s`;

/** Evenly spaced "nice" ticks (1, 2 or 5 × 10^k) from 0 to at least `max`; the last one is the axis end. */
export function niceTicks(max: number, count = 5): number[] {
  const top = max > 0 && Number.isFinite(max) ? max : 1;
  const raw = top / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((f) => f * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks: number[] = [];
  for (let i = 0; ticks.length === 0 || ticks[ticks.length - 1]! < top - step * 1e-9; i++) ticks.push(Number((i * step).toPrecision(12)));
  return ticks;
}

/** A balance series of one holding: [ms, whole units] points, drawn as steps (each value holds until the next). */
type Series = [number, number][];

/** The balance of `chain` at each cycle start, from `initial` at 0 to `final` at the end of the run. */
function seriesOf(log: SimLog, chain: string): Series {
  const d = log.token.decimals;
  const points: Series = [];
  if ((log.samples[0]?.atMs ?? 1) > 0) points.push([0, units(log.initial[chain] ?? 0n, d)]);
  for (const s of log.samples) points.push([s.atMs, units(s.balances[chain] ?? 0n, d)]);
  const last = points[points.length - 1]!; // at least the initial point or one sample
  if (log.durationMs > last[0]) points.push([log.durationMs, units(log.final[chain] ?? 0n, d)]);
  return points;
}

/** The plot area of one panel and its scales. */
interface Panel {
  top: number;
  bottom: number;
  x: (ms: number) => number;
  y: (whole: number) => number;
}

function panelAt(index: number, endMs: number, yMax: number): Panel {
  const top = TOP + index * PANEL_H + PLOT_TOP;
  const bottom = top + PLOT_H;
  return {
    top,
    bottom,
    x: (ms) => LEFT + (Math.max(0, ms) / endMs) * PLOT_W,
    y: (whole) => bottom - (Math.max(0, whole) / yMax) * PLOT_H,
  };
}

/** The frame of a panel: title, plot border, ticks with labels and grid, axis labels. */
function frame(index: number, title: string, symbol: string, xTicks: number[], yTicks: number[], p: Panel): string[] {
  const out = [
    `<g class="panel" data-index="${index}">`,
    `<text class="panel-title" x="${LEFT}" y="${n(p.top - 8)}" font-size="14" font-weight="bold">${escapeXml(title)}</text>`,
    `<rect x="${LEFT}" y="${n(p.top)}" width="${PLOT_W}" height="${PLOT_H}" fill="none" stroke="#adb5bd"/>`,
  ];
  for (const t of yTicks) {
    const y = n(p.y(t));
    out.push(`<line x1="${LEFT}" y1="${y}" x2="${LEFT + PLOT_W}" y2="${y}" stroke="#e9ecef"/>`);
    out.push(`<text x="${LEFT - 6}" y="${y}" font-size="11" text-anchor="end" dominant-baseline="middle">${tickText(t)}</text>`);
  }
  for (const t of xTicks) {
    const x = n(p.x(t * 1000));
    out.push(`<line x1="${x}" y1="${n(p.bottom)}" x2="${x}" y2="${n(p.bottom + 4)}" stroke="#6c757d"/>`);
    out.push(`<text x="${x}" y="${n(p.bottom + 16)}" font-size="11" text-anchor="middle">${tickText(t)}</text>`);
  }
  const midY = n((p.top + p.bottom) / 2);
  out.push(
    `<text class="axis-label" x="${LEFT + PLOT_W / 2}" y="${n(p.bottom + 34)}" font-size="12" text-anchor="middle">simulated time, s</text>`,
    `<text class="axis-label" x="18" y="${midY}" font-size="12" text-anchor="middle" transform="rotate(-90 18 ${midY})">balance, ${escapeXml(symbol)}</text>`,
  );
  return out;
}

/** A step line through the series. */
function stepPath(series: Series, p: Panel, colour: string, cls: string): string {
  const [first, ...rest] = series;
  if (!first) return '';
  let d = `M${n(p.x(first[0]))} ${n(p.y(first[1]))}`;
  for (const [ms, v] of rest) d += ` H${n(p.x(ms))} V${n(p.y(v))}`;
  return `<path class="${cls}" d="${d}" fill="none" stroke="${colour}" stroke-width="2"/>`;
}

/** A horizontal line across the plot at `whole` units. */
function level(p: Panel, whole: number, cls: string, colour: string, dash: string, label: string): string {
  const y = n(p.y(whole));
  return `<line class="${cls}" x1="${LEFT}" y1="${y}" x2="${LEFT + PLOT_W}" y2="${y}" stroke="${colour}" stroke-dasharray="${dash}"><title>${escapeXml(label)}</title></line>`;
}

/** A triangle marker at x: pointing down (funds leave) or up (funds land), in the lane at the top of the plot. */
function triangle(x: number, p: Panel, down: boolean, colour: string): string {
  const y = p.top + 9;
  const pts = down ? [x - 5, y - 5, x + 5, y - 5, x, y + 4] : [x - 5, y + 5, x + 5, y + 5, x, y - 4];
  return `<polygon class="${down ? 'quoted' : 'settled'}" points="${pts.map(n).join(' ')}" fill="${colour}"/>`;
}

/** The legend: one row of swatches and labels, wrapped at the width. */
function legend(top: number, items: { swatch: string; label: string }[]): { svg: string[]; height: number } {
  const out = ['<g class="legend">'];
  let x = LEFT;
  let y = top;
  for (const item of items) {
    const w = 34 + item.label.length * 7;
    if (x + w > WIDTH - RIGHT && x > LEFT) {
      x = LEFT;
      y += LEGEND_ROW;
    }
    out.push(
      `<g class="legend-item" transform="translate(${n(x)} ${n(y)})">${item.swatch}<text x="26" y="4" font-size="12" dominant-baseline="middle">${escapeXml(item.label)}</text></g>`,
    );
    x += w;
  }
  out.push('</g>');
  return { svg: out, height: y - top + LEGEND_ROW };
}

const lineSwatch = (colour: string, dash = '', width = 2) =>
  `<line x1="0" y1="4" x2="20" y2="4" stroke="${colour}" stroke-width="${width}"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`;
const triangleSwatch = (colour: string, down: boolean) =>
  `<polygon points="${down ? '5 0 15 0 10 9' : '5 9 15 9 10 0'}" fill="${colour}"/>`;

function svgDocument(title: string, subtitle: string, height: number, body: string[]): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${n(height)}" viewBox="0 0 ${WIDTH} ${n(height)}" font-family="sans-serif">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text class="title" x="${LEFT}" y="26" font-size="18" font-weight="bold">${escapeXml(title)}</text>`,
    `<text class="subtitle" x="${LEFT}" y="46" font-size="12" fill="#495057">${escapeXml(subtitle)}</text>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}

/** The y ticks of a panel: from 0 to a little above the largest value plotted (balances, band lines). */
function yTop(values: number[]): number[] {
  return niceTicks(Math.max(0, ...values) * 1.05);
}

/**
 * The marks of transfer `index` on the panel of `chain`: ▼ (`quoted`) at `quotedAtMs` on its origin, ▲ (`settled`) at
 * `settledAtMs` where the funds landed (the destination when filled, the origin when refunded); none elsewhere.
 */
function transferMarks(t: TransferRecord, index: number, chain: string, p: Panel, symbol: string, decimals: number): string[] {
  const colour = t.outcome === 'filled' ? COLOURS.filled : t.outcome === 'refunded' ? COLOURS.refunded : COLOURS.open;
  const landsOn = t.outcome === 'refunded' ? t.origin : t.destination;
  const marks: string[] = [];
  if (t.origin === chain) marks.push(triangle(p.x(t.quotedAtMs), p, true, colour));
  if (t.settledAtMs !== null && landsOn === chain && (t.outcome === 'filled' || t.outcome === 'refunded')) {
    marks.push(triangle(p.x(t.settledAtMs), p, false, colour));
  }
  if (marks.length === 0) return [];
  const settled = t.settledAtMs === null ? 'not settled' : `settled at ${seconds(t.settledAtMs)}`;
  const what = `${t.origin} → ${t.destination}: ${formatUnits(t.amountIn, decimals)} ${symbol}, ${t.outcome}, quoted at ${seconds(t.quotedAtMs)}, ${settled}`;
  return [`<g class="transfer ${t.outcome}" data-transfer="${index}"><title>${escapeXml(what)}</title>${marks.join('')}</g>`];
}

/**
 * The time of the first block mined after `ms` every `blockMs` (a payment sent when due is mined then: it did not
 * wait); `ms` itself when blocks are mined as transactions arrive (`blockMs` 0).
 */
function firstBlockAfter(ms: number, blockMs: number): number {
  return blockMs > 0 ? (Math.floor(ms / blockMs) + 1) * blockMs : ms;
}

/**
 * The balances of one run: one panel per holding (in `log.chains` order) with its balance line, the band of a banded
 * holding (`log.bands[chain]`; none for a weighted one), a `<g class="transfer <outcome>" data-transfer="<index>">`
 * per transfer touching the holding (▼ at `quotedAtMs` on the origin, ▲ at `settledAtMs` where the funds land;
 * refunded in red, unsettled or never deposited in grey) and a bar per payment that waited (mined after the first
 * block after it was due: from `dueMs` to its block, or to the end in red when it failed). Title, axis labels and a legend; text escaped.
 */
export function balancesSvg(log: SimLog): string {
  const { symbol, decimals } = log.token;
  const endMs = Math.max(log.durationMs, 1000);
  const xTicks = niceTicks(endMs / 1000, 8);
  const xEnd = xTicks[xTicks.length - 1]! * 1000; // niceTicks returns at least one tick
  const body: string[] = [];
  log.chains.forEach((chain, i) => {
    const series = seriesOf(log, chain);
    const band = log.bands[chain] ?? null;
    const bandValues = band ? [units(band.min, decimals), units(band.target, decimals), units(band.max, decimals)] : [];
    const yTicks = yTop([...series.map(([, v]) => v), ...bandValues]);
    const p = panelAt(i, xEnd, yTicks[yTicks.length - 1]!);
    const kind = band ? 'band' : 'weight';
    body.push(...frame(i, `${chain} (${kind})`, symbol, xTicks, yTicks, p));
    if (band) {
      const [min, target, max] = bandValues as [number, number, number];
      body.push(
        level(p, min, 'band-min', COLOURS.band, '6 4', `min ${formatUnits(band.min, decimals)} ${symbol}`),
        level(p, max, 'band-max', COLOURS.band, '6 4', `max ${formatUnits(band.max, decimals)} ${symbol}`),
        level(p, target, 'band-target', COLOURS.band, '2 3', `target ${formatUnits(band.target, decimals)} ${symbol}`),
      );
    }
    body.push(stepPath(series, p, COLOURS.balance, 'balance'));
    for (const pay of log.payments) {
      if (pay.chain !== chain || (pay.completedAtMs !== null && pay.completedAtMs <= firstBlockAfter(pay.dueMs, log.blockMs))) continue;
      const failed = pay.completedAtMs === null;
      const until = pay.completedAtMs ?? log.durationMs;
      const x1 = p.x(pay.dueMs);
      const w = Math.max(2, p.x(until) - x1);
      const what = `payment ${pay.id}: ${formatUnits(pay.amount, decimals)} ${symbol}, due at ${seconds(pay.dueMs)}, ${failed ? 'failed' : `waited ${seconds(until - pay.dueMs)}`}`;
      body.push(
        `<rect class="payment ${failed ? 'failed' : 'waited'}" x="${n(x1)}" y="${n(p.bottom - 10)}" width="${n(w)}" height="6" fill="${failed ? COLOURS.failed : COLOURS.waited}"><title>${escapeXml(what)}</title></rect>`,
      );
    }
    log.transfers.forEach((t, k) => body.push(...transferMarks(t, k, chain, p, symbol, decimals)));
    body.push('</g>');
  });
  const key = legend(TOP + log.chains.length * PANEL_H, [
    { swatch: lineSwatch(COLOURS.balance), label: 'balance' },
    { swatch: lineSwatch(COLOURS.band, '6 4', 1), label: 'band min / max' },
    { swatch: lineSwatch(COLOURS.band, '2 3', 1), label: 'target' },
    { swatch: triangleSwatch(COLOURS.filled, true), label: 'transfer quoted (origin)' },
    { swatch: triangleSwatch(COLOURS.filled, false), label: 'transfer filled (destination)' },
    { swatch: triangleSwatch(COLOURS.refunded, false), label: 'refunded (back on origin)' },
    { swatch: triangleSwatch(COLOURS.open, true), label: 'not settled' },
    { swatch: `<rect x="0" y="1" width="20" height="6" fill="${COLOURS.waited}"/>`, label: 'payment waited' },
    { swatch: `<rect x="0" y="1" width="20" height="6" fill="${COLOURS.failed}"/>`, label: 'payment failed' },
  ]);
  const title = `${log.scenario}: treasury balances`;
  const subtitle = `seed ${log.seed}, ${symbol}, ${log.cycles} cycles, ${seconds(log.durationMs)} simulated`;
  return svgDocument(title, subtitle, TOP + log.chains.length * PANEL_H + key.height + 10, [...body, ...key.svg]);
}

/**
 * The balances of several runs of one scenario (`runs` in order, e.g. the variants of `ballast simulate --compare`):
 * one panel per holding of the first run, one balance line per run in its own colour, each run's band `min`
 * (dashed, its colour) where its holding has a band, and a legend naming the runs. Text escaped.
 */
export function compareSvg(scenario: string, seed: number, runs: readonly { name: string; log: SimLog }[]): string {
  const first = runs[0]?.log;
  const chains = first?.chains ?? [];
  const symbol = first?.token.symbol ?? '';
  const decimals = first?.token.decimals ?? 0;
  const endMs = Math.max(1000, ...runs.map((r) => r.log.durationMs));
  const xTicks = niceTicks(endMs / 1000, 8);
  const xEnd = xTicks[xTicks.length - 1]! * 1000; // niceTicks returns at least one tick
  const colour = (i: number) => PALETTE[i % PALETTE.length]!;
  const body: string[] = [];
  chains.forEach((chain, i) => {
    const lines = runs.map((r) => seriesOf(r.log, chain));
    const mins = runs.map((r) => r.log.bands[chain]?.min ?? null);
    const yTicks = yTop([...lines.flat().map(([, v]) => v), ...mins.map((m) => (m === null ? 0 : units(m, decimals)))]);
    const p = panelAt(i, xEnd, yTicks[yTicks.length - 1]!);
    body.push(...frame(i, chain, symbol, xTicks, yTicks, p));
    mins.forEach((m, j) => {
      if (m !== null)
        body.push(
          level(p, units(m, decimals), 'band-min', colour(j), '6 4', `${runs[j]!.name}: min ${formatUnits(m, decimals)} ${symbol}`),
        );
    });
    lines.forEach((series, j) => body.push(stepPath(series, p, colour(j), 'balance')));
    body.push('</g>');
  });
  const key = legend(TOP + chains.length * PANEL_H, [
    ...runs.map((r, j) => ({ swatch: lineSwatch(colour(j)), label: r.name })),
    { swatch: lineSwatch(COLOURS.band, '6 4', 1), label: 'band min (variant colour)' },
  ]);
  const title = `${scenario}: balances by variant`;
  return svgDocument(title, `seed ${seed}, ${symbol}, ${runs.length} variants`, TOP + chains.length * PANEL_H + key.height + 10, [
    ...body,
    ...key.svg,
  ]);
}
