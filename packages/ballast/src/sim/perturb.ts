/**
 * Families of perturbed Hyperlane scenarios (docs/simulate.md "Perturbed families"): a member is the file with every
 * transfer's amount scaled by a factor drawn in [0.8, 1.2], its time moved by up to ± `jitterMs`, and its chains
 * renamed, all drawn from the member's seed. The same seed runs the member (the solver's delivery jitter and
 * failures), so one number decides both the traffic and the fills, and a member repeats exactly. Works on the
 * document, before it is read, so a transfer's receipt and payment (and, in a multi-asset file, its two assets)
 * move together. Pure.
 */
import { HyperlaneScenarioSchema, type HyperlaneScenario } from './hyperlane.ts';
import { seededRandom } from './world.ts';

/** How a member differs from its file. */
export interface PerturbOptions {
  /** Smallest and largest amount factor, thousandths (default 800 and 1200: × 0.8 to × 1.2). */
  minPermille?: number;
  maxPermille?: number;
  /** Largest move of a transfer's time, ms either way (default 500); a time never goes below 0. */
  jitterMs?: number;
  /** Rename the chains (default true). */
  rename?: boolean;
}

/** Names a renamed chain can take (each member draws its own, in its own order). */
const CHAIN_NAMES = ['base', 'arbitrum', 'optimism', 'ethereum', 'polygon', 'linea', 'scroll', 'zksync', 'blast', 'mantle', 'mode', 'zora'];

/** The draws of a member: a stream apart from the one its run's world uses with the same seed. */
function trafficRandom(seed: number): () => number {
  return seededRandom(Math.imul(seed ^ 0x5bd1e995, 0x27d4eb2d) >>> 0);
}

/**
 * The chain names of a member: each chain of the file gets a distinct name drawn from {@link CHAIN_NAMES}, or
 * `chain-<n>` beyond them; a drawn name that is one of the file's other chains is never used.
 */
export function renamedChains(chains: readonly string[], seed: number): Record<string, string> {
  const random = trafficRandom(seed + 0x9e37);
  const pool = CHAIN_NAMES.filter((n) => !chains.includes(n));
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!]; // i, j < pool.length
  }
  return Object.fromEntries(chains.map((c, i) => [c, pool[i] ?? `chain-${i + 1}`]));
}

/** A key of the file (`chain` or `"ASSET|chain"`) with its chain renamed. */
function renameKey(key: string, names: Readonly<Record<string, string>>): string {
  const bar = key.lastIndexOf('|');
  const chain = bar < 0 ? key : key.slice(bar + 1);
  const renamed = names[chain] ?? chain;
  return bar < 0 ? renamed : `${key.slice(0, bar + 1)}${renamed}`;
}

const renameRecord = <T>(r: Readonly<Record<string, T>>, names: Readonly<Record<string, string>>): Record<string, T> =>
  Object.fromEntries(Object.entries(r).map(([k, v]) => [renameKey(k, names), v]));

/**
 * One member of the family of a Hyperlane scenario document: see the module comment. Named `<name>~<seed>`; its
 * transfers sorted by time again (a stable sort), each amount at least 1 base unit.
 *
 * @throws ZodError when the document is not a Hyperlane scenario; RangeError for options out of order
 */
export function perturbHyperlane(doc: unknown, seed: number, options: PerturbOptions = {}): HyperlaneScenario {
  const h = HyperlaneScenarioSchema.parse(doc);
  const minP = options.minPermille ?? 800;
  const maxP = options.maxPermille ?? 1200;
  const jitterMs = options.jitterMs ?? 500;
  if (!(Number.isInteger(minP) && Number.isInteger(maxP) && minP > 0 && minP <= maxP) || !(jitterMs >= 0)) {
    throw new RangeError(`perturbation: expected 0 < minPermille ≤ maxPermille (integers) and jitterMs ≥ 0`);
  }
  const random = trafficRandom(seed);
  const names = options.rename === false ? Object.fromEntries(h.chains.map((c) => [c, c])) : renamedChains(h.chains, seed);
  const transfers = h.transfers
    .map((t) => {
      const permille = BigInt(minP + Math.floor(random() * (maxP - minP + 1)));
      const scaled = (BigInt(t.amount) * permille) / 1000n;
      const moved = Math.max(0, Math.round(t.timestamp + (random() * 2 - 1) * jitterMs));
      return {
        ...t,
        amount: (scaled > 0n ? scaled : 1n).toString(),
        timestamp: moved,
        origin: names[t.origin] ?? t.origin,
        destination: names[t.destination] ?? t.destination,
      };
    })
    .sort((a, b) => a.timestamp - b.timestamp);
  const strategy = h.defaultStrategyConfig;
  return {
    ...h,
    name: `${h.name}~${seed}`,
    chains: h.chains.map((c) => names[c] ?? c),
    transfers,
    ...(h.initialImbalance ? { initialImbalance: renameRecord(h.initialImbalance, names) } : {}),
    defaultBridgeConfig: Object.fromEntries(
      Object.entries(h.defaultBridgeConfig).map(([o, byDest]) => [renameKey(o, names), renameRecord(byDest, names)]),
    ),
    defaultStrategyConfig: { ...strategy, chains: renameRecord(strategy.chains, names) },
  };
}
