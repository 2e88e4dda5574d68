/**
 * The PostgreSQL schema against the SQLite one, both migrated for real (a SQLite file through openDatabase, a
 * PostgreSQL server on loopback through migratePostgres): the same tables, columns in the same order with the
 * same nullability, the same named indexes, and CHECK constraints that accept and reject the same rows. Also
 * the migration bookkeeping: versions recorded, idempotent, concurrent runs serialised, a failing migration
 * rolled back alone, a newer database refused.
 */
import path from 'node:path';
import type Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../../packages/ballast/src/store/database.ts';
import { StoreSchemaError } from '../../../../packages/ballast/src/store/errors.ts';
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from '../../../../packages/ballast/src/store/migrations.ts';
import { migratePostgres, pgSchemaVersion } from '../../../../packages/ballast/src/store/pg/migrate.ts';
import { PG_LATEST_SCHEMA_VERSION, PG_MIGRATIONS } from '../../../../packages/ballast/src/store/pg/migrations.ts';
import { COPY_TABLES, NOT_COPIED } from '../../../../packages/ballast/src/store/copy/tables.ts';
import { createDatabase, startPostgres, type PostgresServer } from '../../../helpers/postgres.ts';
import { tempDir } from '../../../e2e/helpers/sandboxBallast.ts';

let server: PostgresServer;
const tmp = tempDir('ballast-pg-schema-');
const clients: pg.Client[] = [];
const sqlites: Database.Database[] = [];

beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterAll(async () => {
  for (const c of clients) await c.end();
  for (const db of sqlites) db.close();
  await server?.stop();
  tmp.cleanup();
});

