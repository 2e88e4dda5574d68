/**
 * CSV traffic (src/sim/csvTraffic.ts): a good file in either time form, and each error naming its line, column and
 * fix.
 */
import { describe, expect, it } from 'vitest';
import { parseCsvTraffic } from '../../../packages/ballast/src/sim/csvTraffic.ts';

const parse = (text: string, decimals = 6) => parseCsvTraffic(text, 'past.csv', decimals);

describe('parseCsvTraffic', () => {
  it('reads ISO-8601 rows in any order, sorted, times from the earliest row, default ids by line', () => {
    const rows = parse(
      [
        'time,chain,kind,amount,id',
        '2026-10-01T09:30:00Z,base,payment,1250.50,rent',
        '2026-10-01T09:00:00Z,arbitrum,receipt,300,',
        '',
        '2026-10-01T09:00:01.5Z,base,payment,7,bonus',
      ].join('\r\n'),
    );
    expect(rows).toEqual([
      { line: 3, atMs: 0, chain: 'arbitrum', kind: 'receipt', amount: '300', id: 'receipt-3' },
      { line: 5, atMs: 1500, chain: 'base', kind: 'payment', amount: '7', id: 'bonus' },
      { line: 2, atMs: 1_800_000, chain: 'base', kind: 'payment', amount: '1250.50', id: 'rent' },
    ]);
  });

  it('reads whole ms from the start without an id column, keeping file order for equal times', () => {
    const rows = parse('\uFEFFtime,chain,kind,amount\n5000,base,payment,1\n2000,base,receipt,2\n5000,op,payment,3\n');
    expect(rows.map((r) => [r.atMs, r.chain, r.id])).toEqual([
      [0, 'base', 'receipt-3'],
      [3000, 'base', 'payment-2'],
      [3000, 'op', 'payment-4'],
    ]);
  });

  const cases: [string, string, RegExp][] = [
    ['a wrong header', 'when,chain,kind,amount\n0,base,payment,1', /^past\.csv: line 1: expected the header "time,chain,kind,amount"/],
    ['no rows', 'time,chain,kind,amount\n\n', /^past\.csv: line 1: no rows after the header/],
    ['a quoted field', 'time,chain,kind,amount\n0,base,payment,"1,000"', /^past\.csv: line 2: quoted fields are not supported/],
    ['a missing value', 'time,chain,kind,amount\n0,base,payment,1\n1,base,payment', /^past\.csv: line 3: expected 4 values .*found 3/],
    ['a time in neither form', 'time,chain,kind,amount\n2026-10-01 09:00,base,payment,1', /^past\.csv: line 2, column time: .*ending in Z/],
    ['a time with an offset', 'time,chain,kind,amount\n2026-10-01T09:00:00+02:00,base,payment,1', /^past\.csv: line 2, column time:/],
    [
      'mixed time forms',
      'time,chain,kind,amount\n2026-10-01T09:00:00Z,base,payment,1\n\n1000,base,payment,1',
      /^past\.csv: line 4, column time: "1000" mixes ms offsets into a file whose line 2 uses ISO-8601 times/,
    ],
    ['a bad chain name', 'time,chain,kind,amount\n0,,payment,1', /^past\.csv: line 2, column chain:/],
    ['an unknown kind', 'time,chain,kind,amount\n0,base,refund,1', /^past\.csv: line 2, column kind: "refund" .*payment .* or receipt/],
    ['a comma decimal', 'time,chain,kind,amount\n0,base,payment,12;5', /^past\.csv: line 2, column amount: "12;5" .*1250\.50/],
    ['a negative amount', 'time,chain,kind,amount\n0,base,payment,-5', /^past\.csv: line 2, column amount:/],
    [
      'too many decimals',
      'time,chain,kind,amount\n0,base,payment,1.1234567',
      /^past\.csv: line 2, column amount: .*7 decimals but the token has 6/,
    ],
    ['a zero amount', 'time,chain,kind,amount\n0,base,payment,0.00', /^past\.csv: line 2, column amount: "0\.00" is zero/],
    [
      'a duplicate id',
      'time,chain,kind,amount,id\n0,base,payment,1,a\n1,base,payment,1,a',
      /^past\.csv: line 3, column id: "a" is already the id of line 2/,
    ],
  ];
  it.each(cases)('refuses %s, naming the line', (_what, text, message) => {
    expect(() => parse(text)).toThrow(message);
  });
});
