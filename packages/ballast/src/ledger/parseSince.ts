/**
 * Parses the `--since` value of `ballast report`: a duration back from now (`30m`, `24h`, `7d`) or an ISO 8601
 * date (`2026-11-01`, `2026-11-01T12:00:00Z`). Pure.
 */

const UNIT_MS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The accepted formats, for error messages. */
export const SINCE_FORMATS =
  'a duration such as 30m, 24h or 7d (minutes, hours, days), or an ISO date such as 2026-11-01 or 2026-11-01T12:00:00Z';

/**
 * @param value the flag's text
 * @param nowMs the current time, ms since the epoch
 * @returns the start of the window, ms since the epoch
 * @throws RangeError naming `--since` and the accepted formats when `value` is neither
 */
export function parseSince(value: string, nowMs: number): number {
  const text = value.trim();
  const duration = /^([0-9]+)([mhd])$/.exec(text);
  if (duration) {
    const n = Number(duration[1]);
    if (n > 0 && Number.isSafeInteger(n)) return nowMs - n * UNIT_MS[duration[2]!]!; // the regex allows only m, h, d
  }
  const iso = /^([0-9]{4})-([0-9]{2})-([0-9]{2})(?:[T ]([0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?)(Z|[+-][0-9]{2}:[0-9]{2})?)?$/.exec(
    text,
  );
  if (iso && validDay(Number(iso[1]), Number(iso[2]), Number(iso[3]))) {
    // A bare date or a time without an offset is read as UTC, so the window does not depend on the host's zone.
    const ms = Date.parse(`${iso[1]}-${iso[2]}-${iso[3]}T${iso[4] ?? '00:00'}${iso[5] ?? 'Z'}`);
    if (Number.isFinite(ms)) return ms;
  }
  throw new RangeError(`--since: "${value}" is not ${SINCE_FORMATS}`);
}

function validDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate(); // day 0 of the next month: the month's last day
}
