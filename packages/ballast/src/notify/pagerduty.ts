/**
 * The PagerDuty sink (docs/notifications.md "PagerDuty sink"): each delivery becomes one event of PagerDuty's
 * Events API v2 (https://developer.pagerduty.com/docs/events-api-v2/trigger-events/), POSTed as JSON to
 * `https://events.pagerduty.com/v2/enqueue`. An event that opens a condition is a `trigger`; one that ends it
 * (src/notify/events.ts `RESOLVING_EVENTS`) is a `resolve` carrying the opening event's `dedup_key`, so PagerDuty
 * keeps one incident per stalled transfer or route pause and closes it. Pure: no I/O.
 *
 * PagerDuty answers 202 `{status: "success", message: "Event processed", dedup_key}` to an accepted event, 400 to an
 * invalid one (never retried: the same body would be refused again), and 429 or 5xx when it could not take it now
 * (retried with the queue's backoff).
 */
import { isResolvingEvent, type NotifyEventKind, type NotifyJson, type NotifySeverity } from './events.ts';
import type { DeliveryContent } from './format.ts';

/** The Events API v2 endpoint (EU accounts: `https://events.eu.pagerduty.com/v2/enqueue`). */
export const PAGERDUTY_EVENTS_URL = 'https://events.pagerduty.com/v2/enqueue';
/** Length of a routing key (the Integration Key of an Events API v2 integration). */
export const PAGERDUTY_ROUTING_KEY_CHARS = 32;
/** Longest `payload.summary` PagerDuty accepts, characters. */
export const PAGERDUTY_SUMMARY_MAX_CHARS = 1024;
/** Longest `dedup_key` PagerDuty accepts, characters. */
export const PAGERDUTY_DEDUP_KEY_MAX_CHARS = 255;
/** HTTP statuses of PagerDuty that are final: the event is invalid and is not sent again. */
export const PAGERDUTY_NO_RETRY_STATUSES: readonly number[] = [400];

/** The events a pagerduty sink receives when its config lists none: the ones that need someone now. */
export const PAGERDUTY_DEFAULT_EVENTS = [
  'transfer_failed',
  'transfer_stalled',
  'route_paused',
  'kill_switch_engaged',
] as const satisfies readonly NotifyEventKind[];

/** PagerDuty's severities, most severe first. */
export const PAGERDUTY_SEVERITIES = ['critical', 'error', 'warning', 'info'] as const;
/** One of {@link PAGERDUTY_SEVERITIES}. */
export type PagerDutySeverity = (typeof PAGERDUTY_SEVERITIES)[number];
/** The `event_action`s Ballast sends (PagerDuty also knows `acknowledge`, which is left to people). */
export type PagerDutyAction = 'trigger' | 'resolve';

/** One Events API v2 event as sent (the JSON body). A resolve carries no payload. */
export interface PagerDutyEvent {
  routing_key: string;
  event_action: PagerDutyAction;
  dedup_key: string;
  client?: string;
  payload?: {
    summary: string;
    source: string;
    severity: PagerDutySeverity;
    /** ISO 8601 time the event was queued. */
    timestamp: string;
    component?: string;
    group?: string;
    class: string;
    custom_details: { [key: string]: NotifyJson };
  };
}

/**
 * PagerDuty's severity of an event: Ballast's own (`info`, `warning`, `critical` are PagerDuty's names too),
 * except `transfer_failed`, which is `error`: one transfer failed, the treasury is not down.
 */
export function pagerDutySeverity(event: string, severity: NotifySeverity): PagerDutySeverity {
  return event === 'transfer_failed' ? 'error' : severity;
}

/** `resolve` for the events that end a condition (src/notify/events.ts `RESOLVING_EVENTS`), else `trigger`. */
export function pagerDutyAction(event: string): PagerDutyAction {
  return isResolvingEvent(event) ? 'resolve' : 'trigger';
}

/**
 * The `dedup_key` of a delivery: its own dedupe key for an opening event (`transfer_stalled:transfer:42`), the
 * opening event's for a resolving one (its payload's `resolves`), so trigger and resolve name the same alert.
 * Dedupe keys are at most 200 characters (src/notify/events.ts), within PagerDuty's 255.
 */
export function pagerDutyDedupKey(d: Pick<DeliveryContent, 'event' | 'dedupeKey' | 'payload'>): string {
  if (!isResolvingEvent(d.event)) return d.dedupeKey;
  const opened = d.payload.resolves;
  return typeof opened === 'string' ? opened : d.dedupeKey.slice(d.event.length + 1);
}

/**
 * The Events API v2 event of a delivery.
 *
 * - trigger: `payload.summary` is the event's summary (cut to 1024 characters), `source` the sink's, `severity`
 *   per {@link pagerDutySeverity}, `timestamp` when it was queued, `component` the route (`base -> arbitrum`) and
 *   `group` the asset when the event names them, `class` the event name, `custom_details` the event payload with
 *   `event` and `id` (the delivery's idempotency key);
 * - resolve: `routing_key`, `event_action` and `dedup_key` only.
 *
 * @param sink.routingKey the service's Integration Key (32 characters)
 * @param sink.source `payload.source`
 */
export function pagerDutyEvent(d: DeliveryContent, sink: { routingKey: string; source: string }): PagerDutyEvent {
  const action = pagerDutyAction(d.event);
  const base = { routing_key: sink.routingKey, event_action: action, dedup_key: pagerDutyDedupKey(d) };
  if (action === 'resolve') return base;
  const text = (key: string): string | undefined => (typeof d.payload[key] === 'string' ? (d.payload[key] as string) : undefined);
  const origin = text('originChain');
  const destination = text('destinationChain');
  const asset = text('asset');
  return {
    ...base,
    client: 'Ballast',
    payload: {
      summary: cut(d.summary, PAGERDUTY_SUMMARY_MAX_CHARS),
      source: sink.source,
      severity: pagerDutySeverity(d.event, d.severity),
      timestamp: new Date(d.createdAtMs).toISOString(),
      ...(origin !== undefined && destination !== undefined ? { component: `${origin} -> ${destination}` } : {}),
      ...(asset !== undefined ? { group: asset } : {}),
      class: d.event,
      custom_details: { event: d.event, id: d.dedupeKey, ...d.payload },
    },
  };
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
