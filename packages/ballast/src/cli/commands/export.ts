/**
 * `ballast export --format cryptio|bitwave|koinly|csv [--since 30d] [--until …] [--wallet W] [--out FILE] [--check]
 * [--json] [--db PATH]`: the accounting rows of a period (src/accounting/, docs/accounting.md) in a vendor's import
 * template, and with `--check` the proof that they add up per wallet and asset to the ledger's change. Reads the
 * store, never the network.
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { buildExportRows } from '../../accounting/exportRows.ts';
import { reconcile } from '../../accounting/reconcile.ts';
import { EXPORT_FORMATS, isExportFormat, renderExport } from '../../accounting/renderExport.ts';
import { transferMovements, type WalletRef } from '../../accounting/transferMovements.ts';
import { parseSince, SINCE_FORMATS } from '../../ledger/parseSince.ts';
import { listTransferFacts } from '../../store/accountingReads.ts';
import { CliError, EXIT_ERROR, EXIT_USAGE } from '../exitCodes.ts';
import { toJson } from '../format.ts';
import { exportCheckText } from '../renderExportCheck.ts';
import { loadCliConfig, type GlobalFlags } from '../session.ts';
import { openExistingStore } from '../storeFile.ts';

interface ExportFlags {
  format: string;
  since: string;
  until?: string;
  wallet?: string;
  out?: string;
  check?: boolean;
  json?: boolean;
  db?: string;
}

/** Registers the command. */
export function registerExport(program: Command, out: (s: string) => void): void {
  program
    .command('export')
    .description(
      'accounting rows (payments, receipts, refunds, withdrawals, fees) in a vendor import template; --check reconciles them with the ledger',
    )
    .requiredOption('--format <name>', `${EXPORT_FORMATS.join(' | ')} (docs/accounting.md)`)
    .option('--since <when>', `period start: ${SINCE_FORMATS}`, '30d')
    .option('--until <when>', 'period end (exclusive), same forms as --since; default now')
    .option('--wallet <wallet>', 'only the rows of one wallet, as <chain>:<address> or <address> (one import file per wallet)')
    .option('--out <file>', 'write the CSV to this file instead of stdout')
    .option('--check', 'prove the rows add up per wallet and asset to the ledger (exit 1 when not); list what could not be priced')
    .option('--json', 'machine-readable summary (with the CSV when there is no --out)')
    .option('--db <file>', 'existing SQLite store to read instead of the one in the config')
    .action(async (flags: ExportFlags, cmd: Command) => {
      if (!isExportFormat(flags.format)) {
        throw new CliError(`--format: "${flags.format}" is not one of ${EXPORT_FORMATS.join(', ')}`, EXIT_USAGE);
      }
      const nowMs = Date.now();
      const sinceMs = when('--since', flags.since, nowMs);
      const untilMs = flags.until === undefined ? nowMs : when('--until', flags.until, nowMs);
      if (untilMs <= sinceMs) {
        throw new CliError(
          `--until (${new Date(untilMs).toISOString()}) must be after --since (${new Date(sinceMs).toISOString()})`,
          EXIT_USAGE,
        );
      }
      const wallet = flags.wallet === undefined ? null : parseWallet(flags.wallet);
      const db =
        flags.db === undefined
          ? await openExistingStore(loadCliConfig(cmd.optsWithGlobals<GlobalFlags>()).store, 'store')
          : await openExistingStore(flags.db, '--db');
      let facts;
      try {
        facts = await listTransferFacts(db, sinceMs, untilMs);
      } finally {
        await db.close();
      }
      const window = { sinceMs, untilMs };
      const transfers = facts.map(transferMovements);
      const rows = buildExportRows(transfers, window);
      const mine = wallet ? rows.filter((r) => sameWallet(r.wallet, wallet)) : rows;
      const csv = renderExport(flags.format, mine);
      if (flags.out !== undefined) writeFileSync(flags.out, csv);
      const rec = flags.check ? reconcile(transfers, rows, window) : null;
      if (rec && wallet) rec.lines = rec.lines.filter((l) => sameWallet(l.wallet, wallet));
      if (rec && !rec.ok) process.exitCode = EXIT_ERROR;
      if (flags.json) {
        out(
          toJson({
            format: flags.format,
            since: iso(sinceMs),
            until: iso(untilMs),
            wallet,
            rows: mine.length,
            out: flags.out ?? null,
            check: rec,
            ...(flags.out === undefined ? { csv } : {}),
          }),
        );
      } else if (rec) {
        out(exportCheckText(rec, window));
        if (flags.out !== undefined) out(`wrote ${mine.length} row(s) to ${flags.out} (${flags.format})`);
      } else if (flags.out !== undefined) {
        out(`wrote ${mine.length} row(s) to ${flags.out} (${flags.format})`);
      } else {
        out(csv.trimEnd());
      }
    });
}

function when(flag: string, value: string, nowMs: number): number {
  try {
    return parseSince(value, nowMs);
  } catch (error) {
    throw new CliError((error as Error).message.replace('--since', flag), EXIT_USAGE); // parseSince throws RangeError only
  }
}

/** `<chain>:<address>` or `<address>` (any chain). */
function parseWallet(text: string): { chain: string | null; address: string } {
  const i = text.indexOf(':');
  return i > 0 ? { chain: text.slice(0, i), address: text.slice(i + 1) } : { chain: null, address: text };
}

function sameWallet(w: WalletRef, want: { chain: string | null; address: string }): boolean {
  const norm = (a: string) => (a.startsWith('0x') ? a.toLowerCase() : a);
  return (want.chain === null || want.chain === w.chain) && norm(want.address) === norm(w.address);
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