let dbCounter = 0;
async function freshPg(): Promise<{ url: string; client: pg.Client }> {
  const url = await createDatabase(server.url, `schema_${++dbCounter}`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  clients.push(client);
  return { url, client };
}

function freshSqlite(): Database.Database {
  const db = openDatabase(path.join(tmp.dir, `schema-${++dbCounter}.db`));
  sqlites.push(db);
  return db;
}

interface Column {
  name: string;
  notNull: boolean;
}

function sqliteColumns(db: Database.Database): Record<string, Column[]> {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as {
    name: string;
  }[];
  return Object.fromEntries(
    tables.map(({ name }) => {
      const cols = db.prepare(`SELECT name, "notnull" AS nn, pk FROM pragma_table_info('${name}') ORDER BY cid`).all() as {
        name: string;
        nn: number;
        pk: number;
      }[];
      // An INTEGER PRIMARY KEY is the rowid: never NULL, though table_info reports notnull = 0.
      return [name, cols.map((c) => ({ name: c.name, notNull: c.nn === 1 || c.pk > 0 }))];
    }),
  );
}

async function pgColumns(client: pg.Client): Promise<Record<string, Column[]>> {
  const res = await client.query<{ table_name: string; column_name: string; is_nullable: string }>(
    `SELECT table_name, column_name, is_nullable FROM information_schema.columns
     WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
  );
  const out: Record<string, Column[]> = {};
  for (const r of res.rows) (out[r.table_name] ??= []).push({ name: r.column_name, notNull: r.is_nullable === 'NO' });
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

describe('PostgreSQL migrations', () => {
  it('number the same versions as the SQLite ones', () => {
    expect(PG_MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(PG_LATEST_SCHEMA_VERSION).toBe(LATEST_SCHEMA_VERSION);
  });

  it('give the same tables, columns (order, nullability) and indexes as SQLite', async () => {
    const lite = freshSqlite();
    const { client } = await freshPg();
    expect(await migratePostgres(client, 'test')).toEqual({ before: 0, after: LATEST_SCHEMA_VERSION });
    const liteCols = sqliteColumns(lite);
    const { leader_lease: lease, ...pgCols } = await pgColumns(client);
    expect(lease?.map((c) => c.name)).toEqual(['name', 'owner', 'epoch', 'acquired_at', 'renewed_at', 'expires_at']);
    expect(Object.keys(pgCols)).toEqual(Object.keys(liteCols));
    expect(Object.keys(liteCols)).toContain('transfer_ledger');
    for (const table of Object.keys(liteCols)) expect({ table, cols: pgCols[table] }).toEqual({ table, cols: liteCols[table] });

    const liteIdx = (
      lite.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").all() as { name: string }[]
    ).map((r) => r.name);
    const pgIdx = await client.query<{ indexname: string }>(
      `SELECT i.indexname FROM pg_indexes i WHERE i.schemaname = current_schema()
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname) ORDER BY i.indexname`,
    );
    expect(pgIdx.rows.map((r) => r.indexname).filter((n) => !n.startsWith('leader_lease'))).toEqual(liteIdx);
    expect(liteIdx.length).toBeGreaterThan(10);
  });

  it('copy table list covers every table, and its amount columns are exactly the digit-checked ones', async () => {
    const { client } = await freshPg();
    await migratePostgres(client, 'test');
    const tables = await client.query<{ tablename: string }>(
      'SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename',
    );
    // leader_lease: PostgreSQL only (the leader lease), not part of a SQLite history.
    expect([...COPY_TABLES.map((t) => t.name), ...NOT_COPIED, 'leader_lease'].sort()).toEqual(tables.rows.map((r) => r.tablename));
    const checks = await client.query<{ table: string; def: string }>(
      `SELECT conrelid::regclass::text AS table, pg_get_constraintdef(oid) AS def FROM pg_constraint
       WHERE contype = 'c' AND connamespace = current_schema()::regnamespace`,
    );
    const digitChecked = new Set(
      checks.rows.flatMap((r) => {
        const m = /^CHECK \(\((\w+) ~ '\^\[0-9\]\+\$'::text\)\)$/.exec(r.def);
        return m ? [`${r.table}.${m[1]}`] : [];
      }),
    );
    const listed = new Set(COPY_TABLES.flatMap((t) => t.amounts.map((c) => `${t.name}.${c}`)));
    expect([...digitChecked].sort()).toEqual([...listed].sort());
    expect(listed.size).toBe(22); // withdrawals.received_amount (migration 9) is the 18th, transfers.refunded_amount (10) the 19th, approval_requests.amount_in (14) the 20th, needs.amount (17) the 21st, withdrawals.gas_paid (18) the 22nd
  });

  it('CHECK constraints accept and reject the same rows on both engines', async () => {
    const lite = freshSqlite();
    const { client } = await freshPg();
    await migratePostgres(client, 'test');
    const parents = [
      "INSERT INTO cycles (id, mode, started_at_ms) VALUES (1, 'once', 1000)",
      "INSERT INTO planned_transfers (id, cycle_id, asset, origin_chain, destination_chain, amount_in, reason) VALUES (1, 1, 'USDC', 'alpha', 'beta', '5', 'r')",
      `INSERT INTO transfers (id, cycle_id, asset, origin_chain, origin_chain_id, origin_currency, destination_chain, destination_chain_id,
        destination_currency, user_address, recipient, amount_in, expected_out, min_out, status, created_at_ms, updated_at_ms)
        VALUES (1, 1, 'USDC', 'alpha', 1, '0xa', 'beta', 2, '0xb', '0xu', '0xr', '10', '9', '8', 'success', 1, 2)`,
    ];
    for (const sql of parents) {
      lite.exec(sql);
      await client.query(sql);
    }
    const transfer = (id: number, amount: string, status: string) =>
      `INSERT INTO transfers (id, cycle_id, asset, origin_chain, origin_chain_id, origin_currency, destination_chain, destination_chain_id,
        destination_currency, user_address, recipient, amount_in, expected_out, min_out, status, created_at_ms, updated_at_ms)
        VALUES (${id}, 1, 'USDC', 'alpha', 1, '0xa', 'beta', 2, '0xb', '0xu', '0xr', '${amount}', '1', '1', '${status}', 1, 2)`;
    const balance = (id: number, amount: string | null, error: string | null) =>
      `INSERT INTO balances (id, cycle_id, chain, chain_id, asset, wallet, address, currency, amount, error, read_at_ms)
        VALUES (${id}, 1, 'alpha', 1, 'USDC', 'w', '0xa', '0xc', ${amount === null ? 'NULL' : `'${amount}'`}, ${error === null ? 'NULL' : `'${error}'`}, 1)`;
    const withdrawal = (id: number, state: string, extra: string) =>
      `INSERT INTO withdrawals (id, transfer_id, request_id, chain, chain_id, chain_slug, wallet, owner, recipient, currency, amount, deposit_tx, state,
        nonce, signature, prepared_amount, finished_at_ms, created_at_ms, updated_at_ms)
        VALUES (${id}, 1, '0xreq', 'alpha', 1, 'alpha', 'w', '0xo', '0xr', '0xc', '7', '0xd', '${state}', ${extra}, 1, 2)`;
    const ledger = (receivedOut: string, source: string, status = 'success', transferId = 1) =>
      `INSERT INTO transfer_ledger (transfer_id, status, asset, origin_chain, destination_chain, amount_in, quoted_expected_out, quoted_min_out,
        received_out, received_source, fees_source, total_fees_usd, settled_at_ms, recorded_at_ms)
        VALUES (${transferId}, '${status}', 'USDC', 'alpha', 'beta', '10', '9', '8', ${receivedOut}, '${source}', 'none', '0', 5, 6)`;
    const cases: { name: string; sql: string; ok: boolean }[] = [
      { name: 'cycle mode outside the list', sql: "INSERT INTO cycles (id, mode, started_at_ms) VALUES (2, 'weekly', 1)", ok: false },
      {
        name: 'cycle finished without outcome',
        sql: "INSERT INTO cycles (id, mode, started_at_ms, finished_at_ms) VALUES (3, 'once', 1, 2)",
        ok: false,
      },
      {
        name: "cycle outcome 'aborted' (version 3)",
        sql: "INSERT INTO cycles (id, mode, started_at_ms, finished_at_ms, outcome) VALUES (4, 'daemon', 1, 2, 'aborted')",
        ok: true,
      },
      { name: 'balance in base units beyond 2^64', sql: balance(1, '340282366920938463463374607431768211456', null), ok: true },
      { name: 'negative balance', sql: balance(2, '-5', null), ok: false },
      { name: 'decimal balance', sql: balance(3, '1.5', null), ok: false },
      { name: 'empty balance', sql: balance(4, '', null), ok: false },
      { name: 'hex balance', sql: balance(5, '0x10', null), ok: false },
      { name: 'balance with neither amount nor error', sql: balance(6, null, null), ok: false },
      { name: 'balance read error', sql: balance(7, null, 'rpc down'), ok: true },
      { name: 'transfer status outside the list', sql: transfer(10, '1', 'bogus'), ok: false },
      { name: "transfer status 'withdrawn' (version 5)", sql: transfer(11, '1', 'withdrawn'), ok: true },
      { name: 'transfer amount with a space', sql: transfer(12, '1 000', 'prepared'), ok: false },
      { name: 'withdrawal executing without nonce', sql: withdrawal(1, 'executing', 'NULL, NULL, NULL, NULL'), ok: false },
      { name: 'withdrawal executing, signed', sql: withdrawal(2, 'executing', "'0x1', '0xsig', '7', NULL"), ok: true },
      { name: 'withdrawal executed without finish time', sql: withdrawal(3, 'executed', 'NULL, NULL, NULL, NULL'), ok: false },
      { name: 'ledger received amount missing with source order_minimum', sql: ledger('NULL', 'order_minimum'), ok: false },
      { name: 'ledger with a received amount', sql: ledger("'9'", 'order_minimum'), ok: true },
      { name: 'ledger status outside the list', sql: ledger('NULL', 'none', 'lost', 11), ok: false },
      { name: "ledger status 'origin_failed' (version 10)", sql: ledger('NULL', 'none', 'origin_failed', 11), ok: true },
      {
        name: 'transfer tx with a negative item index',
        sql: "INSERT INTO transfer_txs (transfer_id, step_id, item_index, chain_id, request_json, tx_hash, raw_tx, status, signed_at_ms) VALUES (1, 'deposit', -1, 1, '{}', '0xh', '0xr', 'signed', 1)",
        ok: false,
      },
      {
        name: 'run lock row other than 1',
        sql: "INSERT INTO run_lock (id, owner, pid, acquired_at_ms, expires_at_ms) VALUES (2, 'o', 1, 1, 2)",
        ok: false,
      },
      {
        name: 'fee decision refused without reason',
        sql: "INSERT INTO quotes (id, cycle_id, request_json, raw_json, received_at_ms) VALUES (1, 1, '{}', '{}', 1); INSERT INTO fee_decisions (quote_id, accepted) VALUES (1, 0)",
        ok: false,
      },
    ];
    const outcomes = [];
    for (const c of cases) {
      let liteOk = true;
      try {
        lite.exec(`SAVEPOINT c; ${c.sql}; RELEASE c`);
      } catch (err) {
        expect(String(err)).toMatch(/constraint/i);
        lite.exec('ROLLBACK TO c; RELEASE c');
        liteOk = false;
      }
      let pgOk = true;
      await client.query('BEGIN');
      try {
        await client.query(c.sql);
        await client.query('COMMIT');
      } catch (err) {
        expect((err as { code?: string }).code).toBe('23514'); // check_violation
        await client.query('ROLLBACK');
        pgOk = false;
      }
      outcomes.push({ name: c.name, sqlite: liteOk, postgres: pgOk });
    }
    expect(outcomes).toEqual(cases.map((c) => ({ name: c.name, sqlite: c.ok, postgres: c.ok })));
  });
});

describe('migratePostgres', () => {
  it('is idempotent and serialises concurrent runs (advisory lock): one applies, the other finds it done', async () => {
    const { url, client } = await freshPg();
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    clients.push(other);
    const results = await Promise.all([migratePostgres(client, 'a'), migratePostgres(other, 'b')]);
    expect(results.map((r) => r.before).sort()).toEqual([0, LATEST_SCHEMA_VERSION]);
    expect(results.map((r) => r.after)).toEqual([LATEST_SCHEMA_VERSION, LATEST_SCHEMA_VERSION]);
    const rows = await client.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.rows.map((r) => r.version)).toEqual(PG_MIGRATIONS.map((m) => m.version));
    expect(await migratePostgres(client, 'a')).toEqual({ before: LATEST_SCHEMA_VERSION, after: LATEST_SCHEMA_VERSION });
  });

  it('rolls back a failing migration alone, keeping the ones before it', async () => {
    const { client } = await freshPg();
    const broken = [
      { version: 1, name: 'one', sql: 'CREATE TABLE one (id BIGINT PRIMARY KEY)' },
      { version: 2, name: 'two', sql: 'CREATE TABLE two (id BIGINT PRIMARY KEY); INSERT INTO nowhere VALUES (1)' },
    ];
    await expect(migratePostgres(client, 'test', broken)).rejects.toThrow(/nowhere/);
    expect(await pgSchemaVersion(client)).toBe(1);
    const tables = await client.query<{ t: string | null }>(
      "SELECT to_regclass('one')::text AS t UNION ALL SELECT to_regclass('two')::text",
    );
    expect(tables.rows.map((r) => r.t)).toEqual(['one', null]);
    // The lock was released: another session can take it at once.
    const lock = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(27691666020332404) AS ok');
    expect(lock.rows[0]!.ok).toBe(true);
    await client.query('SELECT pg_advisory_unlock(27691666020332404)');
  });

  it('refuses a database migrated by a newer Ballast', async () => {
    const { client } = await freshPg();
    await migratePostgres(client, 'test');
    await client.query("INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES ($1, 'future', 0)", [
      LATEST_SCHEMA_VERSION + 1,
    ]);
    const err = await migratePostgres(client, 'postgres://db/x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreSchemaError);
    expect((err as StoreSchemaError).code).toBe('STORE_SCHEMA_TOO_NEW');
    expect((err as Error).message).toContain(`schema version ${LATEST_SCHEMA_VERSION + 1}`);
  });
});
