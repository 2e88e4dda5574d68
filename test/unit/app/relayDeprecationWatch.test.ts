/**
 * The deprecation watch (src/app/relayDeprecationWatch.ts): notices become the sunset and deprecated gauges of a
 * real registry, and one warning per endpoint per UTC day names the dates, the successor and the fix.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createRelayDeprecationWatch } from '../../../packages/ballast/src/app/relayDeprecationWatch.ts';
import { createMetrics } from '../../../packages/ballast/src/metrics/metrics.ts';
import type { DeprecationNotice } from '../../../packages/ballast/src/relay/deprecation.ts';

const GUIDE = 'https://docs.relay.link/references/api/api_guides/migrating-to-quote-v3';
const DEPRECATED_AT = 1795564800; // 2026-11-25T00:00:00Z
const SUNSET_AT = 1803340800; // 2027-02-23T00:00:00Z
const QUOTE_V2: DeprecationNotice = {
  endpoint: 'POST /quote/v2',
  deprecatedAtSec: DEPRECATED_AT,
  sunsetAtSec: SUNSET_AT,
  links: [
    { rel: 'deprecation', uri: GUIDE },
    { rel: 'sunset', uri: GUIDE },
    { rel: 'successor-version', uri: 'https://api.relay.link/quote/v3' },
  ],
  ignored: [],
};

function setup(startMs: number) {
  const metrics = createMetrics();
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    new Writable({ write: (c: Buffer, _e, done) => (lines.push(JSON.parse(c.toString()) as Record<string, unknown>), done()) }),
  );
  let nowMs = startMs;
  const watch = createRelayDeprecationWatch({ metrics, logger, now: () => nowMs });
  const gauge = async (name: string, endpoint: string): Promise<number | undefined> => {
    const m = await metrics.registry.getSingleMetric(name)!.get();
    return m.values.find((v) => v.labels.endpoint === endpoint)?.value;
  };
  return { watch, lines, gauge, setNow: (ms: number) => (nowMs = ms) };
}

describe('createRelayDeprecationWatch', () => {
  it('sets the sunset gauge and deprecated = 1 once the Deprecation date has passed, with one warning naming successor and dates', async () => {
    const { watch, lines, gauge } = setup(Date.UTC(2026, 11, 1, 10));
    watch(QUOTE_V2);
    expect(await gauge('ballast_relay_endpoint_sunset_timestamp_seconds', 'POST /quote/v2')).toBe(SUNSET_AT);
    expect(await gauge('ballast_relay_endpoint_deprecated', 'POST /quote/v2')).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      endpoint: 'POST /quote/v2',
      deprecatedAt: '2026-11-25T00:00:00.000Z',
      sunsetAt: '2027-02-23T00:00:00.000Z',
      daysToSunset: 83,
      successor: 'https://api.relay.link/quote/v3',
      migrationGuide: GUIDE,
    });
    expect(lines[0]!.msg).toBe(
      `Relay endpoint POST /quote/v2 is deprecated since 2026-11-25 and stops answering on 2027-02-23 (Sunset); its successor is https://api.relay.link/quote/v3: Ballast must move to it before 2027-02-23 (this version speaks POST /quote/v3: run \`ballast api-check\`, then set \`relay.quoteApi: v3\`; migration guide ${GUIDE})`,
    );
    expect(String(lines[0]!.msg)).not.toContain('upgrade Ballast');
  });

  it('says no setting moves off an endpoint this version has no successor for', () => {
    const { watch, lines } = setup(Date.UTC(2026, 11, 1, 10));
    watch({ ...QUOTE_V2, endpoint: 'GET /chains' });
    expect(String(lines[0]!.msg)).toContain('(no setting of this version moves off it: a later Ballast release has to; migration guide');
    expect(String(lines[0]!.msg)).not.toContain('relay.quoteApi');
  });

  it('deprecated = 0 while the Deprecation date lies ahead', async () => {
    const { watch, gauge, lines } = setup(Date.UTC(2026, 10, 24, 23, 59, 59));
    watch(QUOTE_V2);
    expect(await gauge('ballast_relay_endpoint_deprecated', 'POST /quote/v2')).toBe(0);
    expect(String(lines[0]!.msg)).toContain('will be deprecated on 2026-11-25');
  });

  it('deprecated = 1 exactly at the Deprecation date', async () => {
    const { watch, gauge } = setup(DEPRECATED_AT * 1000);
    watch(QUOTE_V2);
    expect(await gauge('ballast_relay_endpoint_deprecated', 'POST /quote/v2')).toBe(1);
  });

  it('warns once per endpoint per UTC day, and again the next day; gauges follow every notice', async () => {
    const { watch, lines, gauge, setNow } = setup(Date.UTC(2026, 11, 1, 0, 0, 1));
    watch(QUOTE_V2);
    watch(QUOTE_V2);
    watch({ ...QUOTE_V2, endpoint: 'GET /chains' });
    setNow(Date.UTC(2026, 11, 1, 23, 59, 59));
    watch({ ...QUOTE_V2, sunsetAtSec: SUNSET_AT + 86_400 });
    expect(lines.map((l) => l.endpoint)).toEqual(['POST /quote/v2', 'GET /chains']);
    expect(await gauge('ballast_relay_endpoint_sunset_timestamp_seconds', 'POST /quote/v2')).toBe(SUNSET_AT + 86_400);
    setNow(Date.UTC(2026, 11, 2, 0, 0, 0));
    watch(QUOTE_V2);
    expect(lines.map((l) => l.endpoint)).toEqual(['POST /quote/v2', 'GET /chains', 'POST /quote/v2']);
  });

  it('removes the sunset series when a notice has no Sunset, keeps it when the Sunset header was malformed', async () => {
    const { watch, gauge, lines } = setup(Date.UTC(2026, 11, 1));
    watch(QUOTE_V2);
    watch({ ...QUOTE_V2, sunsetAtSec: undefined, ignored: [{ header: 'Sunset', value: 'soon', reason: 'is not an IMF-fixdate' }] });
    expect(await gauge('ballast_relay_endpoint_sunset_timestamp_seconds', 'POST /quote/v2')).toBe(SUNSET_AT);
    const { sunsetAtSec: _dropped, ...withoutSunset } = QUOTE_V2;
    watch(withoutSunset);
    expect(await gauge('ballast_relay_endpoint_sunset_timestamp_seconds', 'POST /quote/v2')).toBeUndefined();
    expect(lines).toHaveLength(1);
  });

  it('names malformed headers in the warning, and keeps the deprecated gauge at its last value', async () => {
    const { watch, lines, gauge } = setup(Date.UTC(2026, 11, 1));
    watch({ ...QUOTE_V2, endpoint: 'GET /chains' });
    watch({ endpoint: 'POST /quote/v2', links: [], ignored: [{ header: 'Deprecation', value: 'true', reason: 'is not a Date' }] });
    expect(await gauge('ballast_relay_endpoint_deprecated', 'POST /quote/v2')).toBeUndefined();
    watch({ endpoint: 'GET /chains', links: [], ignored: [{ header: 'Deprecation', value: 'true', reason: 'is not a Date' }] });
    expect(await gauge('ballast_relay_endpoint_deprecated', 'GET /chains')).toBe(1);
    watch({ endpoint: 'GET /chains', links: [], ignored: [] });
    expect(await gauge('ballast_relay_endpoint_deprecated', 'GET /chains')).toBe(0);
    lines.shift(); // the first GET /chains warning
    expect(lines[0]).toMatchObject({ ignoredHeaders: [{ header: 'Deprecation', value: 'true', reason: 'is not a Date' }] });
    expect(String(lines[0]!.msg)).toContain('announces its retirement; Ballast must move off it');
    expect(String(lines[0]!.msg)).toContain('malformed headers ignored: Deprecation is not a Date');
  });
});
