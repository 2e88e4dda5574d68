/**
 * The Bitcoin model's fee market: per schedule, market states by block height (a step function drawn in
 * advance) and jumps tied to the Relay's quotes (from the next block on, for a number of blocks: the market a
 * deposit priced at quote time meets in the blocks after it went out). A state is a clearing level and a slow
 * rate; from it follow the estimates table that GET /fee-estimates answers (confirmation target → sat/vB, keys
 * like Esplora's "1"…"6", "144", "504", "1008", monotone non-increasing in the target) and the block's clearing
 * rate. A schedule without market states keeps the model's original flat table ({@link LEGACY_ESTIMATES}).
 *
 * The rules, chosen to be simple and stated once:
 * - The clearing rate of block h is the estimate for the next two blocks of the market at h, read as the
 *   sandbox reads it (`esploraFeeRate`: the smallest target ≥ 2, rounded up), or the node's mempool minimum fee
 *   at h when that is higher: a miner includes a transaction (with its unmined ancestors: CPFP) only when that
 *   package's fee rate reaches it. The legacy table clears at 5.
 * - The estimates served between blocks are those of the last mined block's market (estimates change between
 *   blocks, never within one), each raised to the node's mempool minimum fee, as Bitcoin Core's
 *   `estimatesmartfee` raises its answer to the mempool's and the relay's minimum.
 * Rates are whole sat/vB; the JSON boundary serves them as numbers.
 */

/** The model's original GET /fee-estimates answer: a flat market clearing at 5 sat/vB. */
export const LEGACY_ESTIMATES: Readonly<Record<string, number>> = { '1': 8, '6': 5, '144': 2, '1008': 1 };

/** The legacy table's clearing rate, sat/vB. */
const LEGACY_CLEARING = twoBlockRate(LEGACY_ESTIMATES);

/** Confirmation targets of a drawn market's estimates table, in blocks (as Esplora keys them). */
export const TARGETS = [1, 2, 3, 4, 5, 6, 144, 504, 1008] as const;

/** A market state: the clearing level (the two-block estimate, sat/vB) and the slowest target's estimate (sat/vB). */
export interface MarketState {
  level: number;
  slow: number;
}

/** The market from block `atHeight` on (until the next step). */
export interface MarketStep extends MarketState {
  atHeight: number;
}

/**
 * A jump of the market tied to the Relay's quotes: once quote `afterQuote` (counted from 0 over the schedule)
 * is answered, the level is `level` for the `blocks` blocks after the current head (a deposit priced at quote
 * time meets it in the next block); with `repeat`, after every later quote too (a market that keeps outrunning
 * the Relay's price). The slow estimate stays that of the underlying state.
 */
export interface MarketJump {
  afterQuote: number;
  level: number;
  blocks: number;
  repeat?: boolean;
}

/** The node's mempool minimum fee from block `atHeight` on, sat/vB (1 = only the minimum relay fee). */
export interface MinFeeMove {
  atHeight: number;
  satPerVb: number;
}

/**
 * The estimates table of a market state (the legacy table for `null`): targets 1–6, 144, 504 and 1008, from
 * `level + ⌈level/4⌉` at one block through `level` at two, down by a tenth of the level per block to six, then
 * `⌈level/3⌉`, `⌈level/5⌉` and `slow`, each at least `slow` and at most the previous one.
 */
export function estimatesOf(state: MarketState | null): Record<string, number> {
  if (state === null) return { ...LEGACY_ESTIMATES };
  const { level, slow } = state;
  const raw: Record<number, number> = {
    1: level + Math.ceil(level / 4),
    2: level,
    144: Math.ceil(level / 3),
    504: Math.ceil(level / 5),
    1008: slow,
  };
  for (let t = 3; t <= 6; t++) raw[t] = level - Math.ceil(((t - 2) * level) / 10);
  const table: Record<string, number> = {};
  let previous = Number.POSITIVE_INFINITY;
  for (const t of TARGETS) {
    previous = Math.max(Math.min(raw[t]!, previous), Math.min(slow, level)); // every target is listed above
    table[String(t)] = previous;
  }
  return table;
}

/**
 * The rate for the next two blocks in an estimates table, as the sandbox's Relay reads it (`esploraFeeRate`:
 * the smallest target ≥ 2, rounded up, at least 1), sat/vB.
 */
