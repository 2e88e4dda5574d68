/**
 * The pictures of a simulation run (src/sim/svg.ts) from hand-made logs: well-formed standalone SVG, one panel per
 * holding, band lines only for banded holdings, transfer and payment marks, escaped text, deterministic output.
 */
import { describe, expect, it } from 'vitest';
import type { SimLog } from '../../../packages/ballast/src/sim/run.ts';
import { balancesSvg, compareSvg, escapeXml, niceTicks } from '../../../packages/ballast/src/sim/svg.ts';
import { allElements, byClass, parseXml, type XmlElement } from './xmlTree.ts';

const NAME = 'pay <&> "weekly" & more';

/** Three holdings: `a` and `c` banded, `b` weighted; four transfers of every outcome; payments on time, late, failed. */
function log(): SimLog {
  return {
    scenario: NAME,
    seed: 4,
    chains: ['a', 'b', 'c'],
    token: { symbol: 'TOK', decimals: 2, priceUsd: '1' },
    pollMs: 1000,
    blockMs: 250,
    mins: { a: 50000n, b: null, c: 10000n },
    bands: { a: { min: 50000n, target: 80000n, max: 150000n }, b: null, c: { min: 10000n, target: 20000n, max: 30000n } },
    initial: { a: 100000n, b: 100000n, c: 20000n },
    final: { a: 60000n, b: 90000n, c: 20000n },
    payments: [
      { id: 'on-time', chain: 'a', amount: 10000n, requestedAtMs: 0, dueMs: 1000, completedAtMs: 1000 },
      { id: 'next-block', chain: 'a', amount: 5000n, requestedAtMs: 1000, dueMs: 1100, completedAtMs: 1250 },
      { id: 'late', chain: 'a', amount: 70000n, requestedAtMs: 2000, dueMs: 2000, completedAtMs: 4500 },
      { id: 'never', chain: 'c', amount: 99000n, requestedAtMs: 3000, dueMs: 3000, completedAtMs: null },
    ],
    transfers: [
      {
        origin: 'b',
        destination: 'a',
        amountIn: 40000n,
        amountOut: 39900n,
        fee: 100n,
        quotedAtMs: 2000,
        settledAtMs: 4000,
        outcome: 'filled',
      },
      { origin: 'a', destination: 'b', amountIn: 5000n, amountOut: 0n, fee: 0n, quotedAtMs: 5000, settledAtMs: 6000, outcome: 'refunded' },
      { origin: 'b', destination: 'c', amountIn: 1000n, amountOut: 0n, fee: 0n, quotedAtMs: 7000, settledAtMs: null, outcome: 'inFlight' },
      {
        origin: 'c',
        destination: 'a',
        amountIn: 1000n,
        amountOut: 0n,
        fee: 0n,
        quotedAtMs: 7500,
        settledAtMs: null,
        outcome: 'notDeposited',
      },
    ],
    samples: [
      { atMs: 0, balances: { a: 100000n, b: 100000n, c: 20000n } },
      { atMs: 3000, balances: { a: 20000n, b: 60000n, c: 20000n } },
      { atMs: 6000, balances: { a: 60000n, b: 90000n, c: 20000n } },
    ],
    cycles: 3,
    cycleErrors: [],
    durationMs: 9000,
    storeTransfers: { success: 1 },
  };
}

const panels = (svg: XmlElement) => byClass(svg, 'panel');
const panelTitle = (panel: XmlElement) => byClass(panel, 'panel-title')[0]!.text;
/** The transfer groups of a panel by transfer index. */
const transferGroups = (panel: XmlElement, index: number) =>
  byClass(panel, 'transfer').filter((g) => g.attrs['data-transfer'] === String(index));
/** The x of a polygon marker's tip (its last point). */
const tipX = (polygon: XmlElement) => Number(polygon.attrs.points!.split(' ').at(-2));

