/**
 * The deprecation header parser (src/relay/deprecation.ts): RFC 9745 `Deprecation`, RFC 8594 `Sunset`, RFC 8288
 * `Link`, as Relay sends them on retiring endpoints; malformed headers are ignored with a reason, never thrown.
 */
import { describe, expect, it } from 'vitest';
import { parseDeprecationDate, readDeprecationNotice } from '../../../packages/ballast/src/relay/deprecation.ts';
import { parseImfFixdate } from '../../../packages/ballast/src/relay/httpDate.ts';

const GUIDE = 'https://docs.relay.link/references/api/api_guides/migrating-to-quote-v3';
/** 2026-11-25T00:00:00Z and 2027-02-23T00:00:00Z (https://docs.relay.link/references/api/api_guides/migrating-to-quote-v3). */
const DEPRECATED_AT = Date.UTC(2026, 10, 25) / 1000;
const SUNSET_AT = Date.UTC(2027, 1, 23) / 1000;

const read = (h: Record<string, string>, requestUrl?: string) => readDeprecationNotice('POST /quote/v2', new Headers(h), requestUrl);

describe('readDeprecationNotice', () => {
  it('reads the documented /quote/v2 headers: dates in unix seconds and the three link targets', () => {
    const notice = read(
      {
        Deprecation: '@1795564800',
        Sunset: 'Tue, 23 Feb 2027 00:00:00 GMT',
        Link: `<${GUIDE}>; rel="deprecation"; type="text/html", <${GUIDE}>; rel="sunset", <https://api.relay.link/quote/v3>; rel="successor-version"`,
      },
      'https://api.relay.link/quote/v2',
    );
    expect(DEPRECATED_AT).toBe(1795564800);
    expect(notice).toEqual({
      endpoint: 'POST /quote/v2',
      deprecatedAtSec: DEPRECATED_AT,
      sunsetAtSec: SUNSET_AT,
      links: [
        { rel: 'deprecation', uri: GUIDE, type: 'text/html' },
        { rel: 'sunset', uri: GUIDE },
        { rel: 'successor-version', uri: 'https://api.relay.link/quote/v3' },
      ],
      ignored: [],
    });
    expect(notice!.sunsetAtSec).toBe(1803340800);
  });

  it('returns null when a response carries none of the headers, or only unrelated links', () => {
    expect(read({})).toBeNull();
    expect(read({ Link: '<https://api.relay.link/requests/v3?continuation=abc>; rel="next"' })).toBeNull();
  });

  it('keeps only the deprecation relations, splits a multi-relation link, resolves relative targets', () => {
    const notice = read(
      {
        Link: '</docs/guide>; rel="deprecation sunset", <https://x.example/a>; rel="next", </quote/v3>; rel="Successor-Version"',
      },
      'http://127.0.0.1:4000/quote/v2',
    );
    expect(notice?.deprecatedAtSec).toBeUndefined();
    expect(notice?.sunsetAtSec).toBeUndefined();
    expect(notice?.links).toEqual([
      { rel: 'deprecation', uri: 'http://127.0.0.1:4000/docs/guide' },
      { rel: 'sunset', uri: 'http://127.0.0.1:4000/docs/guide' },
      { rel: 'successor-version', uri: 'http://127.0.0.1:4000/quote/v3' },
    ]);
  });

  it('reads a Deprecation date in the future, and a Sunset alone', () => {
    expect(read({ Deprecation: '@4102444800' })).toMatchObject({ deprecatedAtSec: 4102444800, links: [], ignored: [] });
    expect(read({ Sunset: 'Tue, 24 Nov 2026 00:00:00 GMT' })).toEqual({
      endpoint: 'POST /quote/v2',
      sunsetAtSec: Date.UTC(2026, 10, 24) / 1000,
      links: [],
      ignored: [],
    });
  });

  it('ignores each malformed header with a reason naming it, and keeps the good ones', () => {
    const notice = read({
      Deprecation: 'true',
      Sunset: 'Tue, 23 Feb 2027 00:00:00 GMT',
      Link: `<${GUIDE}>; rel="deprecation"`,
    });
    expect(notice?.deprecatedAtSec).toBeUndefined();
    expect(notice?.sunsetAtSec).toBe(SUNSET_AT);
    expect(notice?.links).toEqual([{ rel: 'deprecation', uri: GUIDE }]);
    expect(notice?.ignored).toEqual([
      { header: 'Deprecation', value: 'true', reason: expect.stringContaining('not a Date "@<unix seconds>"') },
    ]);

    const bad = read({ Deprecation: '@17955x', Sunset: '2027-02-23', Link: '<https://x.example/a' });
    expect(bad?.ignored.map((i) => i.header)).toEqual(['Deprecation', 'Sunset', 'Link']);
    expect(bad?.ignored[1]!.reason).toContain('IMF-fixdate');
    expect(bad?.ignored[2]!.reason).toContain('RFC 8288');
    expect(bad?.deprecatedAtSec).toBeUndefined();
    expect(bad?.sunsetAtSec).toBeUndefined();
    expect(bad?.links).toEqual([]);
  });

  it('ignores link targets that are not http(s), relative without a request URL, or anchored elsewhere', () => {
    const notice = read({
      Link: '<javascript:alert(1)>; rel="successor-version", </quote/v3>; rel="successor-version", <https://a.example/x>; rel="sunset"; anchor="https://b.example/"',
    });
    expect(notice?.links).toEqual([]);
    expect(notice?.ignored.map((i) => i.reason)).toEqual([
      expect.stringContaining('javascript: instead of http(s)'),
      expect.stringContaining('not a URL'),
      expect.stringContaining('anchor'),
    ]);
  });

  it('cuts a long malformed value to 200 characters', () => {
    const notice = read({ Deprecation: `@${'9'.repeat(500)}` });
    expect(notice?.ignored[0]!.value).toHaveLength(200);
  });
});

