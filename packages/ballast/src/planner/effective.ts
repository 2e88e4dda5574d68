/**
 * Readability and effective balances of planner targets (docs/design.md "Lessons": count in-flight transfers as
 * already moved; fail closed when a chain cannot be read). Pure.
 */
import type { BalanceReading, InFlightTransfer, TargetBand } from './types.ts';

/**
 * Normalizes an address or currency for comparison: 0x-prefixed hex (EVM addresses, case-insensitive per
 * EIP-55) is lower-cased; every other form (base58 Solana, bech32 Bitcoin) is case-sensitive and kept as is.
 */
export function normalizeAddress(value: string): string {
  return /^0x[0-9a-fA-F]+$/.test(value) ? value.toLowerCase() : value;
}

/**
 * A {@link targetKey} that computes each target's key once (per returned function): the planner asks for the
 * same target's key several times per plan.
 */
export function memoTargetKey(): (t: TargetBand) => string {
  const keys = new Map<TargetBand, string>();
  return (t) => {
    let key = keys.get(t);
    if (key === undefined) keys.set(t, (key = targetKey(t)));
    return key;
  };
}

/** Key identifying a holding: (chain, currency, address), addresses normalized by {@link normalizeAddress}. */
export function locationKey(chain: string, currency: string, address: string): string {
  return `${chain}\u0000${normalizeAddress(currency)}\u0000${normalizeAddress(address)}`;
}

/** Location key of a target. */
export function targetKey(t: TargetBand): string {
  return locationKey(t.chain, t.currency, t.address);
}

/**
 * Finds chains that must not be touched this cycle: a chain is unreadable when any reading on it has
 * `amount: null`, or when a target on it has no reading at all (fail closed).
 *
 * @param keyOf the target's {@link targetKey} (a planner passes one that computes each key once)
 * @returns chain name → reason (the reading's `error`, or "no balance reading for <currency> at <address>")
 */
export function findUnreadableChains(
  targets: TargetBand[],
  balances: BalanceReading[],
  keyOf: (t: TargetBand) => string = targetKey,
): Map<string, string> {
  const unreadable = new Map<string, string>();
  const readable = new Set<string>();
  for (const b of balances) {
    if (b.amount === null) {
      if (!unreadable.has(b.chain)) unreadable.set(b.chain, b.error ?? 'balance read failed (no error given)');
    } else {
      readable.add(locationKey(b.chain, b.currency, b.address));
    }
  }
  for (const t of targets) {
    if (!readable.has(keyOf(t)) && !unreadable.has(t.chain)) {
      unreadable.set(t.chain, `no balance reading for ${t.currency} at ${t.address}`);
    }
  }
  return unreadable;
}

/** A target's balance as the planner sees it; every amount in the target's base units. */
export interface EffectiveBalance {
  /** Balance read on chain. */
  reading: bigint;
  /** Sum of `guaranteedOut` of in-flight transfers to this target (always counted). */
  credit: bigint;
  /** Sum of `amountIn` of in-flight transfers from this target whose origin deposit is not yet settled. */
  debit: bigint;
  /** reading + credit − debit (may be negative when a reading lags a large pending debit). */
  effective: bigint;
}

/**
 * Computes a target's effective balance = reading + in-flight credit (guaranteedOut, always) − in-flight debit
 * (amountIn, only while `!originSettled`, since a settled deposit is already out of the reading).
 *
 * Scans `inFlight` once; to look up many targets, build an {@link indexInFlight} once and use
 * {@link effectiveFromIndex}.
 *
 * @param reading the target's on-chain balance, base units
 */
export function effectiveBalance(target: TargetBand, reading: bigint, inFlight: InFlightTransfer[]): EffectiveBalance {
  return effectiveFromIndex(target, reading, indexInFlight(inFlight));
}

/** Per-holding sums of in-flight transfers, base units of that holding: `credit` arriving, `debit` leaving. */
export type InFlightIndex = ReadonlyMap<string, { credit: bigint; debit: bigint }>;

/**
 * Sums in-flight transfers per holding ({@link locationKey}) in one pass: each transfer's `guaranteedOut` is a
 * credit to its destination; its `amountIn` a debit to its origin while `!originSettled`.
 */
export function indexInFlight(inFlight: readonly InFlightTransfer[]): InFlightIndex {
  const index = new Map<string, { credit: bigint; debit: bigint }>();
  const at = (key: string): { credit: bigint; debit: bigint } => {
    let entry = index.get(key);
    if (!entry) index.set(key, (entry = { credit: 0n, debit: 0n }));
    return entry;
  };
  for (const f of inFlight) {
    at(locationKey(f.destinationChain, f.destinationCurrency, f.destinationAddress)).credit += f.guaranteedOut;
    if (!f.originSettled) at(locationKey(f.originChain, f.originCurrency, f.originAddress)).debit += f.amountIn;
  }
  return index;
}

/** {@link effectiveBalance} from an {@link indexInFlight} index (one map lookup); `key` is the target's {@link targetKey}. */
export function effectiveFromIndex(
  target: TargetBand,
  reading: bigint,
  index: InFlightIndex,
  key: string = targetKey(target),
): EffectiveBalance {
  const sums = index.get(key);
  const credit = sums?.credit ?? 0n;
  const debit = sums?.debit ?? 0n;
  return { reading, credit, debit, effective: reading + credit - debit };
}

/** Non-null readings by holding ({@link locationKey}); the first reading of a holding wins. */
export type ReadingIndex = ReadonlyMap<string, bigint>;

/**
 * Indexes the non-null readings by holding in one pass. When a holding is read twice the first non-null
 * reading is kept (what a scan in input order would find first).
 */
export function indexReadings(balances: readonly BalanceReading[]): ReadingIndex {
  const index = new Map<string, bigint>();
  for (const b of balances) {
    if (b.amount === null) continue;
    const key = locationKey(b.chain, b.currency, b.address);
    if (!index.has(key)) index.set(key, b.amount);
  }
  return index;
}

/**
 * Returns the reading of a target's holding, or undefined when none was given or it is null. Scans `balances`;
 * to look up many targets, build an {@link indexReadings} once and call `index.get(targetKey(target))`.
 */
export function readingFor(target: TargetBand, balances: BalanceReading[]): bigint | undefined {
  return indexReadings(balances).get(targetKey(target));
}
