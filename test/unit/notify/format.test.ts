/**
 * Pure parts of notifications (src/notify/events.ts, format.ts, eventOf.ts, sinks.ts `sinkRequest`): dedupe keys,
 * severities, the webhook body and its signature, the Slack message, the backoff schedule, and the events the sites
 * build (amounts as base-unit strings with whole units).
 */
import { describe, expect, it } from 'vitest';
import { WebhookReplayGuard, verifyWebhookSignature } from '@ballast/protocol/relay/webhookSignature.ts';
import { amountFields, atLeast, dedupeKey, NOTIFY_EVENT_SEVERITY } from '../../../packages/ballast/src/notify/events.ts';
import { retryDelayMs, slackMessage, webhookBody, type DeliveryContent } from '../../../packages/ballast/src/notify/format.ts';
import { limitHitEvent, routePausedEvent, sunsetEvent } from '../../../packages/ballast/src/notify/eventOf.ts';
import { sinkRequest } from '../../../packages/ballast/src/notify/sinks.ts';
import type { LoadedNotifySink } from '../../../packages/ballast/src/config/notifySchema.ts';
import type { PlannedTransfer } from '../../../packages/ballast/src/planner/types.ts';

const delivery: DeliveryContent = {
  dedupeKey: 'transfer_failed:transfer:7',
  event: 'transfer_failed',
  severity: 'critical',
  summary: 'USDC base -> arbitrum failed <see> & retry',
  payload: { asset: 'USDC', amountIn: '1500000', amountInWhole: '1.5', transferIds: [7] },
  createdAtMs: Date.UTC(2026, 10, 29, 10, 0, 0),
};

function sink(kind: 'webhook' | 'slack', secret?: string): LoadedNotifySink {
  const s = { name: 'ops', kind, events: '*', minSeverity: 'info' } as LoadedNotifySink;
  Object.defineProperty(s, 'url', { value: 'http://127.0.0.1:1/hook' });
  if (secret) Object.defineProperty(s, 'secret', { value: secret });
  return s;
}

describe('events', () => {
  it('keys an event by kind, subject and status, and shortens long keys without merging them', () => {
    expect(dedupeKey({ kind: 'transfer_failed', subject: 'transfer:7' })).toBe('transfer_failed:transfer:7');
    expect(dedupeKey({ kind: 'withdrawal', subject: 'withdrawal:3', status: 'executed' })).toBe('withdrawal:withdrawal:3:executed');
    const a = dedupeKey({ kind: 'route_paused', subject: 'x'.repeat(300) });
    const b = dedupeKey({ kind: 'route_paused', subject: `${'x'.repeat(299)}y` });
    expect(a.length).toBeLessThanOrEqual(200);
    expect(a).not.toBe(b);
  });

  it('orders severities and gives every event one', () => {
    expect(atLeast('critical', 'warning')).toBe(true);
    expect(atLeast('info', 'warning')).toBe(false);
    expect(atLeast('warning', 'warning')).toBe(true);
    expect(NOTIFY_EVENT_SEVERITY.transfer_failed).toBe('critical');
    expect(NOTIFY_EVENT_SEVERITY.leader_changed).toBe('info');
  });

  it('writes amounts as base units and whole units', () => {
    expect(amountFields('amountIn', 123_456_789n, 6)).toEqual({ amountIn: '123456789', amountInWhole: '123.456789' });
    expect(amountFields('amountIn', 10n ** 30n, 18)).toEqual({ amountIn: `1${'0'.repeat(30)}`, amountInWhole: '1000000000000' });
    expect(amountFields('amount', 5n, null)).toEqual({ amount: '5' });
  });

  it('builds a limit hit once per limit, route and day, and the kill switch once per day', () => {
    const planned = {
      asset: 'USDC',
      from: { chain: 'base', decimals: 6 },
      to: { chain: 'arbitrum', decimals: 6 },
      amountIn: 2_500_000n,
      reason: 'arbitrum below min',
    } as unknown as PlannedTransfer;
    const at = Date.UTC(2026, 10, 29, 23, 59);
    const hit = limitHitEvent(planned, { cycleId: 4, planId: 9, reason: 'daily_cap', detail: 'over the daily cap', atMs: at });
    expect(hit.kind).toBe('spending_limit_hit');
    expect(dedupeKey(hit)).toBe('spending_limit_hit:limit:daily_cap:USDC:base:arbitrum:2026-11-29');
    expect(hit.payload).toMatchObject({
      amountIn: '2500000',
      amountInWhole: '2.5',
      reason: 'daily_cap',
      plannerReason: 'arbitrum below min',
    });
    const next = limitHitEvent(planned, { cycleId: 5, planId: 10, reason: 'daily_cap', detail: 'x', atMs: at + 60_000 });
    expect(dedupeKey(next)).toBe('spending_limit_hit:limit:daily_cap:USDC:base:arbitrum:2026-11-30');
    const kill = limitHitEvent(planned, { cycleId: 4, planId: 9, reason: 'kill_switch', detail: 'policy.limits.killSwitch', atMs: at });
    expect(kill.kind).toBe('kill_switch_engaged');
    expect(dedupeKey(kill)).toBe('kill_switch_engaged:kill_switch:2026-11-29');
  });

  it('keys a route pause by its first transfer, and reports a sunset only within 30 days', () => {
    const pause = routePausedEvent({
      asset: 'USDC',
      originChain: 'base',
      destinationChain: 'arbitrum',
      transferIds: [3, 5],
      reason: 'failure',
    });
    expect(dedupeKey(pause)).toBe('route_paused:route:USDC:base:arbitrum:failure:3');
    const now = Date.UTC(2027, 0, 1) / 1000;
    const notice = { endpoint: 'POST /quote/v2', links: [], ignored: [] };
    expect(sunsetEvent({ ...notice, sunsetAtSec: now + 31 * 86_400 }, now)).toBeUndefined();
    expect(sunsetEvent(notice, now)).toBeUndefined();
    const soon = sunsetEvent({ ...notice, sunsetAtSec: now + 10 * 86_400 }, now)!;
    expect(dedupeKey(soon)).toBe('relay_sunset_soon:endpoint:POST /quote/v2:2027-01-11');
    expect(soon.payload.daysLeft).toBe(10);
    expect(soon.summary).toBe(
      'Relay endpoint POST /quote/v2 stops answering on 2027-01-11 (Sunset); before then: this version speaks POST /quote/v3: run `ballast api-check`, then set `relay.quoteApi: v3`',
    );
  });
});

