/**
 * What a sink is sent (docs/notifications.md "Webhook sink", "Slack sink") and when a failed delivery is tried
 * again. Pure: no I/O.
 */
import type { NotifyJson, NotifySeverity } from './events.ts';

/** A queued delivery as the formatters need it. */
export interface DeliveryContent {
  /** The dedupe key: the idempotency key a receiver dedupes on (`id` of the webhook body). */
  dedupeKey: string;
  event: string;
  severity: NotifySeverity;
  summary: string;
  /** The event payload (parsed from the queue's JSON text). */
  payload: { [key: string]: NotifyJson };
  /** When the event was queued, Unix ms. */
  createdAtMs: number;
}

/**
 * The payload of a queued row (JSON text written by `notify` with `JSON.stringify`) as an object; `{}` for text
 * that is not a JSON object.
 */
export function parseStoredPayload(text: string): { [key: string]: NotifyJson } {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as { [key: string]: NotifyJson }) : {}; // checked just before
  } catch {
    return {};
  }
}

/** The JSON body of the generic webhook sink. */
export interface WebhookBody {
  /** Idempotency key: the same for every retry and every sink of one event. */
  id: string;
  event: string;
  severity: NotifySeverity;
  /** ISO 8601 UTC time the event was queued. */
  occurredAt: string;
  summary: string;
  payload: { [key: string]: NotifyJson };
}

/** The body of the generic webhook sink: `{id, event, severity, occurredAt, summary, payload}`. */
export function webhookBody(d: DeliveryContent): WebhookBody {
  return {
    id: d.dedupeKey,
    event: d.event,
    severity: d.severity,
    occurredAt: new Date(d.createdAtMs).toISOString(),
    summary: d.summary,
    payload: d.payload,
  };
}

/** A Slack incoming-webhook message (https://api.slack.com/messaging/webhooks): `text` plus Block Kit blocks. */
export interface SlackMessage {
  text: string;
  blocks: Array<
    | { type: 'section'; text: { type: 'mrkdwn'; text: string } }
    | { type: 'section'; fields: Array<{ type: 'mrkdwn'; text: string }> }
    | { type: 'context'; elements: Array<{ type: 'mrkdwn'; text: string }> }
  >;
}

/** Slack shows at most 10 fields in a section block (https://api.slack.com/reference/block-kit/blocks#section). */
const MAX_SLACK_FIELDS = 10;
/** Longest text of a section block kept (Slack's limit, https://api.slack.com/reference/block-kit/blocks#section). */
const MAX_SECTION_CHARS = 3000;
/** Longest field text kept (Slack's limit is 2000 characters per field). */
const MAX_FIELD_CHARS = 300;

/** `[CRITICAL]`, `[WARNING]` or `[INFO]`: the severity marker that starts every Slack line. */
export function severityMarker(severity: NotifySeverity): string {
  return `[${severity.toUpperCase()}]`;
}

/** Escapes the three characters Slack's mrkdwn gives a meaning to (https://api.slack.com/reference/surfaces/formatting#escaping). */
function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * The Slack message of a delivery: `text` is one readable line, `[SEVERITY] event: summary` (what a notification
 * preview shows); the blocks repeat it, show the payload's `lines` (the daily digest's) one per line, list up to
 * ten scalar payload fields, then the idempotency key.
 */
export function slackMessage(d: DeliveryContent): SlackMessage {
  const line = `${severityMarker(d.severity)} ${d.event}: ${d.summary}`;
  const fields = Object.entries(d.payload)
    .filter((e): e is [string, string | number | boolean] => ['string', 'number', 'boolean'].includes(typeof e[1]))
    .slice(0, MAX_SLACK_FIELDS)
    .map(([k, v]) => ({ type: 'mrkdwn' as const, text: `*${escapeSlack(k)}*\n${escapeSlack(String(v)).slice(0, MAX_FIELD_CHARS)}` }));
  const lines = Array.isArray(d.payload.lines) ? d.payload.lines.filter((l): l is string => typeof l === 'string') : [];
  return {
    text: escapeSlack(line),
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `*${severityMarker(d.severity)}* ${escapeSlack(`${d.event}: ${d.summary}`)}` } },
      ...(lines.length > 0
        ? [{ type: 'section' as const, text: { type: 'mrkdwn' as const, text: escapeSlack(lines.join('\n')).slice(0, MAX_SECTION_CHARS) } }]
        : []),
      ...(fields.length > 0 ? [{ type: 'section' as const, fields }] : []),
      {
        type: 'context',
        elements: [{ type: 'mrkdwn', text: escapeSlack(`${new Date(d.createdAtMs).toISOString()} · ${d.dedupeKey}`) }],
      },
    ],
  };
}

/**
 * Wait before the next attempt after `attempts` failed ones: `retryBaseSec · 2^(attempts−1)`, capped at
 * `retryMaxSec`, in ms (30 s, 60 s, 120 s, … with the defaults).
 *
 * @param attempts attempts made so far (≥ 1)
 */
export function retryDelayMs(attempts: number, opts: { retryBaseSec: number; retryMaxSec: number }): number {
  const exponent = Math.min(Math.max(attempts - 1, 0), 30);
  return Math.min(opts.retryBaseSec * 2 ** exponent, opts.retryMaxSec) * 1000;
}
