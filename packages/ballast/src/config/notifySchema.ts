/**
 * `notify:` section of `ballast.yaml`: where Ballast tells people about what matters (docs/notifications.md). Each
 * sink is a generic JSON webhook (HMAC-signed like Relay's own webhooks), a Slack incoming webhook or a PagerDuty
 * service (Events API v2), and filters by event name and severity; a webhook or Slack sink may also get a daily
 * digest. Without the section nothing is queued or sent.
 *
 * Sink URLs, secrets and routing keys are secrets (a Slack webhook URL is a bearer credential): write them as
 * `${VAR}`; they are kept out of error messages, and the loaded config holds them non-enumerable
 * (src/config/loadConfig.ts).
 */
import { z } from 'zod';
import { NAME_RE } from './patterns.ts';
import {
  NOTIFY_SEVERITIES,
  SINK_EVENTS,
  isResolvingEvent,
  RESOLVING_EVENTS,
  type NotifyEventKind,
  type NotifySeverity,
} from '../notify/events.ts';
import { PAGERDUTY_DEFAULT_EVENTS, PAGERDUTY_EVENTS_URL, PAGERDUTY_ROUTING_KEY_CHARS } from '../notify/pagerduty.ts';
import { isTimeZone, type DigestSetting } from '../notify/digest.ts';

/** Defaults of the delivery settings (docs/notifications.md "Delivery"). */
export const DEFAULT_NOTIFY = Object.freeze({
  maxAttempts: 8,
  timeoutMs: 5_000,
  retryBaseSec: 30,
  retryMaxSec: 3_600,
  batchSize: 20,
  concurrency: 4,
  everySec: 10,
  keepDays: 30,
  maxRows: 10_000,
});

const KNOWN_EVENTS = `known events: ${SINK_EVENTS.join(', ')}`;

const eventName = z.enum(['*', ...SINK_EVENTS] as [string, ...string[]], {
  error: (issue) => {
    const input = typeof issue.input === 'string' ? issue.input : '';
    if (isResolvingEvent(input))
      return `${input} is not listed: it goes to every sink that was sent ${RESOLVING_EVENTS[input]}; list ${RESOLVING_EVENTS[input]}`;
    if (input === 'daily_digest') return 'daily_digest is not listed: set digest: { at: "09:00", timezone: UTC } on the sink';
    return `unknown event; use "*" for all, or ${KNOWN_EVENTS}`;
  },
});

/** `notify.sinks.<name>.digest`: a daily summary at a local time of day (docs/notifications.md "Daily digest"). */
const DigestSchema = z
  .strictObject({
    at: z
      .string({ error: 'at must be a time of day as HH:MM (24 h), e.g. "09:00"' })
      .regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, 'at must be a time of day as HH:MM (24 h), e.g. "09:00"')
      .describe('local time of day the digest is sent, HH:MM (24 h)'),
    timezone: z
      .string({ error: 'timezone must be an IANA time zone name, e.g. UTC or Europe/Paris' })
      .refine(isTimeZone, 'timezone must be an IANA time zone name, e.g. UTC or Europe/Paris')
      .default('UTC')
      .describe('IANA time zone of `at` and of the day the digest covers (default UTC)'),
  })
  .describe('webhook and slack only: one message a day with the moves, fees, pauses and open requests of the last 24 hours');

const int = (what: string, min: number, max: number) =>
  z
    .number({ error: `${what} must be a whole number from ${min} to ${max}` })
    .int(`${what} must be a whole number from ${min} to ${max}`)
    .min(min, `${what} must be a whole number from ${min} to ${max}`)
    .max(max, `${what} must be a whole number from ${min} to ${max}`);