describe('formats', () => {
  it('gives the webhook body the event, its idempotency key and the payload', () => {
    expect(webhookBody(delivery)).toEqual({
      id: 'transfer_failed:transfer:7',
      event: 'transfer_failed',
      severity: 'critical',
      occurredAt: '2026-11-29T10:00:00.000Z',
      summary: delivery.summary,
      payload: delivery.payload,
    });
  });

  it('signs a webhook request so the protocol verifier accepts it, and a tampered body fails', () => {
    const now = Date.UTC(2026, 10, 29, 10, 0, 5);
    const req = sinkRequest(sink('webhook', 'whsec-0123456789abcdef'), delivery, now);
    expect(req.headers['x-signature-timestamp']).toBe(String(now));
    expect(req.headers['x-ballast-delivery']).toBe(delivery.dedupeKey);
    const verify = (body: string) =>
      verifyWebhookSignature({
        secret: 'whsec-0123456789abcdef',
        timestampHeader: req.headers['x-signature-timestamp'],
        signatureHeader: req.headers['x-signature-sha256'],
        rawBody: body,
        nowMs: now,
        windowSec: 300,
        replays: new WebhookReplayGuard(),
      });
    expect(verify(req.body)).toEqual({ ok: true, timestampMs: now });
    expect(verify(req.body.replace('1500000', '1500001'))).toMatchObject({ ok: false, reason: 'mismatch' });
  });

  it('writes a Slack message: one marked line of text, scalar fields, escaped', () => {
    const msg = slackMessage(delivery);
    expect(msg.text).toBe('[CRITICAL] transfer_failed: USDC base -&gt; arbitrum failed &lt;see&gt; &amp; retry');
    expect(msg.blocks[1]).toEqual({
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: '*asset*\nUSDC' },
        { type: 'mrkdwn', text: '*amountIn*\n1500000' },
        { type: 'mrkdwn', text: '*amountInWhole*\n1.5' },
      ],
    });
    const slackReq = sinkRequest(sink('slack'), delivery, 0);
    expect(slackReq.headers['x-signature-sha256']).toBeUndefined();
    expect(JSON.parse(slackReq.body)).toEqual(msg);
  });

  it('backs off exponentially up to the cap', () => {
    const opts = { retryBaseSec: 30, retryMaxSec: 3600 };
    expect([1, 2, 3, 4, 7, 8, 50].map((n) => retryDelayMs(n, opts) / 1000)).toEqual([30, 60, 120, 240, 1920, 3600, 3600]);
  });
});
