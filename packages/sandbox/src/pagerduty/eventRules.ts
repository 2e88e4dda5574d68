/**
 * The rules PagerDuty's Events API v2 applies to an alert event (https://developer.pagerduty.com/docs/events-api-v2/trigger-events/,
 * and the API's published OpenAPI description, PagerDuty/api-schema `reference/events-v2/openapiv3.json`):
 *
 * - `routing_key`: a string of exactly 32 characters (the Integration Key of an Events API v2 integration);
 * - `event_action`: `trigger`, `acknowledge` or `resolve`;
 * - `dedup_key`: a string of at most 255 characters, required unless the action is `trigger` (PagerDuty then makes
 *   one up and returns it);
 * - on `trigger`, `payload` with a non-blank `summary` of at most 1024 characters, a non-blank `source` and a
 *   `severity` of `critical`, `error`, `warning` or `info`; `timestamp`, when given, an ISO 8601 date-time;
 *   `component`, `group` and `class` strings; `custom_details` an object.
 *
 * An event that breaks any of them is answered 400 with `{status: "invalid event", message: "Event object is
 * invalid", errors: [...]}`, one line per broken rule. Pure: no I/O.
 */

/** Length of a routing key. */
export const ROUTING_KEY_CHARS = 32;
/** Longest `payload.summary`, characters. */
export const SUMMARY_MAX_CHARS = 1024;
/** Longest `dedup_key`, characters. */
export const DEDUP_KEY_MAX_CHARS = 255;
/** The `event_action` values. */
export const EVENT_ACTIONS = ['trigger', 'acknowledge', 'resolve'] as const;
/** The `payload.severity` values. */
export const SEVERITIES = ['critical', 'error', 'warning', 'info'] as const;

/** An event that passed {@link checkEvent}: what the receiver keeps. */
export interface ValidEvent {
  routingKey: string;
  action: (typeof EVENT_ACTIONS)[number];
  /** As sent; undefined for a trigger without one. */
  dedupKey: string | undefined;
  /** `payload` of a trigger (summary, source, severity, ...), null otherwise. */
  payload: Record<string, unknown> | null;
}

/** The outcome of {@link checkEvent}: the event, or the list of broken rules (PagerDuty's `errors`). */
export type EventCheck = { ok: true; event: ValidEvent } | { ok: false; errors: string[] };

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const blank = (v: unknown): boolean => typeof v !== 'string' || v.trim() === '';

/**
 * Checks one parsed JSON body against the rules of the module doc.
 *
 * @param body the request body as parsed JSON (anything)
 * @returns the event, or every broken rule, worded like PagerDuty's `errors` lines
 */
export function checkEvent(body: unknown): EventCheck {
  if (!isRecord(body)) return { ok: false, errors: ['Event object must be a JSON object'] };
  const errors: string[] = [];
  const { routing_key: routingKey, event_action: action, dedup_key: dedupKey, payload } = body;
  if (typeof routingKey !== 'string' || routingKey === '') errors.push("'routing_key' is missing or blank");
  else if (routingKey.length !== ROUTING_KEY_CHARS)
    errors.push(`Length of 'routing_key' is incorrect (should be ${ROUTING_KEY_CHARS} characters)`);
  if (typeof action !== 'string' || action === '') errors.push("'event_action' is missing or blank");
  else if (!(EVENT_ACTIONS as readonly string[]).includes(action))
    errors.push(`'event_action' is invalid (must be one of: ${EVENT_ACTIONS.join(', ')})`);
  if (dedupKey !== undefined && typeof dedupKey !== 'string') errors.push("'dedup_key' must be a string");
  else if (typeof dedupKey === 'string' && dedupKey.length > DEDUP_KEY_MAX_CHARS)
    errors.push(`'dedup_key' is too long (at most ${DEDUP_KEY_MAX_CHARS} characters)`);
  if (action !== 'trigger' && action !== undefined && blank(dedupKey)) errors.push("'dedup_key' is missing or blank");
  if (action === 'trigger') errors.push(...payloadErrors(payload));
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    event: {
      routingKey: routingKey as string, // checked above
      action: action as ValidEvent['action'], // checked above
      dedupKey: dedupKey as string | undefined, // checked above
      payload: action === 'trigger' ? (payload as Record<string, unknown>) : null, // checked by payloadErrors
    },
  };
}

function payloadErrors(payload: unknown): string[] {
  if (!isRecord(payload)) return ["'payload' is missing or not an object"];
  const errors: string[] = [];
  if (blank(payload.summary)) errors.push("'payload.summary' is missing or blank");
  else if ((payload.summary as string).length > SUMMARY_MAX_CHARS)
    errors.push(`'payload.summary' is too long (at most ${SUMMARY_MAX_CHARS} characters)`);
  if (blank(payload.source)) errors.push("'payload.source' is missing or blank");
  if (typeof payload.severity !== 'string' || !(SEVERITIES as readonly string[]).includes(payload.severity))
    errors.push(`'payload.severity' is invalid (must be one of: ${SEVERITIES.join(', ')})`);
  if (payload.timestamp !== undefined && (typeof payload.timestamp !== 'string' || !ISO_DATE_TIME.test(payload.timestamp)))
    errors.push("'payload.timestamp' must be an ISO 8601 date-time");
  for (const field of ['component', 'group', 'class'])
    if (payload[field] !== undefined && typeof payload[field] !== 'string') errors.push(`'payload.${field}' must be a string`);
  if (payload.custom_details !== undefined && !isRecord(payload.custom_details)) errors.push("'payload.custom_details' must be an object");
  return errors;
}