/** `notify.sinks.<name>`: one destination. */
export const NotifySinkSchema = z
  .strictObject({
    kind: z
      .enum(['webhook', 'slack', 'pagerduty'], {
        error: 'kind must be webhook (signed JSON POST), slack (Slack incoming webhook) or pagerduty (Events API v2)',
      })
      .describe('webhook: signed JSON POST to any receiver; slack: a Slack incoming-webhook URL; pagerduty: a PagerDuty service'),
    url: z
      .url({ protocol: /^https?$/, error: 'url must be an http(s) URL; write it as ${VAR} (it is a secret for Slack)' })
      .optional()
      .describe(`where to POST; use \${VAR}: a Slack webhook URL is a credential (pagerduty: default ${PAGERDUTY_EVENTS_URL})`),
    secret: z
      .string({ error: 'secret must be a string; use ${NOTIFY_WEBHOOK_SECRET}' })
      .min(16, 'secret must be at least 16 characters (the HMAC-SHA256 key the receiver verifies with)')
      .optional()
      .describe('webhook only, required there: the HMAC-SHA256 key of X-Signature-SHA256; use ${VAR}'),
    routingKey: z
      .string({ error: 'routingKey must be a string; use ${PAGERDUTY_ROUTING_KEY}' })
      .length(
        PAGERDUTY_ROUTING_KEY_CHARS,
        `routingKey must be ${PAGERDUTY_ROUTING_KEY_CHARS} characters: the Integration Key of the service's Events API v2 integration`,
      )
      .optional()
      .describe("pagerduty only, required there: the Integration Key of the service's Events API v2 integration; use ${VAR}"),
    source: z
      .string({ error: 'source must be a string' })
      .min(1, 'source must not be empty')
      .max(255, 'source must be at most 255 characters')
      .optional()
      .describe('pagerduty only: payload.source of every event, the system affected (default "ballast")'),
    events: z
      .array(eventName, { error: `events must be a list of event names, e.g. [transfer_failed, route_paused], or ["*"] for all` })
      .min(1, 'events must list at least one event, or ["*"] for all')
      .optional()
      .describe(
        `events this sink receives: a list of names, "*" for all (default ["*"]; pagerduty: ${PAGERDUTY_DEFAULT_EVENTS.join(', ')}); ${KNOWN_EVENTS}`,
      ),
    minSeverity: z
      .enum(NOTIFY_SEVERITIES, { error: 'minSeverity must be info, warning or critical' })
      .default('info')
      .describe('drop events below this severity (info < warning < critical; default info)'),
    digest: DigestSchema.optional(),
  })
  .superRefine((sink, ctx) => {
    const refuse = (path: string, message: string): void => void ctx.addIssue({ code: 'custom', path: [path], message });
    if (sink.kind !== 'pagerduty' && sink.url === undefined)
      refuse('url', `a ${sink.kind} sink needs the url to POST to; write it as \${VAR}`);
    if (sink.kind === 'webhook' && sink.secret === undefined)
      refuse('secret', 'a webhook sink signs every delivery: set secret: "${NOTIFY_WEBHOOK_SECRET}" (at least 16 characters)');
    if (sink.kind !== 'webhook' && sink.secret !== undefined)
      refuse(
        'secret',
        `a ${sink.kind} sink is not signed (${sink.kind === 'slack' ? 'its URL' : 'its routing key'} is the credential): remove secret`,
      );
    if (sink.kind === 'pagerduty' && sink.routingKey === undefined)
      refuse('routingKey', 'a pagerduty sink needs routingKey: "${PAGERDUTY_ROUTING_KEY}" (the Events API v2 Integration Key)');
    if (sink.kind !== 'pagerduty' && sink.routingKey !== undefined)
      refuse('routingKey', 'routingKey is for a pagerduty sink only: remove it');
    if (sink.kind !== 'pagerduty' && sink.source !== undefined) refuse('source', 'source is for a pagerduty sink only: remove it');
    if (sink.kind === 'pagerduty' && sink.digest !== undefined)
      refuse('digest', 'a pagerduty sink opens incidents and sends no digest: set digest on a webhook or slack sink');
  })
  .describe('one notification destination');

