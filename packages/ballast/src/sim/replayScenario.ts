/**
 * Scenarios of a replay (docs/simulate.md "Replaying your own traffic"): one built from CSV traffic and the holdings
 * of an operator's config asset (Ballast scenarios' default routes, polling, retries and drain window), a scenario
 * renamed and rescaled to that asset's symbol and decimals, and a Ballast scenario document whose
 * `traffic: { csv: FILE }` is replaced by the file's rows. Amounts are bigint base units once built. Pure but for
 * {@link inlineCsvTraffic}, which reads the CSV file.
 */
import path from 'node:path';
import { parseUnits } from 'viem';
import type { AdoptedAsset } from './adoptConfig.ts';
import { BallastScenarioSchema } from './ballastScenario.ts';
import { CsvTrafficError, readCsvTraffic, type CsvFlow } from './csvTraffic.ts';
import type { SimScenario } from './scenario.ts';

/** Decimals of the simulated token when neither the config nor the scenario states them (USDC's and USDT's). */
export const CSV_DEFAULT_DECIMALS = 6;

const WHOLE_RE = /^[0-9]+(\.[0-9]+)?$/;

/**
 * Parses `--initial base=1000,arbitrum=3000` (whole units per chain).
 *
 * @throws Error one line naming the malformed pair and the expected form
 */
export function parseInitial(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of text.split(',')) {
    const [chain, amount, extra] = pair.split('=').map((p) => p.trim());
    if (!chain || !amount || extra !== undefined || !WHOLE_RE.test(amount)) {
      throw new Error(`--initial: "${pair}" is not chain=amount; write whole units per chain, e.g. --initial base=1000,arbitrum=3000`);
    }
    out[chain] = amount;
  }
  return out;
}

/** A CSV row's chain that the asset has no holding on, as a line-numbered error. */
function checkChains(rows: readonly CsvFlow[], chains: readonly string[], file: string, what: string): void {
  const bad = rows.find((r) => !chains.includes(r.chain));
  if (bad) {
    throw new CsvTrafficError(
      `${file}: line ${bad.line}, column chain: "${bad.chain}" is not a chain of ${what} (${chains.join(', ')}); fix the name or add a holding on it`,
    );
  }
}

/**
 * The scenario of CSV traffic replayed against a config asset: its holdings' chains, the asset as the token (USD
 * price 1), each chain starting at `initial` (whole units) or else at its band's target, and Ballast scenarios'
 * defaults for everything else (routes: 500 ms, no fees, no failures; polls every 1 s; docs/simulate.md).
 *
 * @param name the scenario's name (the CSV file's base name)
 * @param file the CSV file (for messages)
 * @param decimals the token's decimals
 * @throws CsvTrafficError a row on a chain the asset has no holding on; Error one line: fewer than two holdings,
 *   `initial` naming another chain, or a weighted holding without a starting balance
 */
export function csvScenario(
  name: string,
  file: string,
  asset: AdoptedAsset,
  decimals: number,
  rows: readonly CsvFlow[],
  initial: Readonly<Record<string, string>> = {},
): SimScenario {
  const chains = asset.holdings.map((h) => h.chain);
  if (chains.length < 2) throw new Error(`assets.${asset.symbol}: one holding; a replay needs at least two to move funds between`);
  checkChains(rows, chains, file, `${asset.symbol}'s holdings in the config`);
  const stray = Object.keys(initial).find((c) => !chains.includes(c));
  if (stray) throw new Error(`--initial: "${stray}" is not a chain of ${asset.symbol}'s holdings (${chains.join(', ')}); fix the name`);
  const missing = asset.holdings.filter((h) => 'weight' in h && initial[h.chain] === undefined).map((h) => h.chain);
  if (missing.length > 0) {
    throw new Error(
      `--initial: weighted holdings have no target to start from; give ${missing.join(', ')} a starting balance, e.g. --initial ${missing.map((c) => `${c}=1000`).join(',')}`,
    );
  }
  const units = (whole: string) => parseUnits(whole, decimals);
  const start = Object.fromEntries(asset.holdings.map((h) => [h.chain, units(initial[h.chain] ?? ('target' in h ? h.target : '0'))]));
  const d = BallastScenarioSchema.parse({ name, token: { symbol: 'X', decimals }, chains: {}, traffic: [], routes: { default: {} } });
  const r = d.routes.default!; // given above, defaults filled in
  const total = Object.values(start).reduce((sum, v) => sum + v, 0n);
  const unit = 10n ** BigInt(decimals);
  const totalWhole = (total + unit - 1n) / unit;
  return {
    name,
    chains,
    token: { symbol: asset.symbol, decimals, priceUsd: '1' },
    initial: start,
    flows: rows.map((f) => ({ id: f.id, kind: f.kind, chain: f.chain, atMs: f.atMs, amount: units(f.amount) })),
    routes: {},
    defaultRoute: {
      delayMs: r.delayMs,
      jitterMs: r.jitterMs,
      failureRate: r.failureRate,
      fees: { bps: r.feeBps, flatUsd: r.feeUsd },
      refuseQuotes: r.refuseQuotes,
    },
    pollMs: d.pollMs,
    retryMs: d.retryMs,
    drainMs: d.drainMs,
    holdings: asset.holdings,
    minTransfer: d.minTransfer,
    maxTransfer: String(totalWhole > 1n ? totalWhole : 1n),
    outages: [],
  };
}

/**
 * A scenario with the config asset's symbol and, when the config states them, its decimals: balances and flows
 * rescaled (to fewer decimals rounded down).
 */
export function withAsset(s: SimScenario, asset: AdoptedAsset): SimScenario {
  const decimals = asset.decimals ?? s.token.decimals;
  const shift = decimals - s.token.decimals;
  const scale = 10n ** BigInt(Math.abs(shift));
  const rescale = (v: bigint) => (shift >= 0 ? v * scale : v / scale);
  return {
    ...s,
    token: { ...s.token, symbol: asset.symbol, decimals },
    initial: Object.fromEntries(Object.entries(s.initial).map(([c, v]) => [c, rescale(v)])),
    flows: s.flows.map((f) => ({ ...f, amount: rescale(f.amount) })),
  };
}

/**
 * A Ballast scenario document with `traffic: { csv: FILE }` (FILE relative to the scenario file) given the file's
 * rows as its traffic list; any other document as is.
 *
 * @throws CsvTrafficError when the CSV cannot be read, is invalid, or names a chain the scenario lacks
 */
export function inlineCsvTraffic(doc: unknown, scenarioFile: string): unknown {
  if (doc === null || typeof doc !== 'object') return doc;
  const d = doc as Record<string, unknown>;
  const traffic = d.traffic as { csv?: unknown } | undefined;
  if (traffic === null || typeof traffic !== 'object' || Array.isArray(traffic) || typeof traffic.csv !== 'string') return doc;
  const file = path.resolve(path.dirname(scenarioFile), traffic.csv);
  const token = (d.token ?? {}) as { decimals?: unknown };
  const rows = readCsvTraffic(file, typeof token.decimals === 'number' ? token.decimals : CSV_DEFAULT_DECIMALS);
  checkChains(rows, Object.keys((d.chains ?? {}) as object), file, 'the scenario');
  return { ...d, traffic: rows.map((r) => ({ at: r.atMs, chain: r.chain, [r.kind]: r.amount, id: r.id })) };
}
