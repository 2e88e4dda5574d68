/**
 * Withdrawal nonces (docs/relay-contract.md "Withdrawal endpoints", "Limits": deterministic per one-minute window for a
 * (chain, owner, currency, recipient) tuple, expiring quickly). A nonce is keccak256 over a per-sandbox secret, the
 * tuple, the window index and the tuple's generation (how many withdrawals it has started), so a signed
 * request cannot be replayed once it started a job. Execute accepts the nonce of the current or the previous
 * window only. Pure.
 */
import { keccak256, stringToHex, type Hex } from 'viem';

/** Length of one nonce window, ms. */
export const NONCE_WINDOW_MS = 60_000;

/** The tuple a nonce belongs to; addresses normalised by their chain's VM (EVM lower-case, others exact). */
export interface NonceTuple {
  chain: string;
  owner: string;
  currency: string;
  recipient: string;
}

/** The key of a tuple (for generation counters). */
export function nonceTupleKey(t: NonceTuple): string {
  return JSON.stringify([t.chain, t.owner, t.currency, t.recipient]);
}

/**
 * The nonce of `tuple` in the window holding `nowMs`.
 *
 * @param secret per-sandbox random hex (makes nonces unpredictable from outside)
 * @param generation withdrawals the tuple has started so far
 * @param windowOffset 0 for the current window, -1 for the previous one
 * @returns 0x + 64 lower-case hex digits
 */
export function withdrawalNonce(secret: Hex, tuple: NonceTuple, generation: number, nowMs: number, windowOffset = 0): Hex {
  const window = Math.floor(nowMs / NONCE_WINDOW_MS) + windowOffset;
  return keccak256(stringToHex(JSON.stringify([secret, nonceTupleKey(tuple), generation, window])));
}

/** True when `nonce` (any hex case) is the tuple's nonce of the current or the previous window. */
export function isLiveNonce(secret: Hex, tuple: NonceTuple, generation: number, nowMs: number, nonce: string): boolean {
  const n = nonce.toLowerCase();
  return n === withdrawalNonce(secret, tuple, generation, nowMs, 0) || n === withdrawalNonce(secret, tuple, generation, nowMs, -1);
}