/** `notify:` section. */
export const NotifySectionSchema = z
  .strictObject({
    sinks: z
      .record(z.string().regex(NAME_RE), NotifySinkSchema)
      .refine((s) => Object.keys(s).length > 0, 'list at least one sink, or remove notify:')
      .describe('destinations by name (the name is the `sink` label of ballast_notifications_total)'),
    maxAttempts: int('maxAttempts', 1, 100)
      .default(DEFAULT_NOTIFY.maxAttempts)
      .describe('attempts per delivery before it is given up (default 8)'),
    timeoutMs: int('timeoutMs', 100, 60_000).default(DEFAULT_NOTIFY.timeoutMs).describe('per-request timeout, ms (default 5000)'),
    retryBaseSec: int('retryBaseSec', 1, 3_600)
      .default(DEFAULT_NOTIFY.retryBaseSec)
      .describe('wait before the first retry, seconds; doubled after each failed attempt (default 30)'),
    retryMaxSec: int('retryMaxSec', 1, 86_400)
      .default(DEFAULT_NOTIFY.retryMaxSec)
      .describe('longest wait between attempts, seconds (default 3600)'),
    batchSize: int('batchSize', 1, 500).default(DEFAULT_NOTIFY.batchSize).describe('deliveries taken per dispatch pass (default 20)'),
    concurrency: int('concurrency', 1, 32).default(DEFAULT_NOTIFY.concurrency).describe('requests in flight at once (default 4)'),
    everySec: int('everySec', 1, 3_600)
      .default(DEFAULT_NOTIFY.everySec)
      .describe('the daemon dispatches due deliveries this often, seconds (default 10)'),
    keepDays: int('keepDays', 1, 3_650)
      .default(DEFAULT_NOTIFY.keepDays)
      .describe('delivered and failed deliveries older than this are deleted, days (default 30)'),
    maxRows: int('maxRows', 100, 1_000_000)
      .default(DEFAULT_NOTIFY.maxRows)
      .describe('the queue keeps at most this many rows; the oldest finished ones go first, then the oldest pending (default 10000)'),
  })
  .describe('notifications to Slack, PagerDuty or any webhook (docs/notifications.md)');

/** The kinds of sink. */
export type NotifySinkKind = 'webhook' | 'slack' | 'pagerduty';

/** One sink as loaded: `url`, `secret` and `routingKey` are non-enumerable (kept out of spread, JSON and logs). */
export interface LoadedNotifySink {
  name: string;
  kind: NotifySinkKind;
  /** Where to POST (pagerduty: the Events API v2 endpoint unless configured). */
  readonly url: string;
  /** webhook only: the HMAC-SHA256 key. */
  readonly secret?: string;
  /** pagerduty only: the Events API v2 Integration Key (32 characters). */
  readonly routingKey?: string;
  /** pagerduty only: `payload.source` of every event (default `ballast`). */
  source?: string;
  /** `'*'` or the listed event names. */
  events: '*' | readonly NotifyEventKind[];
  minSeverity: NotifySeverity;
  /** webhook and slack only: when the daily digest is sent; absent: none. */
  digest?: DigestSetting;
}

/** The `notify:` section as loaded (defaults applied, secrets hidden). */
export interface NotifyConfig {
  sinks: readonly LoadedNotifySink[];
  maxAttempts: number;
  timeoutMs: number;
  retryBaseSec: number;
  retryMaxSec: number;
  batchSize: number;
  concurrency: number;
  everySec: number;
  keepDays: number;
  maxRows: number;
}

/**
 * Builds the loaded section from the parsed one: one {@link LoadedNotifySink} per sink, `url`, `secret` and
 * `routingKey` non-enumerable; a sink without `events` gets `'*'` (pagerduty: {@link PAGERDUTY_DEFAULT_EVENTS}).
 */
export function loadNotify(parsed: z.output<typeof NotifySectionSchema>): NotifyConfig {
  const sinks = Object.entries(parsed.sinks).map(([name, s]) => {
    const listed = s.events ?? (s.kind === 'pagerduty' ? [...PAGERDUTY_DEFAULT_EVENTS] : ['*']);
    const events: LoadedNotifySink['events'] = listed.includes('*') ? '*' : (listed as NotifyEventKind[]); // checked by eventName
    const sink = { name, kind: s.kind, events, minSeverity: s.minSeverity } as LoadedNotifySink;
    if (s.kind === 'pagerduty') sink.source = s.source ?? 'ballast';
    if (s.digest !== undefined) sink.digest = { at: s.digest.at, timezone: s.digest.timezone };
    const hidden = { url: s.url ?? PAGERDUTY_EVENTS_URL, secret: s.secret, routingKey: s.routingKey };
    for (const [key, value] of Object.entries(hidden))
      if (value !== undefined) Object.defineProperty(sink, key, { value, enumerable: false, writable: false });
    return sink;
  });
  const { sinks: _omit, ...rest } = parsed;
  return { ...rest, sinks };
}

/** Secrets of the raw (env-resolved) `notify:` tree: every sink's url, secret and routing key, to keep out of error messages. */
export function notifySecrets(tree: unknown): string[] {
  const rec = (v: unknown): Record<string, unknown> =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  const out: string[] = [];
  for (const sink of Object.values(rec(rec(rec(tree).notify).sinks))) {
    for (const field of ['url', 'secret', 'routingKey']) {
      const value = rec(sink)[field];
      if (typeof value === 'string' && value.length > 0) out.push(value);
    }
  }
  return out;
}