export function twoBlockRate(table: Readonly<Record<string, number>>): bigint {
  const targets = Object.keys(table)
    .map(Number)
    .filter((t) => Number.isInteger(t) && t >= 2)
    .sort((a, b) => a - b);
  const rate = table[String(targets[0] ?? 2)] ?? 1;
  return BigInt(Math.max(1, Math.ceil(rate)));
}

/** The table with every estimate raised to `minSatPerVb` (the node's mempool minimum fee). */
export function raisedTo(table: Readonly<Record<string, number>>, minSatPerVb: bigint): Record<string, number> {
  const floor = Number(minSatPerVb); // a fee rate in sat/vB, far below 2^53
  return Object.fromEntries(Object.entries(table).map(([t, r]) => [t, Math.max(r, floor)]));
}

/** A schedule's fee market: its steps by height, the jumps its quotes triggered, and its mempool minimum fee moves. */
export class FeeMarket {
  /** Jumps triggered so far: the heights they cover (inclusive) and their level. */
  private readonly active: { from: number; to: number; level: number }[] = [];

  constructor(
    private readonly steps: readonly MarketStep[] = [],
    private readonly jumps: readonly MarketJump[] = [],
    private readonly minFeeMoves: readonly MinFeeMove[] = [],
  ) {}

  /** The market state at block `height` (null: the legacy flat market, without a jump over it). */
  stateAt(height: number): MarketState | null {
    let base: MarketState | null = null;
    let at = -1;
    for (const s of this.steps) {
      if (s.atHeight <= height && s.atHeight >= at) {
        base = { level: s.level, slow: s.slow };
        at = s.atHeight;
      }
    }
    const jump = this.active.filter((j) => j.from <= height && height <= j.to).reduce((m, j) => Math.max(m, j.level), 0);
    if (jump === 0) return base;
    return { level: Math.max(jump, base?.level ?? 0), slow: Math.min(base?.slow ?? 1, jump) };
  }

  /**
   * The clearing rate of block `height`, sat/vB (see the module doc), never below the node's mempool minimum
   * fee there: a mempool full enough to refuse a rate fills blocks above it.
   */
  clearingAt(height: number): bigint {
    const state = this.stateAt(height);
    const market = state === null ? LEGACY_CLEARING : twoBlockRate(estimatesOf(state));
    const min = this.minFeeAt(height);
    return market > min ? market : min;
  }

  /** The node's mempool minimum fee at block `height`, sat/vB (at least the 1 sat/vB minimum relay fee). */
  minFeeAt(height: number): bigint {
    let fee = 1;
    let at = -1;
    for (const m of this.minFeeMoves) {
      if (m.atHeight <= height && m.atHeight >= at) {
        fee = m.satPerVb;
        at = m.atHeight;
      }
    }
    return BigInt(Math.max(1, fee));
  }

  /**
   * The highest rate the schedule's market or minimum fee ever reaches, sat/vB (5 for the flat legacy market):
   * what the solver pays, so its refunds are never stuck.
   */
  ceilingSatPerVb(): bigint {
    const levels = [5, ...this.steps.map((s) => s.level), ...this.jumps.map((j) => j.level), ...this.minFeeMoves.map((m) => m.satPerVb)];
    return BigInt(Math.max(...levels));
  }

  /**
   * Whether the market was steady and payable over blocks `from`…`to`: the same state and minimum fee at each,
   * and a clearing rate of at most `capSatPerVb`.
   */
  steady(from: number, to: number, capSatPerVb: bigint): boolean {
    const key = (h: number) => `${JSON.stringify(this.stateAt(h))}/${this.minFeeAt(h)}`;
    for (let h = Math.max(0, from); h <= to; h++) {
      if (key(h) !== key(to)) return false;
      if (this.clearingAt(h) > capSatPerVb) return false;
    }
    return true;
  }

  /** What GET /fee-estimates answers with `head` mined and the node's minimum fee at `minFee` sat/vB. */
  estimates(head: number, minFee: bigint): Record<string, number> {
    return raisedTo(estimatesOf(this.stateAt(head)), minFee);
  }

  /**
   * Notes that quote `index` was answered at `head`: the jumps it triggers start at the next block.
   *
   * @returns the jumps triggered, for the journal
   */
  quoted(index: number, head: number): MarketJump[] {
    const hit = this.jumps.filter((j) => j.afterQuote === index || (j.repeat === true && j.afterQuote < index));
    for (const j of hit) this.active.push({ from: head + 1, to: head + j.blocks, level: j.level });
    return hit;
  }
}