describe('parseDeprecationDate', () => {
  it('accepts sf-dates only (RFC 9745 §2.1, RFC 9651 §3.3.7)', () => {
    expect(parseDeprecationDate('@1795564800')).toEqual({ ok: true, unixSec: 1795564800 });
    expect(parseDeprecationDate(' @0 ')).toEqual({ ok: true, unixSec: 0 });
    for (const bad of ['1795564800', '@', '@1.5', '@1795564800, @1', 'Wed, 25 Nov 2026 00:00:00 GMT', '?1', '@1795564800;x=1']) {
      expect(parseDeprecationDate(bad).ok, bad).toBe(false);
    }
  });
});

describe('parseImfFixdate (RFC 9110 §5.6.7)', () => {
  it('reads an IMF-fixdate to unix seconds', () => {
    expect(parseImfFixdate('Tue, 23 Feb 2027 00:00:00 GMT')).toEqual({ ok: true, unixSec: 1803340800 });
    expect(parseImfFixdate('Sun, 06 Nov 1994 08:49:37 GMT')).toEqual({ ok: true, unixSec: 784111777 });
    expect(parseImfFixdate('Tue, 29 Feb 2028 23:59:59 GMT')).toEqual({ ok: true, unixSec: Date.UTC(2028, 1, 29, 23, 59, 59) / 1000 });
  });

  it('refuses other forms, impossible dates and a wrong day name, saying why', () => {
    const cases: [string, string][] = [
      ['Sunday, 06-Nov-94 08:49:37 GMT', 'IMF-fixdate'], // rfc850-date (obsolete)
      ['Sun Nov  6 08:49:37 1994', 'IMF-fixdate'], // asctime-date (obsolete)
      ['tue, 23 Feb 2027 00:00:00 GMT', 'IMF-fixdate'],
      ['Tue, 23 Feb 2027 00:00:00 UTC', 'IMF-fixdate'],
      ['Tue, 23 Feb 2027 00:00:00 +0000', 'IMF-fixdate'],
      ['Tue, 3 Feb 2027 00:00:00 GMT', 'IMF-fixdate'],
      ['Mon, 29 Feb 2027 00:00:00 GMT', 'does not exist'],
      ['Tue, 23 Feb 2027 24:00:00 GMT', 'impossible time'],
      ['Tue, 23 Feb 2027 00:00:60 GMT', 'impossible time'],
      ['Mon, 23 Feb 2027 00:00:00 GMT', 'is a Tue'],
      ['Thu, 01 Jan 1953 00:00:00 GMT', 'before 1970'],
    ];
    for (const [text, why] of cases) {
      const r = parseImfFixdate(text);
      expect(r.ok, text).toBe(false);
      if (!r.ok) expect(r.reason, text).toContain(why);
    }
  });
});
