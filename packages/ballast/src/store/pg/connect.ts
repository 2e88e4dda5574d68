/**
 * Connecting to a PostgreSQL store (node-postgres `pg.Client`): one client per command, the URL's password
 * kept out of every message.
 */
import type pg from 'pg';
import { redactStoreUrl } from '../../config/storeUrl.ts';
import { StoreOpenError } from '../openError.ts';
import { loadPg } from './pgModule.ts';

/**
 * Opens one connection to the database named by `url`.
 *
 * @param url `postgres://user[:password]@host[:port]/database[?params]` (libpq URI form)
 * @returns the connected client; the caller ends it (`client.end()`)
 * @throws StoreOpenError `STORE_UNAVAILABLE` when the server cannot be reached or refuses the login (its
 *   message names the URL without its password, the server's reason and the fix)
 */
export async function connectPostgres(url: string): Promise<pg.Client> {
  const client = new (loadPg().Client)({ connectionString: url, connectionTimeoutMillis: 10_000 });
  // A connection that drops later surfaces as a failed query; without a listener the 'error' event would crash.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    const shown = redactStoreUrl(url);
    const reason = (err as { code?: string }).code ?? 'ECONNECT'; // pg and net errors carry a code
    await client.end().catch(() => undefined); // already failed: nothing to close cleanly
    throw new StoreOpenError(
      'STORE_UNAVAILABLE',
      shown,
      reason,
      `store: ${shown} cannot be reached (${reason}: ${(err as Error).message}); check the host, port, database name and credentials, and that the server is running`,
      err,
    );
  }
  return client;
}
