/**
 * `loadPg()` (src/store/pg/pgModule.ts) returns the module object that `import pg from 'pg'` gives, so the pools
 * and clients it builds are node-postgres' own, with the same global `types` registry.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { loadPg } from '../../../../packages/ballast/src/store/pg/pgModule.ts';

describe('loadPg', () => {
  it('is the default export of pg, the same object on every call', () => {
    const loaded = loadPg();
    expect(loaded).toBe(pg);
    expect(loadPg()).toBe(loaded);
    expect(loaded.Pool).toBe(pg.Pool);
    expect(loaded.types.getTypeParser(20, 'text')).toBe(pg.types.getTypeParser(20, 'text'));
  });

  it('builds a pool of the pg class without connecting', async () => {
    const pool = new (loadPg().Pool)({ connectionString: 'postgres://nobody@127.0.0.1:1/none', max: 1 });
    expect(pool).toBeInstanceOf(pg.Pool);
    expect(pool.totalCount).toBe(0); // no connection is opened before the first query
    await pool.end();
  });
});
