/**
 * vitest global setup of the `integration` tier (vitest.config.ts): one PostgreSQL server for the whole run,
 * instead of one per test file. Its URL reaches the test files as `inject('ballastPostgresUrl')`
 * (vitest `provide`/`inject`); {@link ../helpers/storeEngines.ts} creates one database per store on it, with a
 * name unique to the file, and starts a server of its own when nothing was provided (another tier, or a run
 * limited to SQLite).
 *
 * Only tests that treat the server as shared use it: a test that halts, resumes or reconfigures its server
 * (HA, store copy, migrations) still starts its own with `startPostgres()`.
 *
 * - No server is started when `BALLAST_TEST_ENGINES` leaves PostgreSQL out (e.g. a machine without it).
 * - The teardown stops the server by PID and removes its directory (test/helpers/postgres.ts).
 */
import type { TestProject } from 'vitest/node';
import { startPostgres } from './postgres.ts';
import { storeEngineNames } from './storeEngines.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `postgres://postgres@127.0.0.1:<port>/postgres` of the run's shared server; absent outside `integration`. */
    ballastPostgresUrl?: string;
  }
}

/** Starts the server and provides its URL; returns the teardown that stops it. */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!storeEngineNames().includes('postgres')) return undefined;
  const server = await startPostgres({ readyTimeoutMs: 60_000 });
  project.provide('ballastPostgresUrl', server.url);
  return () => server.stop();
}
