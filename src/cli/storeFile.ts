/**
 * Opening the store a read-side command (`history`, `report`) names with `--db`: the file must exist. A mistyped
 * path is a usage error naming the flag and the path, and no empty database is created in its place.
 */
import { existsSync, statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { openDatabase } from '../store/database.ts';
import { CliError, EXIT_USAGE } from './exitCodes.ts';

/**
 * Opens the store at `file` (`--db` when given, else the config's `store`), requiring the file to exist when it
 * came from `--db`.
 *
 * @param source `--db` or `store` (the config key), named in the error
 * @throws CliError (exit 2) when `--db` names a file that does not exist or is not a regular file
 */
export function openExistingStore(file: string, source: '--db' | 'store'): Database.Database {
  if (source === '--db' && (!existsSync(file) || !statSync(file).isFile())) {
    throw new CliError(`--db ${file}: no such database file (check the path; nothing was created)`, EXIT_USAGE);
  }
  return openDatabase(file);
}
