/**
 * A fault schedule for the Solana money-path model: one need of USDC moving from Solana to alpha, the cycles to
 * run, which JSON-RPC calls and sends misbehave, Relay faults, how the solver treats each order (the EVM
 * model's {@link FillPlan}) and the crashes. Faults are keyed by the running count of calls of their kind (or of
 * one method), so a schedule replays exactly and shrinks by dropping faults. Amounts are USDC base units.
 */
import fc from 'fast-check';
import type { CrashPoint } from '../../../packages/ballast/src/core/crashPoints.ts';
import { fillArb, type FillPlan } from '../schedule.ts';

/** USDC base units per whole USDC. */
export const USDC = 1_000_000n;

/**
 * A JSON-RPC call fault: `error` (HTTP 503), `lag` (answered by a node `slots` behind: recent signatures unknown,
 * balances, blockhashes and simulations of then; a `minContextSlot` above its slot at the request's commitment is
 * refused with -32016), `forget` (the node answers null for
 * every signature in this and the next `reads - 1` getSignatureStatuses calls, landed or not), `staleBlockhash`
 * (getLatestBlockhash answers a blockhash already `ageSlots` old: it expires that much earlier).
 */
export type RpcFault =
  { kind: 'error' } | { kind: 'lag'; slots: number } | { kind: 'forget'; reads: number } | { kind: 'staleBlockhash'; ageSlots: number };

/**
 * A send fault: `lost` (HTTP 503, the node never took it), `drop` (the node answers the signature and never
 * forwards it), `slow` (it lands only `slots` slots later, if its blockhash is still valid then).
 */
export type SendFault = { kind: 'lost' } | { kind: 'drop' } | { kind: 'slow'; slots: number };

/** A whole schedule. `at` values count calls of that kind from 0 over the whole schedule (all processes). */
export interface SolSchedule {
  /** USDC the planner should move from Solana to alpha, base units. */
  need: bigint;
  gapsMs: number[];
  /** JSON-RPC calls (any method but sendTransaction; or only `method`'s, counted among them) that misbehave. */
  rpcFaults: { at: number; method?: string; fault: RpcFault }[];
  sendFaults: { at: number; fault: SendFault }[];
  relayFaults: number[];
  fills: FillPlan[];
  crashes: number[];
  crashAt?: { point: CrashPoint; hit: number }[];
}

/** Bands in whole USDC: Solana 40 000 / 50 000 / 60 000, alpha 20 000 / 30 000 / 45 000. */
export const SOL_BANDS = {
  solana: { min: 40_000n, target: 50_000n, max: 60_000n },
  alpha: { min: 20_000n, target: 30_000n, max: 45_000n },
} as const;

const rpcFaultArb: fc.Arbitrary<{ at: number; method?: string; fault: RpcFault }> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ at: fc.nat({ max: 150 }), fault: fc.constant({ kind: 'error' as const }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      at: fc.nat({ max: 150 }),
      fault: fc.integer({ min: 1, max: 200 }).map((slots) => ({ kind: 'lag' as const, slots })),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      at: fc.nat({ max: 150 }),
      fault: fc.integer({ min: 1, max: 4 }).map((reads) => ({ kind: 'forget' as const, reads })),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      at: fc.nat({ max: 3 }),
      method: fc.constant('getLatestBlockhash'),
      fault: fc.integer({ min: 100, max: 149 }).map((ageSlots) => ({ kind: 'staleBlockhash' as const, ageSlots })),
    }),
  },
);

const sendFaultArb: fc.Arbitrary<SendFault> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'lost' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'drop' as const }) },
  { weight: 3, arbitrary: fc.constantFrom(5, 60, 140, 400).map((slots) => ({ kind: 'slow' as const, slots })) },
);

/**
 * Schedules: a need of 15 001–25 000 USDC, 1–5 faulty cycles, up to 8 RPC faults, 3 send faults, 3 Relay
 * faults and 2 crashes.
 */
export const solScheduleArb: fc.Arbitrary<SolSchedule> = fc.record({
  need: fc.integer({ min: 15_001, max: 25_000 }).map((n) => BigInt(n) * USDC + 123_456n),
  gapsMs: fc.array(fc.constantFrom(20_000, 60_000, 180_000, 700_000), { minLength: 1, maxLength: 5 }),
  rpcFaults: fc.array(rpcFaultArb, { maxLength: 8 }),
  sendFaults: fc.array(fc.record({ at: fc.nat({ max: 3 }), fault: sendFaultArb }), { maxLength: 3 }),
  relayFaults: fc.array(fc.nat({ max: 40 }), { maxLength: 3 }),
  fills: fc.array(fillArb, { maxLength: 3 }),
  crashes: fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 2 }),
});

/** The schedule as one line of JSON (bigints as strings), for failure reports. */
export function describeSolSchedule(s: SolSchedule): string {
  return JSON.stringify(s, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}
