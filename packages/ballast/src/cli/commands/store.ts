/**
 * `ballast store copy --from <sqlite file> --to <postgres URL>`: moves an existing SQLite history into an
 * empty, migrated PostgreSQL database (src/store/copy/copyStore.ts) and prints, per table, the row counts, the
 * highest ids and the sums of the base-unit amount columns on both sides. Any difference rolls the copy back
 * (exit 1). A target that already holds rows is refused: merging two histories would collide on ids, and
 * emptying a database is left to the operator (drop and create it, then `ballast migrate`).
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { isPostgresUrl, redactStoreUrl } from '../../config/storeUrl.ts';
import { openDatabaseReadOnly } from '../../store/database.ts';
import { copyStore, type CopyStoreResult } from '../../store/copy/copyStore.ts';
import type { TableComparison } from '../../store/copy/compare.ts';
import { connectPostgres } from '../../store/pg/connect.ts';
import { CliError, EXIT_USAGE } from '../exitCodes.ts';
import { table, toJson } from '../format.ts';

/** Registers `store` and its subcommand `copy`. */
export function registerStore(program: Command, out: (s: string) => void): void {
  const store = program.command('store').description('operations on a whole store (copy a SQLite history into PostgreSQL)');
  store
    .command('copy')
    .description(
      'copy every table of a SQLite store into an empty, migrated PostgreSQL database, in one transaction, verified by row counts, max ids and amount sums',
    )
    .requiredOption('--from <file>', 'existing SQLite store (opened read-only)')
    .requiredOption('--to <url>', 'postgres:// URL of an empty database migrated with `ballast migrate --store <url>`')
    .option('--json', 'machine-readable output (the per-table comparison)')
    .action(async (flags: { from: string; to: string; json?: boolean }) => {
      if (!isPostgresUrl(flags.to))
        throw new CliError(`--to ${flags.to}: not a PostgreSQL URL; give postgres://user[:password]@host[:port]/database`, EXIT_USAGE);
      const from = path.resolve(flags.from);
      if (!existsSync(from) || !statSync(from).isFile())
        throw new CliError(`--from ${flags.from}: no such SQLite store file (check the path; nothing was copied)`, EXIT_USAGE);
      const source = openDatabaseReadOnly(from);
      try {
        const target = await connectPostgres(flags.to);
        try {
          const result = await copyStore({ source, target, sourceLabel: from, targetLabel: redactStoreUrl(flags.to) });
          out(flags.json ? toJson(result) : render(result, from, redactStoreUrl(flags.to)));
        } finally {
          await target.end();
        }
      } finally {
        source.close();
      }
    });
}

function render(result: CopyStoreResult, from: string, to: string): string {
  const rows = result.tables.map((t) => [
    t.table,
    `${t.source.rows} / ${t.target.rows}`,
    `${t.source.maxKey ?? '—'} / ${t.target.maxKey ?? '—'}`,
    sums(t),
    t.differences.length === 0 ? 'ok' : t.differences.join(', '),
  ]);
  return [
    `copied ${from} → ${to} (schema version ${result.schemaVersion}); source / target:`,
    table(['table', 'rows', 'max id', 'amount sums (base units)', 'check'], rows),
  ].join('\n');
}

function sums(t: TableComparison): string {
  return (
    Object.keys(t.source.sums)
      .map((c) => `${c} ${t.source.sums[c]} / ${t.target.sums[c]}`)
      .join('\n') || '—'
  );
}
