/** `--since` of `ballast report`: durations back from now and ISO dates (UTC unless an offset is given). */
import { describe, expect, it } from 'vitest';
import { parseSince } from '../../../packages/ballast/src/ledger/parseSince.ts';

const NOW = Date.parse('2026-11-24T12:00:00Z');

describe('parseSince', () => {
  it('reads durations in minutes, hours and days', () => {
    expect(parseSince('30m', NOW)).toBe(NOW - 30 * 60_000);
    expect(parseSince('24h', NOW)).toBe(NOW - 24 * 3_600_000);
    expect(parseSince('7d', NOW)).toBe(NOW - 7 * 86_400_000);
  });

  it('reads ISO dates and date-times', () => {
    expect(parseSince('2026-11-01', NOW)).toBe(Date.parse('2026-11-01T00:00:00Z'));
    expect(parseSince('2026-11-01T06:30', NOW)).toBe(Date.parse('2026-11-01T06:30:00Z'));
    expect(parseSince('2026-11-01T06:30:15+02:00', NOW)).toBe(Date.parse('2026-11-01T04:30:15Z'));
  });

  it.each(['7', '7w', '0d', '-1d', '2026-02-30', '2026-13-01', '2026-11-01T25:00', 'yesterday', ''])(
    'refuses %j naming the flag and the formats',
    (bad) => {
      expect(() => parseSince(bad, NOW)).toThrow(
        /^--since: ".*" is not a duration such as 30m, 24h or 7d .* or an ISO date such as 2026-11-01/,
      );
    },
  );
});
