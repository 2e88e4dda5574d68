/**
 * Past payments as CSV (docs/simulate.md "Replaying your own traffic"): a header `time,chain,kind,amount[,id]`,
 * then one row per payment out of a holding or receipt into it. `time` is an ISO-8601 UTC time
 * (`2026-10-01T09:30:00Z`) or whole ms from the start, one form per file; rows may come in any order and are sorted;
 * times count from the earliest row. `amount` is a whole-unit decimal string (`1250.50`). Fields are plain: no
 * quotes, so no commas inside a value. {@link parseCsvTraffic} is pure; {@link readCsvTraffic} reads a file.
 */
import { readFileSync } from 'node:fs';

/** One row, validated: times ms after the earliest row, the amount a whole-unit decimal string. */
export interface CsvFlow {
  /** Line of the file it came from (1 = the header). */
  line: number;
  atMs: number;
  chain: string;
  kind: 'payment' | 'receipt';
  amount: string;
  id: string;
}

/** A CSV traffic file that cannot be read; the message names the file, line and column, and the fix. */
export class CsvTrafficError extends Error {
  override name = 'CsvTrafficError';
}

const HEADER = ['time', 'chain', 'kind', 'amount'] as const;
const ISO_UTC_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?Z$/;
const MS_RE = /^\d+$/;
const AMOUNT_RE = /^\d+(\.\d+)?$/;
const NAME_RE = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/**
 * Parses CSV traffic.
 *
 * @param text the file's content (UTF-8; a byte-order mark and CRLF line ends are accepted; blank lines skipped)
 * @param file the name used in error messages
 * @param decimals the token's decimals: an amount with more fraction digits is refused
 * @returns the rows sorted by time (ties keep file order), times relative to the earliest row
 * @throws CsvTrafficError one line: `<file>: line N, column C: <problem>; <fix>`
 */
export function parseCsvTraffic(text: string, file: string, decimals: number): CsvFlow[] {
  const fail = (line: number, column: string | null, message: string): never => {
    throw new CsvTrafficError(`${file}: line ${line}${column ? `, column ${column}` : ''}: ${message}`);
  };
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const header = (lines[0] ?? '').split(',').map((h) => h.trim());
  const withId = header.length === 5 && header[4] === 'id';
  if (!HEADER.every((h, i) => header[i] === h) || !(header.length === 4 || withId)) {
    fail(1, null, `expected the header "time,chain,kind,amount" or "time,chain,kind,amount,id", found "${lines[0] ?? ''}"`);
  }
  const columns = withId ? 5 : 4;
  const raw: { line: number; time: number; iso: boolean; chain: string; kind: 'payment' | 'receipt'; amount: string; id: string }[] = [];
  const ids = new Map<string, number>();
  for (let i = 1; i < lines.length; i += 1) {
    const line = i + 1;
    const row = lines[i]!; // i < lines.length
    if (row.trim() === '') continue;
    if (row.includes('"'))
      fail(line, null, 'quoted fields are not supported; write each value without quotes (amounts without thousands separators)');
    const cells = row.split(',').map((c) => c.trim());
    if (cells.length !== columns) {
      fail(line, null, `expected ${columns} values (${header.join(',')}), found ${cells.length}; amounts take no thousands separators`);
    }
    const [time, chain, kind, amount, id] = cells as [string, string, string, string, string | undefined];
    let at: number;
    const iso = ISO_UTC_RE.test(time);
    if (iso) at = Date.parse(time);
    else if (MS_RE.test(time)) at = Number(time);
    else at = NaN;
    if (!Number.isSafeInteger(at)) {
      fail(
        line,
        'time',
        `"${time}" is neither an ISO-8601 UTC time (e.g. 2026-10-01T09:30:00Z, ending in Z) nor whole ms from the start (e.g. 90000)`,
      );
    }
    const first = raw[0];
    if (first && first.iso !== iso) {
      fail(
        line,
        'time',
        `"${time}" mixes ${iso ? 'ISO-8601 times' : 'ms offsets'} into a file whose line ${first.line} uses ${first.iso ? 'ISO-8601 times' : 'ms offsets'}; use one form throughout`,
      );
    }
    if (!NAME_RE.test(chain))
      fail(line, 'chain', `"${chain}" is not a chain name; write the chain's name as under chains: in the config (e.g. base)`);
    if (kind !== 'payment' && kind !== 'receipt')
      fail(line, 'kind', `"${kind}" is not a kind; write payment (out of the holding) or receipt (into it)`);
    if (!AMOUNT_RE.test(amount))
      fail(line, 'amount', `"${amount}" is not a whole-unit decimal; write it like 1250.50 (a dot, no sign, no separators)`);
    const fraction = amount.split('.')[1] ?? '';
    if (fraction.length > decimals)
      fail(line, 'amount', `"${amount}" has ${fraction.length} decimals but the token has ${decimals}; round it to ${decimals}`);
    if (/^[0.]+$/.test(amount)) fail(line, 'amount', `"${amount}" is zero; remove the row or give the amount moved`);
    const rowId = id === undefined || id === '' ? `${kind}-${line}` : id;
    const seen = ids.get(rowId);
    if (seen !== undefined) fail(line, 'id', `"${rowId}" is already the id of line ${seen}; give each row its own id or leave it empty`);
    ids.set(rowId, line);
    raw.push({ line, time: at, iso, chain, kind: kind as 'payment' | 'receipt', amount, id: rowId });
  }
  if (raw.length === 0) fail(1, null, 'no rows after the header; add one row per payment or receipt');
  const start = raw.reduce((m, r) => Math.min(m, r.time), Infinity);
  return raw
    .map((r) => ({ line: r.line, atMs: r.time - start, chain: r.chain, kind: r.kind, amount: r.amount, id: r.id }))
    .sort((a, b) => a.atMs - b.atMs || a.line - b.line);
}

/**
 * Reads a CSV traffic file.
 *
 * @throws CsvTrafficError when the file cannot be read or is invalid (as {@link parseCsvTraffic})
 */
export function readCsvTraffic(file: string, decimals: number): CsvFlow[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CsvTrafficError(`${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? 'error'}); check the path`, {
      cause: error,
    });
  }
  return parseCsvTraffic(text, file, decimals);
}
