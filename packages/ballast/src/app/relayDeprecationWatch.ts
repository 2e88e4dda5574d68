/**
 * Turns the Relay client's deprecation notices (src/relay/deprecation.ts) into the gauges of
 * src/metrics/relayDeprecationMetrics.ts and one warning log line per endpoint per UTC day, so a retiring endpoint
 * (e.g. POST /quote/v2: deprecated 2026-11-25, retired 2027-02-23, successor POST /quote/v3,
 * https://docs.relay.link/references/api/api_guides/migrating-to-quote-v3) is seen before it stops answering.
 * The alert `BallastRelayEndpointSunset` (deploy/prometheus/alerts.yml) fires 30 days before a sunset.
 */
import type { Logger } from 'pino';
import type { DeprecationNotice } from '../relay/deprecation.ts';
import type { RelayDeprecationMetrics } from '../metrics/relayDeprecationMetrics.ts';
import type { NotifyEvent } from '../notify/events.ts';
import { sunsetEvent } from '../notify/eventOf.ts';
import { deprecationFix } from '../relay/deprecationFix.ts';

/** Options of {@link createRelayDeprecationWatch}. */
export interface RelayDeprecationWatchOptions {
  metrics: RelayDeprecationMetrics;
  logger: Logger;
  /** Clock, unix ms (default `Date.now`). */
  now?: () => number;
  /**
   * Receives `relay_sunset_soon` (a `Sunset` within 30 days, src/notify/eventOf.ts) with the daily warning; must not
   * throw (src/notify/notify.ts `notify`).
   */
  notify?: (event: NotifyEvent) => void;
}

const DAY_SEC = 86_400;

/** `YYYY-MM-DD` (UTC) of unix seconds. */
function utcDay(unixSec: number): string {
  return new Date(unixSec * 1000).toISOString().slice(0, 10);
}

/**
 * Creates the `onDeprecation` callback of the Relay client. For each notice it sets
 * `ballast_relay_endpoint_deprecated{endpoint}` (1 when `deprecatedAtSec` ≤ now, else 0) and
 * `ballast_relay_endpoint_sunset_timestamp_seconds{endpoint}` (the `Sunset` date; the series is removed when the
 * notice has no `Sunset` header), each kept at its last value when its header is malformed, and logs at warn, at
 * most once per endpoint per UTC day, the dates, the successor and what to do. Never throws.
 */
export function createRelayDeprecationWatch(opts: RelayDeprecationWatchOptions): (notice: DeprecationNotice) => void {
  const now = opts.now ?? Date.now;
  const lastWarnedDay = new Map<string, string>();
  return (notice) => {
    const nowSec = Math.floor(now() / 1000);
    const { endpoint } = notice;
    const deprecated = notice.deprecatedAtSec !== undefined && notice.deprecatedAtSec <= nowSec;
    if (notice.deprecatedAtSec !== undefined || !notice.ignored.some((i) => i.header === 'Deprecation')) {
      opts.metrics.relayEndpointDeprecated.set({ endpoint }, deprecated ? 1 : 0);
    }
    if (notice.sunsetAtSec !== undefined) {
      opts.metrics.relayEndpointSunsetTimestampSeconds.set({ endpoint }, notice.sunsetAtSec);
    } else if (!notice.ignored.some((i) => i.header === 'Sunset')) {
      opts.metrics.relayEndpointSunsetTimestampSeconds.remove({ endpoint });
    }
    const today = utcDay(nowSec);
    if (lastWarnedDay.get(endpoint) === today) return;
    lastWarnedDay.set(endpoint, today);
    const soon = sunsetEvent(notice, nowSec);
    if (soon) opts.notify?.(soon);
    opts.logger.warn(deprecationLogFields(notice, nowSec), deprecationMessage(notice, nowSec));
  };
}

/** Structured fields of the warning: dates as ISO strings, the successor and the links, malformed headers. */
function deprecationLogFields(notice: DeprecationNotice, nowSec: number): Record<string, unknown> {
  const successor = notice.links.find((l) => l.rel === 'successor-version')?.uri;
  const guide = (notice.links.find((l) => l.rel === 'deprecation') ?? notice.links.find((l) => l.rel === 'sunset'))?.uri;
  return {
    endpoint: notice.endpoint,
    ...(notice.deprecatedAtSec !== undefined ? { deprecatedAt: new Date(notice.deprecatedAtSec * 1000).toISOString() } : {}),
    ...(notice.sunsetAtSec !== undefined
      ? { sunsetAt: new Date(notice.sunsetAtSec * 1000).toISOString(), daysToSunset: Math.floor((notice.sunsetAtSec - nowSec) / DAY_SEC) }
      : {}),
    ...(successor !== undefined ? { successor } : {}),
    ...(guide !== undefined ? { migrationGuide: guide } : {}),
    ...(notice.ignored.length > 0 ? { ignoredHeaders: notice.ignored } : {}),
  };
}

/**
 * One line naming the endpoint, its dates, its successor and the fix, e.g. "Relay endpoint POST /quote/v2 is
 * deprecated since 2026-11-25 and stops answering on 2027-02-23 (Sunset); its successor is
 * https://api.relay.link/quote/v3: Ballast must move to it before 2027-02-23 (this version speaks POST /quote/v3:
 * run `ballast api-check`, then set `relay.quoteApi: v3`; migration guide https://docs.relay.link/...)". The fix
 * comes from src/relay/deprecationFix.ts.
 */
function deprecationMessage(notice: DeprecationNotice, nowSec: number): string {
  const parts = [`Relay endpoint ${notice.endpoint}`];
  if (notice.deprecatedAtSec !== undefined) {
    parts.push(
      notice.deprecatedAtSec <= nowSec
        ? `is deprecated since ${utcDay(notice.deprecatedAtSec)}`
        : `will be deprecated on ${utcDay(notice.deprecatedAtSec)}`,
    );
  } else {
    parts.push('announces its retirement');
  }
  const sunset = notice.sunsetAtSec;
  if (sunset !== undefined) {
    parts.push(
      sunset <= nowSec
        ? `and was due to stop answering on ${utcDay(sunset)} (Sunset)`
        : `and stops answering on ${utcDay(sunset)} (Sunset)`,
    );
  }
  let text = parts.join(' ');
  const successor = notice.links.find((l) => l.rel === 'successor-version')?.uri;
  const guide = (notice.links.find((l) => l.rel === 'deprecation') ?? notice.links.find((l) => l.rel === 'sunset'))?.uri;
  const deadline = sunset !== undefined ? ` before ${utcDay(sunset)}` : '';
  text +=
    successor !== undefined
      ? `; its successor is ${successor}: Ballast must move to it${deadline}`
      : `; Ballast must move off it${deadline}`;
  text += ` (${deprecationFix(notice.endpoint)}${guide !== undefined ? `; migration guide ${guide}` : ''})`;
  if (notice.ignored.length > 0) text += `; malformed headers ignored: ${notice.ignored.map((i) => `${i.header} ${i.reason}`).join('; ')}`;
  return text;
}
