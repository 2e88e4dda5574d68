/**
 * The events Ballast tells people about (docs/notifications.md "Events"): their names, fixed severities, and the
 * shape one event takes on its way into the delivery queue. Pure: no I/O.
 *
 * An event names its subject (a request id, a transfer id, a route, an endpoint) and, where the subject can reach
 * the same kind of event more than once, a status; `<kind>:<subject>[:<status>]` is its dedupe key, unique per sink
 * in the queue, so the same event is queued (and delivered) once however many times the code reaches it.
 */
import { createHash } from 'node:crypto';
import { formatUnits } from 'viem';

/** How much an event matters; a sink's `minSeverity` drops the ones below it. */
export const NOTIFY_SEVERITIES = ['info', 'warning', 'critical'] as const;

/** One of {@link NOTIFY_SEVERITIES}. */
export type NotifySeverity = (typeof NOTIFY_SEVERITIES)[number];

/** Every event name with its fixed severity (docs/notifications.md "Events"). */
export const NOTIFY_EVENT_SEVERITY = {
  approval_needed: 'warning',
  approval_granted: 'info',
  approval_rejected: 'warning',
  approval_expired: 'warning',
  approval_not_needed: 'info',
  approval_executed: 'info',
  transfer_failed: 'critical',
  transfer_refunded: 'warning',
  transfer_stalled: 'warning',
  withdrawal: 'warning',
  route_paused: 'critical',
  spending_limit_hit: 'warning',
  kill_switch_engaged: 'critical',
  relay_sunset_soon: 'warning',
  leader_changed: 'info',
  transfer_unstalled: 'info',
  route_resumed: 'info',
  daily_digest: 'info',
} as const satisfies Record<string, NotifySeverity>;

/** An event name. */
export type NotifyEventKind = keyof typeof NOTIFY_EVENT_SEVERITY;

/** Every event name, in the order of {@link NOTIFY_EVENT_SEVERITY}. */
export const NOTIFY_EVENTS = Object.keys(NOTIFY_EVENT_SEVERITY) as readonly NotifyEventKind[];

/**
 * The events that end a condition another event opened, by the event that opened it: each is queued for exactly
 * the sinks that were delivered the opening event (src/notify/incidents.ts), whatever their `events` and
 * `minSeverity`, so they are not listed in a sink's `events`.
 */
export const RESOLVING_EVENTS = {
  transfer_unstalled: 'transfer_stalled',
  route_resumed: 'route_paused',
} as const satisfies Partial<Record<NotifyEventKind, NotifyEventKind>>;

/** An event of {@link RESOLVING_EVENTS}. */
export type ResolvingEventKind = keyof typeof RESOLVING_EVENTS;

/** Events no sink lists in `events`: the resolving ones, and the daily digest (a sink's own `digest:` setting). */
const NOT_LISTED: readonly NotifyEventKind[] = [...(Object.keys(RESOLVING_EVENTS) as ResolvingEventKind[]), 'daily_digest'];

/** The event names a sink may list in `events` ({@link NOTIFY_EVENTS} but the resolving ones and the digest). */
export const SINK_EVENTS: readonly NotifyEventKind[] = NOTIFY_EVENTS.filter((e) => !NOT_LISTED.includes(e));

/** Whether `kind` is an event of {@link RESOLVING_EVENTS}. */
export function isResolvingEvent(kind: string): kind is ResolvingEventKind {
  return Object.hasOwn(RESOLVING_EVENTS, kind);
}

/** A JSON value of an event payload (amounts already decimal strings: see {@link amountFields}). */
export type NotifyJson = string | number | boolean | null | NotifyJson[] | { [key: string]: NotifyJson };

/**
 * One event as the code that saw it reports it to `notify` (src/notify/notify.ts).
 *
 * - `subject`: what it is about, stable across cycles and processes (a request id, `transfer:<id>`, a route as
 *   `<asset>:<from>-><to>`, an endpoint name);
 * - `status`: set when one subject can reach the same kind of event again in another state (e.g. a limit hit in
 *   another cycle), so that one is queued too;
 * - `summary`: one readable line (the Slack text, the webhook's `payload.summary`);
 * - `payload`: the facts (requestId, asset, route, amounts as base-unit strings and whole units, reason, ...).
 */
export interface NotifyEvent {
  kind: NotifyEventKind;
  subject: string;
  status?: string;
  summary: string;
  payload: { [key: string]: NotifyJson };
}

/** Longest dedupe key kept as written; longer ones are shortened with a hash of the whole. */
const MAX_KEY_CHARS = 200;

/**
 * The dedupe key of an event: `<kind>:<subject>[:<status>]`, at most 200 characters (a longer one keeps its first
 * 150 characters and appends the SHA-256 of the whole, so distinct keys stay distinct).
 */
export function dedupeKey(event: Pick<NotifyEvent, 'kind' | 'subject' | 'status'>): string {
  const key = `${event.kind}:${event.subject}${event.status !== undefined ? `:${event.status}` : ''}`;
  if (key.length <= MAX_KEY_CHARS) return key;
  return `${key.slice(0, 150)}#${createHash('sha256').update(key).digest('hex').slice(0, 40)}`;
}

/** Whether severity `s` is at or above `min`. */
export function atLeast(s: NotifySeverity, min: NotifySeverity): boolean {
  return NOTIFY_SEVERITIES.indexOf(s) >= NOTIFY_SEVERITIES.indexOf(min);
}

/**
 * Payload fields of one amount: `<name>` the base units as a decimal string, and, when the decimals are known,
 * `<name>Whole` the same amount in whole units (exact decimal string).
 *
 * @param name field name, e.g. `amountIn`
 * @param amount base units
 * @param decimals the token's decimals, or undefined/null when unknown (then no `<name>Whole`)
 */
export function amountFields(name: string, amount: bigint, decimals: number | null | undefined): { [key: string]: NotifyJson } {
  return {
    [name]: amount.toString(10),
    ...(decimals !== undefined && decimals !== null ? { [`${name}Whole`]: formatUnits(amount, decimals) } : {}),
  };
}
