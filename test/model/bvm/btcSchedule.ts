/**
 * A fault schedule for the Bitcoin money-path model: one need of BTC moving from the Bitcoin chain to WBTC on
 * the EVM chain alpha, the cycles to run, which Esplora reads and broadcasts misbehave, reorgs, Relay faults,
 * how the solver treats each order (the EVM model's {@link FillPlan}) and how the Relay picks the coins of its
 * PSBTs. Faults are keyed by the running count of calls of their kind, so a schedule replays exactly and
 * shrinks by dropping faults. Amounts are satoshis.
 */
import fc from 'fast-check';
import type { CrashPoint } from '../../../packages/ballast/src/core/crashPoints.ts';
import { fillArb, type FillPlan } from '../schedule.ts';

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

/**
 * Schedules: a need of 1.2–1.9 BTC, 1–5 faulty cycles, up to 8 Esplora faults, 3 broadcast faults, a reorg,
 * 3 Relay faults and 2 crashes.
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
});

/** The schedule as one line of JSON (bigints as strings), for failure reports. */
export function describeBtcSchedule(s: BtcSchedule): string {
  return JSON.stringify(s, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}
