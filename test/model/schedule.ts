/**
 * A fault schedule for the money-path model: the starting imbalance, the cycles to run, and which node
 * lookups, broadcasts, Relay calls and step boundaries misbehave, plus how the solver treats each order. Faults
 * are keyed by the running count of calls of their kind, so a schedule replays exactly and shrinks by dropping
 * faults. Amounts are bigint base units (6-decimal test stablecoins).
 */
import fc from 'fast-check';
import type { CrashPoint } from '../../packages/ballast/src/core/crashPoints.ts';

/** The two model chains, by config name. */
export type ChainName = 'alpha' | 'beta';
/** The two model assets. */
export type AssetName = 'USDC' | 'USDT';

/** One need: `asset` moves from `from` to the other chain; `amount` is what the planner asks for (base units). */
export interface Need {
  asset: AssetName;
  from: ChainName;
  amount: bigint;
}

/**
 * A node lookup fault (any call but a broadcast): `error` (an RPC failure), `notFound` (a transaction or receipt
 * lookup answers "not found" for one it has: an indexing lag; other methods fail), `lag` (answered by a backend
 * `blocks` behind that has not seen newer transactions), or a `reorg` of a chain before the call is answered.
 */
export type LookupFault =
  | { kind: 'error' }
  | { kind: 'notFound' }
  | { kind: 'lag'; blocks: number }
  | { kind: 'reorg'; chain: ChainName; depth: number; mode: 'reinclude' | 'mempool' | 'vanish' };

/**
 * A broadcast fault: `lost` (an error answer, the node never took it), `repeat` (taken, then a transport retry
 * answers `already known`), `evict` (taken, then forgotten before it is mined), `slow` (taken, mined only after
 * `tx stuck` minutes), `speedUp` / `cancel` (taken, then the operator replaces it with the same nonce: same call
 * at a higher fee, or a 0-value transfer to itself).
 */
export type SendFault = 'lost' | 'repeat' | 'evict' | 'slow' | 'speedUp' | 'cancel';

/**
 * How the solver treats the n-th quoted order once its deposit is final: fill it (`success`, paying the expected
 * or only the minimum amount), leave it in the depository (`failure`), return it (`refund`) or never act. It
 * acts `delayMs` after the Relay indexed the deposit, which it does `indexDelayMs` after the deposit is mined.
 */
export interface FillPlan {
  outcome: 'success' | 'failure' | 'refund' | 'never';
  payMinimum: boolean;
  delayMs: number;
  indexDelayMs: number;
}

/**
 * A reorg tied to the chain's progress: once the `afterMined`-th transaction (counting every transaction mined
 * on either chain, solver payouts included) is mined, its chain reorgs `depth` blocks when it is `delayBlocks`
 * blocks further (so a receipt may already have been seen). Depth stays below finality.
 */
export interface MinedReorg {
  afterMined: number;
  delayBlocks: number;
  depth: number;
  mode: 'reinclude' | 'mempool' | 'vanish';
}

/**
 * A whole schedule. `at` values count calls of that kind from 0 over the whole schedule (all processes); a
 * lookup fault with a `method` counts only that method's calls. Replays name their targets that way
 * (`method`, `crashAt`) so they keep hitting them when the code adds or drops other calls.
 */
export interface Schedule {
  needs: Need[];
  /** Virtual time passed before each faulty cycle, ms. */
  gapsMs: number[];
  lookupFaults: { at: number; method?: string; fault: LookupFault }[];
  reorgs: MinedReorg[];
  sendFaults: { at: number; fault: SendFault }[];
  /** Relay calls (any endpoint) that fail. */
  relayFaults: number[];
  fills: FillPlan[];
  /** Step boundary passes (1-based, counted over the schedule) at which the running process dies. */
  crashes: number[];
  /** The process also dies at the `hit`-th pass (1-based) of a named step boundary. */
  crashAt?: { point: CrashPoint; hit: number }[];
}

/** Band of every holding, whole units: alpha 40 000 / 50 000 / 60 000, beta 20 000 / 30 000 / 45 000. */
export const BANDS: Readonly<Record<ChainName, { min: bigint; target: bigint; max: bigint }>> = {
  alpha: { min: 40_000n, target: 50_000n, max: 60_000n },
  beta: { min: 20_000n, target: 30_000n, max: 45_000n },
};

