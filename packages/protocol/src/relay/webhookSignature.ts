/**
 * Verification of Relay webhook deliveries (docs/relay-contract.md "Events" → "Webhooks"): each POST carries
 * `X-Signature-Timestamp` and `X-Signature-SHA256`, the hex HMAC-SHA256 with the API key as secret over the text
 * `<timestamp>.<raw body>`. A delivery is accepted only when the signature matches (compared in constant time,
 * on equal lengths), its timestamp lies within a window around now, and the same signature was not accepted
 * before within that window (a replay). Pure but for the replay memory, which the caller owns.
 *
 * docs/relay-contract.md "Webhooks" calls the header a "unix timestamp" without a unit; values from 1e12 up are read as
 * milliseconds, smaller ones as seconds (both name the same instant; the signed text is the header exactly as sent).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Why a delivery was refused; stable values, usable as a metric label. */
export const WEBHOOK_REJECT_REASONS = [
  'missing-timestamp',
  'missing-signature',
  'bad-timestamp',
  'stale',
  'malformed-signature',
  'wrong-length',
  'mismatch',
  'replay',
] as const;

/** One of {@link WEBHOOK_REJECT_REASONS}. */
export type WebhookRejectReason = (typeof WEBHOOK_REJECT_REASONS)[number];

/** Outcome of {@link verifyWebhookSignature}: the delivery's time in ms, or why it is refused. */
export type WebhookVerdict = { ok: true; timestampMs: number } | { ok: false; reason: WebhookRejectReason; detail: string };

/** Bytes of an HMAC-SHA256 digest. */
const DIGEST_BYTES = 32;
const HEX_RE = /^[0-9a-fA-F]*$/;
/** Header values at or above this are milliseconds (1e12 ms is September 2001; 1e12 s is far in the future). */
const MS_THRESHOLD = 1e12;

/**
 * The signature header a sender computes: hex HMAC-SHA256(secret, `<timestamp>.<body>`).
 *
 * @param secret the API key
 * @param timestamp the `X-Signature-Timestamp` header, exactly as sent
 * @param rawBody the request body bytes (or text) exactly as sent
 */
export function signWebhook(secret: string, timestamp: string, rawBody: Uint8Array | string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

/**
 * Remembers accepted signatures until their timestamp leaves the window, so a captured delivery sent again is
 * refused. Memory is bounded by the deliveries of one window. A receiver that verified a delivery but could not
 * process it (it answers non-2xx, so the sender retries) calls {@link release}: the same bytes sent again are
 * then a retry to accept, not a replay.
 */
export class WebhookReplayGuard {
  private readonly seen = new Map<string, number>();

  /**
   * Records `signature` unless it was accepted before.
   *
   * @returns true when it is new (and is now remembered), false for a replay
   */
  accept(signature: string, timestampMs: number, nowMs: number, windowMs: number): boolean {
    for (const [sig, at] of this.seen) if (Math.abs(nowMs - at) > windowMs) this.seen.delete(sig);
    const key = signature.toLowerCase();
    if (this.seen.has(key)) return false;
    this.seen.set(key, timestampMs);
    return true;
  }

  /** Forgets an accepted signature (its delivery was not processed and may come again). */
  release(signature: string): void {
    this.seen.delete(signature.trim().toLowerCase());
  }
}

/**
 * Verifies one webhook delivery.
 *
 * @param args.secret the API key (`relay.apiKey`)
 * @param args.timestampHeader `X-Signature-Timestamp` as received (undefined when absent)
 * @param args.signatureHeader `X-Signature-SHA256` as received (hex)
 * @param args.rawBody the body bytes exactly as received (never a re-serialized JSON)
 * @param args.nowMs the current time, ms
 * @param args.windowSec how far the timestamp may lie from now, either way, seconds
 * @param args.replays the replay memory; a valid delivery is recorded in it
 * @returns ok with the delivery time, or the reason it is refused (the caller answers non-2xx)
 */
export function verifyWebhookSignature(args: {
  secret: string;
  timestampHeader: string | undefined;
  signatureHeader: string | undefined;
  rawBody: Uint8Array | string;
  nowMs: number;
  windowSec: number;
  replays: WebhookReplayGuard;
}): WebhookVerdict {
  const refuse = (reason: WebhookRejectReason, detail: string): WebhookVerdict => ({ ok: false, reason, detail });
  const timestamp = args.timestampHeader?.trim();
  const signature = args.signatureHeader?.trim();
  if (!timestamp) return refuse('missing-timestamp', 'no X-Signature-Timestamp header');
  if (!signature) return refuse('missing-signature', 'no X-Signature-SHA256 header');
  if (!/^[0-9]{1,16}$/.test(timestamp)) return refuse('bad-timestamp', 'X-Signature-Timestamp is not a unix timestamp');
  const value = Number(timestamp);
  const timestampMs = value >= MS_THRESHOLD ? value : value * 1000;
  const windowMs = args.windowSec * 1000;
  if (Math.abs(args.nowMs - timestampMs) > windowMs) {
    return refuse(
      'stale',
      `timestamp ${timestamp} is ${Math.round((args.nowMs - timestampMs) / 1000)} s from now; the window is ${args.windowSec} s`,
    );
  }
  if (!HEX_RE.test(signature) || signature.length % 2 !== 0) return refuse('malformed-signature', 'X-Signature-SHA256 is not hex');
  const given = Buffer.from(signature, 'hex');
  if (given.length !== DIGEST_BYTES)
    return refuse('wrong-length', `X-Signature-SHA256 has ${given.length} bytes, an HMAC-SHA256 has ${DIGEST_BYTES}`);
  const expected = Buffer.from(signWebhook(args.secret, timestamp, args.rawBody), 'hex');
  if (!timingSafeEqual(given, expected)) return refuse('mismatch', 'X-Signature-SHA256 does not match the body signed with the API key');
  if (!args.replays.accept(signature, timestampMs, args.nowMs, windowMs))
    return refuse('replay', 'this signed delivery was already accepted');
  return { ok: true, timestampMs };
}
