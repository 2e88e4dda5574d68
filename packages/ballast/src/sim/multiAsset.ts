/**
 * Multi-asset Hyperlane scenarios (hyperlane-xyz/hyperlane-monorepo, typescript/rebalancer-sim, `ScenarioFile` with
 * `assets`; docs/simulate.md "Hyperlane scenarios"). Ballast rebalances each asset on its own (a holding is one
 * asset; a cycle moves an asset between chains, it never swaps one asset for another), so such a file decomposes
 * exactly into one single-asset scenario per asset, and the logs of their runs merge into one log whose holdings
 * are keyed `"ASSET|chain"`:
 *
 * - a transfer `sourceAsset` on the origin → `destinationAsset` on the destination is a receipt of the source
 *   asset on the origin at its timestamp and a payment of the destination asset out of the destination
 *   `userTransferDeliveryDelay` ms later (at once when origin and destination are the same chain, as Hyperlane
 *   delivers a same-chain swap), its latency counted from the timestamp;
 * - each asset's holdings come from the strategy entries keyed `"ASSET|chain"`, mapped as a single-asset file's;
 * - every asset starts with `defaultInitialCollateral` per chain, plus `initialImbalance` keyed `"ASSET|chain"` (or
 *   by chain, for every asset); `walletInventory` (the rebalancer wallet's own tokens) is not read: Ballast's
 *   treasury is the holdings themselves;
 * - the assets must have the same decimals (a cross-asset amount is one base-unit amount on both sides, and the
 *   merged log's totals add base units across assets).
 *
 * Pure.
 */
import type { SimLog } from './run.ts';
import type { Flow, SimScenario } from './scenario.ts';
import { HYPERLANE_DECIMALS, HyperlaneScenarioSchema, holdingsOf, hyperlaneCommon, type HyperlaneScenario } from './hyperlane.ts';

/** The key of an asset's holding on a chain in a merged log: `"ASSET|chain"`. */
export function assetKey(asset: string, chain: string): string {
  return `${asset}|${chain}`;
}

/**
 * Reads a multi-asset Hyperlane scenario into one scenario per asset, in the order of `assets`: named
 * `<name>/<ASSET>`, its token the asset (symbol, decimals, price 1 USD), its chains the file's.
 *
 * @throws Error one line: no `assets` list, an asset listed twice, assets of different decimals, a transfer
 *   without `sourceAsset`/`destinationAsset` or naming an unknown asset or chain; ZodError for a malformed file
 */
export function readMultiAssetScenarios(doc: unknown): SimScenario[] {
  const h = HyperlaneScenarioSchema.parse(doc);
  const assets = h.assets;
  if (assets === undefined || assets.length === 0) throw new Error(`${h.name}: transfers name assets but the file lists no assets`);
  const symbols = new Set(assets.map((a) => a.symbol));
  if (symbols.size !== assets.length) throw new Error(`${h.name}: an asset is listed twice`);
  if (new Set(assets.map((a) => a.decimals)).size > 1) {
    throw new Error(`${h.name}: assets of different decimals (${assets.map((a) => `${a.symbol} ${a.decimals}`).join(', ')})`);
  }
  const known = new Set(h.chains);
  for (const t of h.transfers) {
    for (const c of [t.origin, t.destination]) if (!known.has(c)) throw new Error(`${h.name}: transfer ${t.id} names unknown chain ${c}`);
    for (const a of [t.sourceAsset, t.destinationAsset]) {
      if (a === undefined) throw new Error(`${h.name}: transfer ${t.id} lacks sourceAsset or destinationAsset`);
      if (!symbols.has(a)) throw new Error(`${h.name}: transfer ${t.id} names unknown asset ${a}`);
    }
  }
  return assets.map(({ symbol, decimals }) => {
    const initial: Record<string, bigint> = {};
    for (const c of h.chains) {
      const extra = h.initialImbalance?.[assetKey(symbol, c)] ?? h.initialImbalance?.[c] ?? '0';
      initial[c] = BigInt(h.defaultInitialCollateral) + BigInt(extra);
    }
    const total = Object.values(initial).reduce((a, b) => a + b, 0n);
    return {
      name: `${h.name}/${symbol}`,
      chains: [...h.chains],
      token: { symbol, decimals, priceUsd: '1' },
      initial,
      flows: assetFlows(h, symbol),
      ...hyperlaneCommon(h, total, decimals),
      holdings: holdingsOf(assetView(h, symbol), toHyperlaneUnits(total, decimals)),
    };
  });
}

/** The flows of one asset: receipts of the transfers it is the source asset of, payments of those it is the destination asset of. */
function assetFlows(h: HyperlaneScenario, asset: string): Flow[] {
  const delay = h.defaultTiming.userTransferDeliveryDelay;
  const flows: Flow[] = [];
  for (const t of h.transfers) {
    const amount = BigInt(t.amount);
    if (t.sourceAsset === asset) flows.push({ id: `${t.id}/in`, kind: 'receipt', chain: t.origin, atMs: t.timestamp, amount });
    if (t.destinationAsset === asset) {
      const atMs = t.timestamp + (t.origin === t.destination ? 0 : delay);
      flows.push({ id: t.id, kind: 'payment', chain: t.destination, atMs, amount, requestedAtMs: t.timestamp });
    }
  }
  return flows.sort((a, b) => a.atMs - b.atMs);
}

