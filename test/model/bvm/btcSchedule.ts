/**
 * A fault schedule for the Bitcoin money-path model: one need of BTC moving from the Bitcoin chain to WBTC on
 * the EVM chain alpha, the cycles to run, which Esplora reads and broadcasts misbehave, reorgs, Relay faults,
 * how the solver treats each order (the EVM model's {@link FillPlan}) and how the Relay picks the coins of its
 * PSBTs; and the fee market (btcMarket.ts): market states by height, jumps after quotes, moves of the node's
 * mempool minimum fee, a Relay pricing from a stale market, our own unconfirmed change offered to the Relay,
 * and whether Ballast is configured to spend it (`chains.bitcoin.allowOwnUnconfirmedInputs`). Faults are keyed
 * by the running count of calls of their kind, so a schedule replays exactly and shrinks by dropping faults.
 * The market fields are optional: without them the world is the original one (a flat market clearing at
 * 5 sat/vB, the relay minimum fee, a Relay pricing at it, confirmed coins only). Amounts are satoshis.
 */
import fc from 'fast-check';
import type { CrashPoint } from '../../../packages/ballast/src/core/crashPoints.ts';
import { fillArb, type FillPlan } from '../schedule.ts';
import type { MarketJump, MarketStep, MinFeeMove } from './btcMarket.ts';

/** Satoshis per BTC. */
export const SATS = 100_000_000n;

/**
 * An Esplora read fault: `error` (HTTP 503), `lag` (a backend `blocks` behind that has none of the mempool),
 * or `notFound` (a load-balanced backend that does not have a mempool transaction: 404 for it; other reads 503).
 */
export type EsploraFault = { kind: 'error' } | { kind: 'lag'; blocks: number } | { kind: 'notFound' };

/**
 * A broadcast fault: `lost` (HTTP 503, the node never took it), `evict` (taken, left unmined for `afterBlocks`
 * blocks, then evicted; another node keeps it and brings it back `backAfterBlocks` blocks later, or never:
 * null), `stuck` (taken at a fee under the market: not mined for `blocks` blocks unless replaced).
 */
export type BroadcastFault =
  { kind: 'lost' } | { kind: 'evict'; afterBlocks: number; backAfterBlocks: number | null } | { kind: 'stuck'; blocks: number };

/**
 * A reorg of the Bitcoin chain tied to its progress: once the `afterMined`-th non-funding transaction is mined,
 * the chain replaces its last `depth` blocks `delayBlocks` blocks later; their transactions go back to the
 * mempool or vanish (the node forgets them; another node still has them and brings them back a block later).
 */
export interface BtcReorg {
  afterMined: number;
  delayBlocks: number;
  depth: number;
  mode: 'mempool' | 'vanish';
}

/** How the Relay picks the coins of a deposit PSBT: largest first, or avoiding coins its earlier quotes used. */
export type CoinSelection = 'largest' | 'avoidQuoted';

/**
 * Our own unconfirmed change offered to the Relay: the world starts with a self-transfer of ours (one coin of
 * {@link PENDING_CHANGE_SATS} to our own address) pending at `parentSatPerVb`, and for its first `quotes` quotes
 * the Relay builds the PSBT on our unconfirmed change (that one, or a deposit's) and one confirmed coin.
 */
export interface UnconfirmedChange {
  quotes: number;
  parentSatPerVb: number;
}

/** Value of the coin the pending self-transfer of {@link UnconfirmedChange} spends, satoshis. */
export const PENDING_CHANGE_SATS = 50_000_000n;

/** A whole schedule. `at` values count calls of that kind from 0 over the whole schedule (all processes). */
export interface BtcSchedule {
  /** The BTC the planner should move from Bitcoin to alpha, satoshis. */
  need: bigint;
  gapsMs: number[];
  /** Esplora reads (any GET; or only those whose path matches `route`, counted among them) that misbehave. */
  esploraFaults: { at: number; route?: string; fault: EsploraFault }[];
  broadcastFaults: { at: number; fault: BroadcastFault }[];
  reorgs: BtcReorg[];
  relayFaults: number[];
  fills: FillPlan[];
  coinSelection: CoinSelection;
  crashes: number[];
  crashAt?: { point: CrashPoint; hit: number }[];
  /** Market states by height (none: the flat legacy market). */
  market?: MarketStep[];
  /** Jumps of the market after quotes. */
  marketJumps?: MarketJump[];
  /** Moves of the node's mempool minimum fee by height (none: the relay minimum, 1 sat/vB). */
  minFeeMoves?: MinFeeMove[];
  /** Blocks behind the tip of the market the Relay prices its PSBTs at (default 0). */
  relayLagBlocks?: number;
  unconfirmedChange?: UnconfirmedChange;
  /** `chains.bitcoin.allowOwnUnconfirmedInputs` of Ballast's config (default false). */
  allowOwnUnconfirmedInputs?: boolean;
}

/** Bands in whole BTC: Bitcoin 2 / 3 / 4 (BTC), alpha 2 / 3 / 100 (WBTC; no surplus is ever planned back). */
export const BTC_BANDS = {
  bitcoin: { min: 2n, target: 3n, max: 4n },
  alpha: { min: 2n, target: 3n, max: 100n },
} as const;

const esploraFaultArb: fc.Arbitrary<EsploraFault> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'error' as const }) },
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 3 }).map((blocks) => ({ kind: 'lag' as const, blocks })) },
  { weight: 3, arbitrary: fc.constant({ kind: 'notFound' as const }) },
);

