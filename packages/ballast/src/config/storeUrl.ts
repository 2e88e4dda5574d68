/**
 * The `store:` setting names either a SQLite file (a path, relative to the config file) or a PostgreSQL
 * database (a `postgres://` or `postgresql://` connection URL, libpq's URI form). A URL is never resolved as a
 * path. The engine is chosen in one place, src/store/openStore.ts.
 */

/** Matches a PostgreSQL connection URL (libpq "Connection URIs": `postgresql://` or `postgres://`). */
const POSTGRES_URL_RE = /^postgres(?:ql)?:\/\//i;

/** True when `store` is a PostgreSQL connection URL rather than a SQLite path. */
export function isPostgresUrl(store: string): boolean {
  return POSTGRES_URL_RE.test(store);
}

/**
 * The URL with its password replaced by `***` (for messages and output; the URL may carry a password). A
 * string that does not parse as a URL is returned with everything between `://` and `@` masked.
 *
 * @example redactStoreUrl('postgres://ballast:s3cret@db:5432/ballast') // 'postgres://ballast:***@db:5432/ballast'
 */
export function redactStoreUrl(store: string): string {
  if (!isPostgresUrl(store)) return store;
  try {
    const url = new URL(store);
    if (url.password !== '') url.password = '***';
    for (const key of [...url.searchParams.keys()]) if (/pass/i.test(key)) url.searchParams.set(key, '***');
    return url.toString();
  } catch {
    return store.replace(/^([a-z]+:\/\/)[^@/]*@/i, '$1***@');
  }
}