describe('balancesSvg', () => {
  it('is a standalone SVG document with a title, axis labels and a legend', () => {
    const svg = parseXml(balancesSvg(log()));
    expect(svg.name).toBe('svg');
    expect(svg.attrs.xmlns).toBe('http://www.w3.org/2000/svg');
    expect(Number(svg.attrs.height)).toBeGreaterThan(3 * 150);
    expect(byClass(svg, 'title')[0]!.text).toContain('treasury balances');
    const axes = byClass(svg, 'axis-label').map((e) => e.text);
    expect(axes.filter((t) => t === 'simulated time, s')).toHaveLength(3);
    expect(axes.filter((t) => t === 'balance, TOK')).toHaveLength(3);
    const legend = byClass(svg, 'legend')[0]!;
    expect(allElements(legend).map((e) => e.text)).toEqual(expect.arrayContaining(['balance', 'band min / max', 'payment waited']));
  });

  it('draws one panel per holding, in order, each with one balance line', () => {
    const svg = parseXml(balancesSvg(log()));
    expect(panels(svg).map(panelTitle)).toEqual(['a (band)', 'b (weight)', 'c (band)']);
    for (const p of panels(svg)) expect(byClass(p, 'balance')).toHaveLength(1);
  });

  it('draws min, max and target only for banded holdings, at their levels', () => {
    const [a, b, c] = panels(parseXml(balancesSvg(log())));
    for (const p of [a!, c!]) {
      for (const cls of ['band-min', 'band-max', 'band-target']) expect(byClass(p, cls), cls).toHaveLength(1);
    }
    expect(allElements(b!).filter((e) => (e.attrs.class ?? '').startsWith('band-'))).toEqual([]);
    const y = (p: XmlElement, cls: string) => Number(byClass(p, cls)[0]!.attrs.y1);
    // SVG y grows downwards: max above target above min
    expect(y(a!, 'band-max')).toBeLessThan(y(a!, 'band-target'));
    expect(y(a!, 'band-target')).toBeLessThan(y(a!, 'band-min'));
    expect(byClass(a!, 'band-min')[0]!.children[0]!.text).toBe('min 500 TOK');
  });

  it('marks each transfer once when quoted on its origin and once where it settled', () => {
    const [a, b, c] = panels(parseXml(balancesSvg(log())));
    const marks = (p: XmlElement, i: number, cls: string) => transferGroups(p, i).flatMap((g) => byClass(g, cls));
    // filled b → a: quoted on b, landed on a
    expect(marks(b!, 0, 'quoted')).toHaveLength(1);
    expect(marks(a!, 0, 'settled')).toHaveLength(1);
    expect([...marks(a!, 0, 'quoted'), ...marks(b!, 0, 'settled'), ...transferGroups(c!, 0)]).toEqual([]);
    // refunded a → b: quoted on a, the refund back on a, nothing on b
    expect(marks(a!, 1, 'quoted')).toHaveLength(1);
    expect(marks(a!, 1, 'settled')).toHaveLength(1);
    expect(transferGroups(b!, 1)).toEqual([]);
    expect(transferGroups(a!, 1)[0]!.attrs.class).toBe('transfer refunded');
    // never settled: quoted only
    expect(marks(b!, 2, 'quoted')).toHaveLength(1);
    expect(transferGroups(c!, 2)).toEqual([]);
    expect(marks(c!, 3, 'quoted')).toHaveLength(1);
    expect(transferGroups(a!, 3)).toEqual([]);
    // the refunded one in another colour than the filled one
    expect(marks(a!, 1, 'settled')[0]!.attrs.fill).not.toBe(marks(a!, 0, 'settled')[0]!.attrs.fill);
    // x follows time: quoted at 5 s is right of settled at 4 s, and left of its refund at 6 s
    expect(tipX(marks(a!, 1, 'quoted')[0]!)).toBeGreaterThan(tipX(marks(a!, 0, 'settled')[0]!));
    expect(tipX(marks(a!, 1, 'quoted')[0]!)).toBeLessThan(tipX(marks(a!, 1, 'settled')[0]!));
  });

  it('marks the payments that waited or failed on their holding, not those paid when due (mined in the next block)', () => {
    const [a, b, c] = panels(parseXml(balancesSvg(log())));
    const waited = byClass(a!, 'waited');
    expect(waited).toHaveLength(1);
    expect(waited[0]!.children[0]!.text).toContain('payment late: 700 TOK');
    expect(byClass(a!, 'failed')).toEqual([]);
    expect(byClass(b!, 'payment')).toEqual([]);
    expect(byClass(c!, 'failed')).toHaveLength(1);
  });

  it('with blocks mined as transactions arrive, a payment mined after its due instant waited', () => {
    const [a] = panels(parseXml(balancesSvg({ ...log(), blockMs: 0 })));
    // `next-block` (due 1.1 s, mined 1.25 s) was paid when due on a 250 ms cadence; with automine it waited 150 ms
    expect(byClass(a!, 'waited').map((e) => e.children[0]!.text.split(':')[0])).toEqual(['payment next-block', 'payment late']);
  });

  it('escapes the scenario name in the text and the document title', () => {
    const doc = balancesSvg(log());
    expect(doc).not.toContain('<&>');
    expect(doc).toContain('pay &lt;&amp;&gt; &quot;weekly&quot; &amp; more');
    const svg = parseXml(doc);
    expect(svg.children.find((e) => e.name === 'title')!.text).toBe(`${NAME}: treasury balances`);
    expect(escapeXml(`<a href='x'>&</a>`)).toBe('&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;');
    expect(escapeXml('bell\u0007 tab\t')).toBe('bell tab\t');
  });

  it('gives the same document for the same log, and another for another log', () => {
    expect(balancesSvg(log())).toBe(balancesSvg(log()));
    expect(balancesSvg({ ...log(), final: { a: 1n, b: 1n, c: 1n } })).not.toBe(balancesSvg(log()));
  });

  it('scales the y axis over balances and band and the x axis over the run', () => {
    const [a] = panels(parseXml(balancesSvg(log())));
    const yTicks = allElements(a!)
      .filter((e) => e.name === 'text' && e.attrs['text-anchor'] === 'end')
      .map((e) => Number(e.text));
    // balances up to 1000 TOK, band max 1500 TOK
    expect(Math.max(...yTicks)).toBeGreaterThanOrEqual(1500);
    const xTicks = allElements(a!)
      .filter((e) => e.name === 'text' && e.attrs['text-anchor'] === 'middle' && e.attrs.class === undefined)
      .map((e) => Number(e.text));
    // the run lasts 9 s
    expect(xTicks[0]).toBe(0);
    expect(Math.max(...xTicks)).toBeGreaterThanOrEqual(9);
    expect(niceTicks(9, 8)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(niceTicks(1575)).toEqual([0, 500, 1000, 1500, 2000]);
    expect(niceTicks(0)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
  });
});

describe('compareSvg', () => {
  it('draws one panel per holding with one line per variant and a legend naming them', () => {
    const other: SimLog = { ...log(), bands: { ...log().bands, a: { min: 90000n, target: 100000n, max: 150000n } } };
    const doc = compareSvg(NAME, 4, [
      { name: 'scenario', log: log() },
      { name: 'high <min>', log: other },
    ]);
    const svg = parseXml(doc);
    expect(svg.attrs.xmlns).toBe('http://www.w3.org/2000/svg');
    expect(doc).not.toContain('<min>');
    const ps = panels(svg);
    expect(ps.map(panelTitle)).toEqual(['a', 'b', 'c']);
    for (const p of ps) {
      const lines = byClass(p, 'balance');
      expect(lines).toHaveLength(2);
      expect(lines[0]!.attrs.stroke).not.toBe(lines[1]!.attrs.stroke);
    }
    // each variant's min where its holding has a band: two on a and c, none on the weighted b
    expect(byClass(ps[0]!, 'band-min')).toHaveLength(2);
    expect(byClass(ps[1]!, 'band-min')).toHaveLength(0);
    const legend = allElements(byClass(svg, 'legend')[0]!).map((e) => e.text);
    expect(legend).toEqual(expect.arrayContaining(['scenario', 'high <min>']));
  });
});
