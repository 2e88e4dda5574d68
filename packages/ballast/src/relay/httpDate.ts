/**
 * Strict parser of the IMF-fixdate form of an HTTP-date (RFC 9110 §5.6.7), e.g. `Tue, 23 Feb 2027 00:00:00 GMT`,
 * the form the `Sunset` header carries (RFC 8594 §3). Pure.
 */

const DAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

/** `day-name "," SP date1 SP time-of-day SP GMT` with `date1 = day SP month SP year` (RFC 9110 §5.6.7). */
const IMF_FIXDATE_RE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), ([0-9]{2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) ([0-9]{4}) ([0-9]{2}):([0-9]{2}):([0-9]{2}) GMT$/;

/** Result of {@link parseImfFixdate}: unix seconds, or why the text is not an IMF-fixdate. */
export type ImfFixdateResult = { ok: true; unixSec: number } | { ok: false; reason: string };

/**
 * Parses an IMF-fixdate into unix seconds. Strict: the exact case-sensitive grammar of RFC 9110 §5.6.7, a calendar
 * date that exists, hours 00–23, minutes and seconds 00–59 (a leap second `60` is refused: a sunset date never
 * needs one), and a day name that matches the date. The two obsolete forms (rfc850-date, asctime-date) are not
 * accepted: RFC 9110 requires senders to generate IMF-fixdate, and RFC 8594 dates are generated, not relayed.
 *
 * @param text the field value, surrounding whitespace allowed
 * @returns `{ok: true, unixSec}` or `{ok: false, reason}` naming what is wrong; never throws
 */
export function parseImfFixdate(text: string): ImfFixdateResult {
  const m = IMF_FIXDATE_RE.exec(text.trim());
  if (m === null) return { ok: false, reason: 'is not an IMF-fixdate such as "Tue, 23 Feb 2027 00:00:00 GMT" (RFC 9110 §5.6.7)' };
  const [, dayName, dd, mon, yyyy, hh, mi, ss] = m as unknown as [string, string, string, string, string, string, string, string]; // 7 groups, all mandatory in the pattern
  const day = Number(dd);
  const month = MONTHS.indexOf(mon as (typeof MONTHS)[number]); // the pattern admits only these names
  const year = Number(yyyy);
  const [hour, minute, second] = [Number(hh), Number(mi), Number(ss)];
  if (year < 1970) return { ok: false, reason: `is before 1970 (${yyyy})` };
  if (hour > 23 || minute > 59 || second > 59) return { ok: false, reason: `has an impossible time of day ${hh}:${mi}:${ss}` };
  const ms = Date.UTC(year, month, day, hour, minute, second);
  const d = new Date(ms);
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month || d.getUTCDate() !== day) {
    return { ok: false, reason: `names a day that does not exist (${dd} ${mon} ${yyyy})` };
  }
  const actualDay = DAY_NAMES[d.getUTCDay()];
  if (actualDay !== dayName) return { ok: false, reason: `says ${dayName} but ${dd} ${mon} ${yyyy} is a ${actualDay}` };
  return { ok: true, unixSec: ms / 1000 };
}
