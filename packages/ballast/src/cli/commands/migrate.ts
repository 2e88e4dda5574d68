/**
 * `ballast migrate [--store <path|postgres URL>]`: applies the pending schema migrations to the store named by
 * `--store`, else by the config's `store:`, and prints the schema version before and after.
 *
 * - SQLite (a path): what opening the store does anyway (src/store/database.ts): every pending migration in
 *   one transaction; a missing file is created.
 * - PostgreSQL (`postgres://` or `postgresql://`): src/store/pg/migrate.ts, one transaction per migration,
 *   concurrent runs serialised by an advisory lock.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { ConfigError, loadConfig } from '../../config/loadConfig.ts';
import { isPostgresUrl, redactStoreUrl } from '../../config/storeUrl.ts';
import { openDatabase, openDatabaseReadOnly, schemaVersion } from '../../store/database.ts';
import { LATEST_SCHEMA_VERSION } from '../../store/migrations.ts';
import { connectPostgres } from '../../store/pg/connect.ts';
import { migratePostgres } from '../../store/pg/migrate.ts';
import { CliError, EXIT_USAGE } from '../exitCodes.ts';
import { toJson } from '../format.ts';
import type { GlobalFlags } from '../session.ts';

/** What `ballast migrate` reports (`--json`). */
export interface MigrateReport {
  engine: 'sqlite' | 'postgres';
  /** Path of the SQLite file, or the URL without its password. */
  store: string;
  before: number;
  after: number;
  latest: number;
}

/** Registers the command. */
export function registerMigrate(program: Command, out: (s: string) => void): void {
  program
    .command('migrate')
    .description('apply pending schema migrations to the store (SQLite file or PostgreSQL database) and print the version before and after')
    .option('--store <path|url>', "SQLite file or postgres:// URL to migrate instead of the config's store:")
    .option('--json', 'machine-readable output')
    .action(async (flags: { store?: string; json?: boolean }, cmd: Command) => {
      const store = flags.store ?? configuredStore(cmd.optsWithGlobals<GlobalFlags>());
      const report = isPostgresUrl(store) ? await migratePg(store) : migrateSqlite(flags.store === undefined ? store : path.resolve(store));
      if (flags.json) {
        out(toJson(report));
        return;
      }
      const applied = report.after - report.before;
      out(
        applied === 0
          ? `${report.engine} store ${report.store}: schema version ${report.after}, up to date`
          : `${report.engine} store ${report.store}: schema version ${report.before} → ${report.after} (${applied} migration(s) applied)`,
      );
    });
}

/** The config's `store:` (a URL allowed), the config named by `--config`, BALLAST_CONFIG or ./ballast.yaml. */
function configuredStore(flags: GlobalFlags): string {
  const file = flags.config ?? process.env.BALLAST_CONFIG ?? './ballast.yaml';
  try {
    return loadConfig(file, process.env).store;
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message, EXIT_USAGE, { cause: error });
    throw error;
  }
}

async function migratePg(url: string): Promise<MigrateReport> {
  const label = redactStoreUrl(url);
  const client = await connectPostgres(url);
  try {
    const { before, after } = await migratePostgres(client, label);
    return { engine: 'postgres', store: label, before, after, latest: LATEST_SCHEMA_VERSION };
  } finally {
    await client.end();
  }
}

function migrateSqlite(file: string): MigrateReport {
  let before = 0;
  if (existsSync(file)) {
    const ro = openDatabaseReadOnly(file);
    try {
      before = schemaVersion(ro);
    } finally {
      ro.close();
    }
  }
  const db = openDatabase(file);
  try {
    return { engine: 'sqlite', store: file, before, after: schemaVersion(db), latest: LATEST_SCHEMA_VERSION };
  } finally {
    db.close();
  }
}