/** Base units per whole unit of the model stablecoins (6 decimals). */
export const UNIT = 1_000_000n;

const chainArb = fc.constantFrom<ChainName>('alpha', 'beta');
const reorgModeArb = fc.constantFrom('reinclude' as const, 'mempool' as const, 'vanish' as const);

/** A need of 15 001–25 000 whole units (enough to leave both bands whichever way it goes). */
const needArb = (asset: AssetName) =>
  fc
    .record({ from: chainArb, whole: fc.integer({ min: 15_001, max: 25_000 }), cents: fc.integer({ min: 0, max: 999_999 }) })
    .map(({ from, whole, cents }): Need => ({ asset, from, amount: BigInt(whole) * UNIT + BigInt(cents) }));

const lookupFaultArb: fc.Arbitrary<LookupFault> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'error' as const }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'notFound' as const }) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 2 }).map((blocks) => ({ kind: 'lag' as const, blocks })) },
  {
    weight: 2,
    arbitrary: fc
      .record({ chain: chainArb, depth: fc.integer({ min: 1, max: 2 }), mode: reorgModeArb })
      .map((r) => ({ kind: 'reorg' as const, ...r })),
  },
);

const minedReorgArb: fc.Arbitrary<MinedReorg> = fc
  .record({ afterMined: fc.nat({ max: 12 }), delayBlocks: fc.nat({ max: 1 }), depth: fc.integer({ min: 1, max: 2 }), mode: reorgModeArb })
  .map((r) => ({ ...r, depth: Math.max(r.depth, r.delayBlocks + 1) }));

/** A solver plan: mostly a fill, sometimes a failure, a refund or nothing, after the given delays. */
export const fillArb: fc.Arbitrary<FillPlan> = fc.record({
  outcome: fc.oneof(
    { weight: 5, arbitrary: fc.constant('success' as const) },
    { weight: 1, arbitrary: fc.constantFrom('failure' as const, 'refund' as const, 'never' as const) },
  ),
  payMinimum: fc.boolean(),
  delayMs: fc.constantFrom(0, 3_000, 90_000, 400_000),
  indexDelayMs: fc.constantFrom(0, 8_000, 120_000),
});

/**
 * Schedules: one or two needs, 1–5 faulty cycles, up to 8 lookup faults, 2 reorgs tied to mined transactions,
 * 4 broadcast faults, 4 Relay faults and 2 crashes.
 */
export const scheduleArb: fc.Arbitrary<Schedule> = fc
  .record({
    usdc: fc.option(needArb('USDC'), { nil: undefined }),
    usdt: fc.option(needArb('USDT'), { nil: undefined }),
    gapsMs: fc.array(fc.constantFrom(20_000, 60_000, 180_000, 700_000), { minLength: 1, maxLength: 5 }),
    lookupFaults: fc.array(fc.record({ at: fc.nat({ max: 70 }), fault: lookupFaultArb }), { maxLength: 8 }),
    reorgs: fc.array(minedReorgArb, { maxLength: 2 }),
    sendFaults: fc.array(
      fc.record({ at: fc.nat({ max: 6 }), fault: fc.constantFrom<SendFault>('lost', 'repeat', 'evict', 'slow', 'speedUp', 'cancel') }),
      { maxLength: 4 },
    ),
    relayFaults: fc.array(fc.nat({ max: 60 }), { maxLength: 4 }),
    fills: fc.array(fillArb, { maxLength: 4 }),
    crashes: fc.array(fc.integer({ min: 1, max: 50 }), { maxLength: 2 }),
  })
  .filter((r) => r.usdc !== undefined || r.usdt !== undefined)
  .map(({ usdc, usdt, ...rest }) => ({ needs: [usdc, usdt].filter((n): n is Need => n !== undefined), ...rest }));

/** The schedule as one line of JSON (bigints as strings), for failure reports. */
export function describeSchedule(s: Schedule): string {
  return JSON.stringify(s, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}
