/**
 * Readability and effective balances of planner targets (DESIGN.md "Lessons": count in-flight transfers as
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
 * @returns chain name → reason (the reading's `error`, or "no balance reading for <currency> at <address>")
 */
export function findUnreadableChains(targets: TargetBand[], balances: BalanceReading[]): Map<string, string> {
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
    if (!readable.has(targetKey(t)) && !unreadable.has(t.chain)) {
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
 * @param reading the target's on-chain balance, base units
 */
export function effectiveBalance(target: TargetBand, reading: bigint, inFlight: InFlightTransfer[]): EffectiveBalance {
  const key = targetKey(target);
  let credit = 0n;
  let debit = 0n;
  for (const f of inFlight) {
    if (locationKey(f.destinationChain, f.destinationCurrency, f.destinationAddress) === key) credit += f.guaranteedOut;
    if (!f.originSettled && locationKey(f.originChain, f.originCurrency, f.originAddress) === key) debit += f.amountIn;
  }
  return { reading, credit, debit, effective: reading + credit - debit };
}

/**
 * Returns the reading of a target's holding, or undefined when none was given or it is null.
 */
export function readingFor(target: TargetBand, balances: BalanceReading[]): bigint | undefined {
  const key = targetKey(target);
  for (const b of balances) {
    if (b.amount !== null && locationKey(b.chain, b.currency, b.address) === key) return b.amount;
  }
  return undefined;
}
