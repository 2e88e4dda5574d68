/**
 * Lays export rows out in one of the formats (src/accounting/formats/) and writes them as CSV with csv-stringify
 * (RFC 4180 quoting: a cell holding a comma, quote or line break is quoted). Pure; no I/O.
 */
import { stringify } from 'csv-stringify/sync';
import type { AccountingRow } from './exportRows.ts';
import { BALLAST_CSV_HEADER, ballastCsvRecords } from './formats/ballastCsv.ts';
import { BITWAVE_HEADER, bitwaveRecords } from './formats/bitwave.ts';
import { CRYPTIO_HEADER, cryptioRecords } from './formats/cryptio.ts';
import { KOINLY_HEADER, koinlyRecords } from './formats/koinly.ts';

/** The formats of `ballast export --format`. */
export const EXPORT_FORMATS = ['cryptio', 'bitwave', 'koinly', 'csv'] as const;
/** One of {@link EXPORT_FORMATS}. */
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const LAYOUTS: Readonly<Record<ExportFormat, { header: readonly string[]; records: (rows: readonly AccountingRow[]) => string[][] }>> = {
  cryptio: { header: CRYPTIO_HEADER, records: cryptioRecords },
  bitwave: { header: BITWAVE_HEADER, records: bitwaveRecords },
  koinly: { header: KOINLY_HEADER, records: koinlyRecords },
  csv: { header: BALLAST_CSV_HEADER, records: ballastCsvRecords },
};

/** Whether `name` is one of {@link EXPORT_FORMATS}. */
export function isExportFormat(name: string): name is ExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(name);
}

/**
 * @returns the CSV text: the format's header line, then one line per row (CRLF-free, `\n` line ends)
 */
export function renderExport(format: ExportFormat, rows: readonly AccountingRow[]): string {
  const layout = LAYOUTS[format];
  return stringify([[...layout.header], ...layout.records(rows)]);
}