/** The document as one asset sees it: the strategy's `"ASSET|chain"` entries of that asset, keyed by chain. */
function assetView(h: HyperlaneScenario, asset: string): HyperlaneScenario {
  const prefix = `${asset}|`;
  const chains = Object.fromEntries(
    Object.entries(h.defaultStrategyConfig.chains)
      .filter(([key]) => key.startsWith(prefix))
      .map(([key, c]) => [key.slice(prefix.length), c]),
  );
  return { ...h, defaultStrategyConfig: { ...h.defaultStrategyConfig, chains } };
}

/** A base-unit amount of `decimals` in Hyperlane's 18-decimal base units (what `holdingsOf` takes). */
function toHyperlaneUnits(amount: bigint, decimals: number): bigint {
  return decimals <= HYPERLANE_DECIMALS
    ? amount * 10n ** BigInt(HYPERLANE_DECIMALS - decimals)
    : amount / 10n ** BigInt(decimals - HYPERLANE_DECIMALS);
}

/**
 * Merges the logs of one run per asset (each log's asset is its token's symbol) into one log: chains, bands,
 * balances, payments and transfers keyed `"ASSET|chain"`; samples at every time any part sampled, each part's
 * balances as of its latest sample then (its initial balances before its first); cycles, cycle errors (prefixed
 * with the asset) and store rows summed; the duration the longest; token, seed, `pollMs` and `blockMs` the first part's;
 * `assets` the symbols in order.
 *
 * @throws Error when there is no log, or the assets' tokens differ in decimals (base-unit totals would not add up)
 */
export function mergeAssetLogs(name: string, logs: readonly SimLog[]): SimLog {
  const first = logs[0];
  if (first === undefined) throw new Error(`${name}: no asset to merge`);
  if (logs.some((l) => l.token.decimals !== first.token.decimals)) {
    throw new Error(`${name}: assets of different decimals (${logs.map((l) => `${l.token.symbol} ${l.token.decimals}`).join(', ')})`);
  }
  const rekey = <T>(asset: string, rec: Record<string, T>): Record<string, T> =>
    Object.fromEntries(Object.entries(rec).map(([c, v]) => [assetKey(asset, c), v]));
  const merged: SimLog = {
    scenario: name,
    seed: first.seed,
    chains: [],
    token: { ...first.token },
    pollMs: first.pollMs,
    blockMs: first.blockMs,
    mins: {},
    bands: {},
    initial: {},
    final: {},
    payments: [],
    transfers: [],
    samples: mergeSamples(logs),
    cycles: 0,
    cycleErrors: [],
    durationMs: 0,
    storeTransfers: {},
    assets: logs.map((l) => l.token.symbol),
  };
  for (const l of logs) {
    const a = l.token.symbol;
    merged.chains.push(...l.chains.map((c) => assetKey(a, c)));
    Object.assign(merged.mins, rekey(a, l.mins));
    Object.assign(merged.bands, rekey(a, l.bands));
    Object.assign(merged.initial, rekey(a, l.initial));
    Object.assign(merged.final, rekey(a, l.final));
    merged.payments.push(...l.payments.map((p) => ({ ...p, chain: assetKey(a, p.chain) })));
    merged.transfers.push(...l.transfers.map((t) => ({ ...t, origin: assetKey(a, t.origin), destination: assetKey(a, t.destination) })));
    merged.cycles += l.cycles;
    merged.cycleErrors.push(...l.cycleErrors.map((e) => `${a}: ${e}`));
    merged.durationMs = Math.max(merged.durationMs, l.durationMs);
    for (const [status, n] of Object.entries(l.storeTransfers)) merged.storeTransfers[status] = (merged.storeTransfers[status] ?? 0) + n;
    if (l.needs) (merged.needs ??= []).push(...l.needs.map((n) => ({ ...n, chain: assetKey(a, n.chain) })));
  }
  return merged;
}

/** Samples of every part at the union of their times, each part's balances carried forward (keyed `"ASSET|chain"`). */
function mergeSamples(logs: readonly SimLog[]): SimLog['samples'] {
  const times = [...new Set(logs.flatMap((l) => l.samples.map((s) => s.atMs)))].sort((a, b) => a - b);
  const next = logs.map(() => 0); // per part: index of its first sample after the current time
  return times.map((atMs) => {
    const balances: Record<string, bigint> = {};
    logs.forEach((l, i) => {
      while (next[i]! < l.samples.length && l.samples[next[i]!]!.atMs <= atMs) next[i]! += 1;
      const latest = next[i] === 0 ? l.initial : l.samples[next[i]! - 1]!.balances;
      for (const [c, b] of Object.entries(latest)) balances[assetKey(l.token.symbol, c)] = b;
    });
    return { atMs, balances };
  });
}
