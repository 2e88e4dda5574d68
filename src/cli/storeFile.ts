/**
 * Opening the store a command (`history`, `report`, `limits`, `resume`) names with `--db`: the file must exist. A
 * mistyped path is a usage error naming the flag and the path, and no empty database is created in its place (an
 * empty store would show no history, no spending and no transfer to resume, as if that were the truth).
 */
import { existsSync, statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { openDatabase } from '../store/database.ts';
import { CliError, EXIT_USAGE } from './exitCodes.ts';
import { isPostgresUrl, redactStoreUrl } from '../config/storeUrl.ts';

/**
 * Opens the store at `file` (`--db` when given, else the config's `store`), requiring the file to exist when it
 * came from `--db`.
 *
 * @param source `--db` or `store` (the config key), named in the error
 * @throws CliError (exit 2) when `--db` names a file that does not exist or is not a regular file, or when either
 *   names a PostgreSQL URL (these commands read SQLite only so far)
 */
export function openExistingStore(file: string, source: '--db' | 'store'): Database.Database {
  if (isPostgresUrl(file)) {
    throw new CliError(`${source} ${redactStoreUrl(file)}: this command reads a SQLite store only so far; give the SQLite file (ballast store copy moves a history to PostgreSQL)`, EXIT_USAGE);
  }
  if (source === '--db' && (!existsSync(file) || !statSync(file).isFile())) {
    throw new CliError(`--db ${file}: no such database file (check the path; nothing was created)`, EXIT_USAGE);
  }
  return openDatabase(file);
}
