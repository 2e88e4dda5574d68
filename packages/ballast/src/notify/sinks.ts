/**
 * Sends one delivery to one sink over HTTP (node's fetch, with a per-request timeout). Generic webhooks are
 * signed like Relay's own webhooks (docs/relay-contract.md "Webhooks"): `X-Signature-Timestamp` (Unix ms) and
 * `X-Signature-SHA256`, the hex HMAC-SHA256 of `<timestamp>.<raw body>` with the sink's secret, so a receiver can
 * verify with `verifyWebhookSignature` of @ballast/protocol (docs/notifications.md "Verifying a delivery").
 * PagerDuty sinks get an Events API v2 event (src/notify/pagerduty.ts), authenticated by the routing key inside it.
 */
import { signWebhook } from '@ballast/protocol/relay/webhookSignature.ts';
import type { LoadedNotifySink } from '../config/notifySchema.ts';
import { slackMessage, webhookBody, type DeliveryContent } from './format.ts';
import { PAGERDUTY_NO_RETRY_STATUSES, pagerDutyEvent } from './pagerduty.ts';

/** Header naming the event of a webhook delivery. */
export const EVENT_HEADER = 'X-Ballast-Event';
/** Header carrying the idempotency key (the body's `id`) of a webhook delivery. */
export const DELIVERY_HEADER = 'X-Ballast-Delivery';

/** Outcome of one request: delivered (2xx), or why not and whether sending it again may help. */
export type SendResult = { ok: true } | { ok: false; error: string; retry: boolean };

/** The request a sink gets: URL, headers and the exact body bytes. */
export interface SinkRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** HTTP statuses that refuse this body for good (PagerDuty's 400): not retried, the answer's text kept. */
  noRetryStatuses?: readonly number[];
}

/** Longest part of a refusing answer's body kept in the error, characters. */
const MAX_ANSWER_CHARS = 300;

/**
 * Builds the request of `delivery` for `sink` (the webhook one signed at `nowMs`).
 *
 * @throws Error for a webhook sink without a secret, or a pagerduty one without a routing key (both refused by the
 *   config check before it can happen)
 */
export function sinkRequest(sink: LoadedNotifySink, delivery: DeliveryContent, nowMs: number): SinkRequest {
  if (sink.kind === 'slack') {
    return { url: sink.url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(slackMessage(delivery)) };
  }
  if (sink.kind === 'pagerduty') {
    if (sink.routingKey === undefined) throw new Error(`notify.sinks.${sink.name}.routingKey is not set`);
    const event = pagerDutyEvent(delivery, { routingKey: sink.routingKey, source: sink.source ?? 'ballast' });
    return {
      url: sink.url,
      headers: { 'content-type': 'application/json', 'user-agent': 'ballast-notify' },
      body: JSON.stringify(event),
      noRetryStatuses: PAGERDUTY_NO_RETRY_STATUSES,
    };
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
 * is a credential). A status of `req.noRetryStatuses` is final (`retry: false`), its error carrying the start of
 * the answer (PagerDuty's `errors` list); every other failure may be retried.
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
    if (req.noRetryStatuses?.includes(res.status)) {
      const answer = (await res.text().catch(() => '')).slice(0, MAX_ANSWER_CHARS);
      return { ok: false, retry: false, error: `HTTP ${res.status}, not retried${answer ? `: ${answer}` : ''}` };
    }
    await res.body?.cancel().catch(() => undefined);
    return res.ok ? { ok: true } : { ok: false, retry: true, error: `HTTP ${res.status}` };
  } catch (error) {
    const failed = (message: string): SendResult => ({ ok: false, retry: true, error: message });
    if (timeout.aborted) return failed(`timed out after ${timeoutMs} ms`);
    if (signal?.aborted) return failed('aborted before an answer (shutdown or flush deadline)');
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause; // undici puts the socket error here
    const code = typeof cause?.code === 'string' ? cause.code : undefined;
    if (code) return failed(`connection failed (${code})`);
    return failed(typeof cause?.message === 'string' ? `request failed: ${cause.message}` : 'request failed');
  }
}
