/**
 * Opening the store a command (`history`, `report`, `limits`, `resume`) names with `--db`: the file must exist. A
 * mistyped path is a usage error naming the flag and the path, and no empty database is created in its place (an
 * empty store would show no history, no spending and no transfer to resume, as if that were the truth).
 */
import { existsSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import type { LoadedConfig } from '../config/loadConfig.ts';
import { loadCliConfig, type GlobalFlags } from './session.ts';
import { isPostgresUrl } from '../config/storeUrl.ts';
import type { StoreDb } from '../store/db.ts';
import { openPgStore, openSqliteStore } from '../store/openStore.ts';
import { CliError, EXIT_USAGE } from './exitCodes.ts';

/**
 * Opens the store at `file` (`--db` when given, else the config's `store`), requiring a SQLite file to exist when
 * it came from `--db`. A PostgreSQL URL opens that database (migrated first, like every command that opens it).
 * The caller closes it (`await db.close()`).
 *
 * @param source `--db` or `store` (the config key), named in the error
 * @throws CliError (exit 2) when `--db` names a file that does not exist or is not a regular file; StoreOpenError
 *   (`STORE_UNAVAILABLE`, exit 1) when a PostgreSQL server cannot be reached (its URL shown without the password)
 */
export async function openExistingStore(file: string, source: '--db' | 'store'): Promise<StoreDb> {
  if (isPostgresUrl(file)) return openPgStore(file);
  if (source === '--db' && (!existsSync(file) || !statSync(file).isFile())) {
    throw new CliError(`--db ${file}: no such database file (check the path; nothing was created)`, EXIT_USAGE);
  }
  return openSqliteStore(file);
}

/**
 * Runs `run` with the command's config (`--config`) and the store it names, closing the store afterwards.
 *
 * @throws what loading the config, opening the store or `run` throws
 */
export async function withStore(cmd: Command, run: (db: StoreDb, config: LoadedConfig) => Promise<void>): Promise<void> {
  const config = loadCliConfig(cmd.optsWithGlobals<GlobalFlags>());
  const db = await openExistingStore(config.store, 'store');
  try {
    await run(db, config);
  } finally {
    await db.close();
  }
}
