/**
 * Webhook delivery verification (docs/relay-contract.md "Events" → "Webhooks"): HMAC-SHA256(api key, `<timestamp>.<body>`),
 * constant-time compare on equal lengths, a timestamp window and replay refusal. The expected signatures are
 * computed here independently with node:crypto over the Relay API's text.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhookSignature, WebhookReplayGuard } from '../../../packages/protocol/src/relay/webhookSignature.ts';

const SECRET = 'relay-api-key-for-tests';
const NOW_MS = 1_790_000_000_000;
const TS = String(NOW_MS / 1000); // seconds
const BODY = JSON.stringify({ event: 'request.status.updated', timestamp: NOW_MS, data: { status: 'success', requestId: '0xabc' } });
const independent = (secret: string, ts: string, body: string) => createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex');

function verify(over: Partial<Parameters<typeof verifyWebhookSignature>[0]> = {}) {
  return verifyWebhookSignature({
    secret: SECRET,
    timestampHeader: TS,
    signatureHeader: independent(SECRET, TS, BODY),
    rawBody: BODY,
    nowMs: NOW_MS,
    windowSec: 300,
    replays: new WebhookReplayGuard(),
    ...over,
  });
}

describe('verifyWebhookSignature', () => {
  it('signs exactly the spec text, and accepts a genuine delivery (seconds or milliseconds timestamps)', () => {
    expect(signWebhook(SECRET, TS, BODY)).toBe(independent(SECRET, TS, BODY));
    expect(verify()).toEqual({ ok: true, timestampMs: NOW_MS });
    const ms = String(NOW_MS);
    expect(verify({ timestampHeader: ms, signatureHeader: independent(SECRET, ms, BODY) })).toEqual({ ok: true, timestampMs: NOW_MS });
    expect(verify({ signatureHeader: independent(SECRET, TS, BODY).toUpperCase() }).ok).toBe(true);
  });

  it.each([
    ['forged with another key', { signatureHeader: independent('another-key', TS, BODY) }, 'mismatch'],
    ['body changed after signing', { rawBody: BODY.replace('success', 'failure') }, 'mismatch'],
    ['timestamp changed after signing', { timestampHeader: String(NOW_MS / 1000 + 1) }, 'mismatch'],
    ['truncated signature', { signatureHeader: independent(SECRET, TS, BODY).slice(0, 62) }, 'wrong-length'],
    ['signature one byte too long', { signatureHeader: `${independent(SECRET, TS, BODY)}00` }, 'wrong-length'],
    ['odd-length signature', { signatureHeader: independent(SECRET, TS, BODY).slice(0, 63) }, 'malformed-signature'],
    ['non-hex signature', { signatureHeader: 'zz'.repeat(32) }, 'malformed-signature'],
    ['stale: too old', { nowMs: NOW_MS + 301_000 }, 'stale'],
    ['stale: from the future', { nowMs: NOW_MS - 301_000 }, 'stale'],
    ['missing timestamp', { timestampHeader: undefined }, 'missing-timestamp'],
    ['missing signature', { signatureHeader: undefined }, 'missing-signature'],
    ['timestamp not a number', { timestampHeader: '17900000x0' }, 'bad-timestamp'],
  ] as const)('refuses %s (%s)', (_name, over, reason) => {
    const verdict = verify(over);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toBe(reason);
  });

  it('accepts at the edge of the window', () => {
    expect(verify({ nowMs: NOW_MS + 300_000 }).ok).toBe(true);
  });

  it('refuses a replay of an accepted delivery, and forgets it once it left the window', () => {
    const replays = new WebhookReplayGuard();
    expect(verify({ replays }).ok).toBe(true);
    const again = verify({ replays });
    expect(again).toMatchObject({ ok: false, reason: 'replay' });
    // The same delivery after the window is stale, not remembered forever.
    expect(verify({ replays, nowMs: NOW_MS + 400_000 })).toMatchObject({ ok: false, reason: 'stale' });
  });
});