const broadcastFaultArb: fc.Arbitrary<BroadcastFault> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'lost' as const }) },
  {
    weight: 4,
    arbitrary: fc
      .record({ afterBlocks: fc.nat({ max: 2 }), backAfterBlocks: fc.option(fc.integer({ min: 1, max: 30 }), { nil: null }) })
      .map((r) => ({ kind: 'evict' as const, ...r })),
  },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 15 }).map((blocks) => ({ kind: 'stuck' as const, blocks })) },
);

const reorgArb: fc.Arbitrary<BtcReorg> = fc
  .record({
    afterMined: fc.nat({ max: 4 }),
    delayBlocks: fc.nat({ max: 2 }),
    depth: fc.integer({ min: 1, max: 3 }),
    mode: fc.constantFrom('mempool' as const, 'vanish' as const),
  })
  .map((r) => ({ ...r, depth: Math.max(r.depth, r.delayBlocks + 1) }));

/** Fee levels a drawn market reaches, sat/vB: calm, busy, above the model's 50 sat/vB cap. */
const levelArb = fc.constantFrom(2, 3, 5, 5, 8, 12, 20, 30, 45, 60);

const marketStepArb: fc.Arbitrary<MarketStep> = fc
  .record({ atHeight: fc.integer({ min: 1, max: 110 }), level: levelArb, slow: fc.integer({ min: 1, max: 3 }) })
  .map((s) => ({ ...s, slow: Math.min(s.slow, s.level) }));

const marketJumpArb: fc.Arbitrary<MarketJump> = fc
  .record({
    afterQuote: fc.nat({ max: 4 }),
    level: fc.constantFrom(8, 12, 20, 30, 45, 60),
    blocks: fc.integer({ min: 1, max: 40 }),
    repeat: fc.oneof({ withCrossShrink: true }, { weight: 2, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  })
  .map(({ repeat, ...j }) => (repeat ? { ...j, repeat } : j));

const minFeeMoveArb: fc.Arbitrary<MinFeeMove> = fc.record({
  atHeight: fc.integer({ min: 1, max: 110 }),
  satPerVb: fc.constantFrom(1, 2, 3, 5, 8, 12, 20),
});

/** An optional field: absent (the original world; shrinking goes there) with weight `absent` against 1. */
const sometimes = <T>(arb: fc.Arbitrary<T>, absent = 1): fc.Arbitrary<T | undefined> =>
  fc.oneof({ withCrossShrink: true }, { weight: absent, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

/**
 * Schedules: a need of 1.2–1.9 BTC, 1–5 faulty cycles, up to 8 Esplora faults, 3 broadcast faults, a reorg,
 * 3 Relay faults and 2 crashes; in about a third of them each: drawn market states (up to 3), jumps after
 * quotes (up to 3, a third of them after every later quote), mempool minimum fee moves, a stale Relay, our own
 * unconfirmed change offered to the Relay; in half, Ballast allowed to spend it.
 */
export const btcScheduleArb: fc.Arbitrary<BtcSchedule> = fc.record({
  need: fc.integer({ min: 120_000, max: 190_000 }).map((n) => BigInt(n) * 1_000n),
  gapsMs: fc.array(fc.constantFrom(30_000, 120_000, 300_000, 720_000), { minLength: 1, maxLength: 5 }),
  esploraFaults: fc.array(fc.record({ at: fc.nat({ max: 120 }), fault: esploraFaultArb }), { maxLength: 8 }),
  broadcastFaults: fc.array(fc.record({ at: fc.nat({ max: 3 }), fault: broadcastFaultArb }), { maxLength: 3 }),
  reorgs: fc.array(reorgArb, { maxLength: 1 }),
  relayFaults: fc.array(fc.nat({ max: 40 }), { maxLength: 3 }),
  fills: fc.array(fillArb, { maxLength: 3 }),
  coinSelection: fc.constantFrom<CoinSelection>('largest', 'avoidQuoted'),
  crashes: fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 2 }),
  market: sometimes(fc.array(marketStepArb, { minLength: 1, maxLength: 3 }), 2),
  marketJumps: sometimes(fc.array(marketJumpArb, { minLength: 1, maxLength: 3 }), 2),
  minFeeMoves: sometimes(fc.array(minFeeMoveArb, { minLength: 1, maxLength: 2 }), 2),
  relayLagBlocks: sometimes(fc.integer({ min: 1, max: 3 }), 2),
  unconfirmedChange: sometimes(fc.record({ quotes: fc.integer({ min: 1, max: 2 }), parentSatPerVb: fc.integer({ min: 1, max: 4 }) }), 2),
  allowOwnUnconfirmedInputs: sometimes(fc.boolean()),
});

/** One need of 1.5 BTC, one cycle 30 s in, and no faults but those given: the base of replays and world checks. */
export function quietBtcSchedule(fields: Partial<BtcSchedule> = {}): BtcSchedule {
  return {
    need: 150_000_000n,
    gapsMs: [30_000],
    esploraFaults: [],
    broadcastFaults: [],
    reorgs: [],
    relayFaults: [],
    fills: [],
    coinSelection: 'largest',
    crashes: [],
    ...fields,
  };
}

/** The schedule as one line of JSON (bigints as strings, absent optional fields left out), for failure reports. */
export function describeBtcSchedule(s: BtcSchedule): string {
  return JSON.stringify(s, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}
