/**
 * node-postgres (`pg`), loaded on first use. The package is CommonJS: `require('pg')` returns the very object
 * that `import pg from 'pg'` gives as its default export (pg's ESM wrapper re-exports `lib/index.js`), so one
 * module instance serves both. Loading it only when a PostgreSQL store or lease is opened keeps it out of the
 * start of every command on a SQLite store (the default).
 */
import { createRequire } from 'node:module';
import type pg from 'pg';

const require = createRequire(import.meta.url);
let loaded: typeof pg | undefined;

/**
 * The `pg` module (node-postgres), required on the first call and cached by Node's module cache after it.
 *
 * @returns the `pg` default export: `Pool`, `Client`, `types`…
 * @throws the resolution error when the `pg` package is not installed
 */
export function loadPg(): typeof pg {
  loaded ??= require('pg') as typeof pg; // `require('pg')` is lib/index.js, typed by @types/pg as the default export
  return loaded;
}
