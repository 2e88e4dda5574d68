/**
 * Sends one delivery to one sink over HTTP (node's fetch, with a per-request timeout). Generic webhooks are
 * signed like Relay's own webhooks (docs/relay-contract.md "Webhooks"): `X-Signature-Timestamp` (Unix ms) and
 * `X-Signature-SHA256`, the hex HMAC-SHA256 of `<timestamp>.<raw body>` with the sink's secret, so a receiver can
 * verify with `verifyWebhookSignature` of @ballast/protocol (docs/notifications.md "Verifying a delivery").
 */
import { signWebhook } from '@ballast/protocol/relay/webhookSignature.ts';
import type { LoadedNotifySink } from '../config/notifySchema.ts';
import { slackMessage, webhookBody, type DeliveryContent } from './format.ts';

/** Header naming the event of a webhook delivery. */
export const EVENT_HEADER = 'X-Ballast-Event';
/** Header carrying the idempotency key (the body's `id`) of a webhook delivery. */
export const DELIVERY_HEADER = 'X-Ballast-Delivery';

/** Outcome of one request: delivered (2xx) or why not. */
export type SendResult = { ok: true } | { ok: false; error: string };

/** The request a sink gets: URL, headers and the exact body bytes. */
export interface SinkRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * Builds the request of `delivery` for `sink` (the webhook one signed at `nowMs`).
 *
 * @throws Error for a webhook sink without a secret (refused by the config check before it can happen)
 */
export function sinkRequest(sink: LoadedNotifySink, delivery: DeliveryContent, nowMs: number): SinkRequest {
  if (sink.kind === 'slack') {
    return { url: sink.url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(slackMessage(delivery)) };
  }
  if (sink.secret === undefined) throw new Error(`notify.sinks.${sink.name}.secret is not set`);
  const body = JSON.stringify(webhookBody(delivery));
  const timestamp = String(nowMs);
  return {
    url: sink.url,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'ballast-notify',
      'x-signature-timestamp': timestamp,
      'x-signature-sha256': signWebhook(sink.secret, timestamp, body),
      [EVENT_HEADER.toLowerCase()]: delivery.event,
      [DELIVERY_HEADER.toLowerCase()]: delivery.dedupeKey,
    },
    body,
  };
}

/**
 * POSTs one request; never throws. A 2xx answer is a delivery; anything else (another status, a refused
 * connection, the timeout, `signal` aborted) is an error naming the status or cause, never the URL (a Slack URL
 * is a credential).
 *
 * @param timeoutMs the whole request's limit, ms
 * @param signal aborts the request early (shutdown, or the deadline of a flush)
 */
export async function sendRequest(req: SinkRequest, timeoutMs: number, signal?: AbortSignal): Promise<SendResult> {
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const res = await fetch(req.url, {
      method: 'POST',
      headers: req.headers,
      body: req.body,
      redirect: 'error',
      signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
    });
    await res.body?.cancel().catch(() => undefined);
    return res.ok ? { ok: true } : { ok: false, error: `HTTP ${res.status}` };
  } catch (error) {
    if (timeout.aborted) return { ok: false, error: `timed out after ${timeoutMs} ms` };
    if (signal?.aborted) return { ok: false, error: 'aborted before an answer (shutdown or flush deadline)' };
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause; // undici puts the socket error here
    const code = typeof cause?.code === 'string' ? cause.code : undefined;
    if (code) return { ok: false, error: `connection failed (${code})` };
    return { ok: false, error: typeof cause?.message === 'string' ? `request failed: ${cause.message}` : 'request failed' };
  }
}
