import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreSchemaError } from '../../../packages/ballast/src/store/errors.ts';
import { migrate, schemaVersion } from '../../../packages/ballast/src/store/database.ts';
import { MIGRATIONS } from '../../../packages/ballast/src/store/migrations.ts';
import { startCycle } from '../../../packages/ballast/src/store/cycles.ts';
import { tempDb, type TempDb } from './helpers.ts';

let t: TempDb;
beforeEach(() => {
  t = tempDb();
});
afterEach(() => {
  t.cleanup();
});

/** A raw SQLite store migrated up to `version`, holding cycle 1 and one transfer per status given (ids from 1). */
function storeAt(version: number, statuses: readonly string[]): Database.Database {
  mkdirSync(path.dirname(t.file), { recursive: true });
  const db = new Database(t.file);
  expect(
    migrate(
      db,
      t.file,
      MIGRATIONS.filter((m) => m.version <= version),
    ),
  ).toBe(version);
  const rows = statuses.map(
    (status, i) => `(${i + 1}, 1, 'USDC', 'a', 1, '0xa', 'b', 2, '0xb', '0xu', '0xr', '10', '9', '8', '${status}', 1, 2)`,
  );
  db.exec(`INSERT INTO cycles (id, mode, started_at_ms) VALUES (1, 'once', 1);
    INSERT INTO transfers (id, cycle_id, asset, origin_chain, origin_chain_id, origin_currency, destination_chain, destination_chain_id,
      destination_currency, user_address, recipient, amount_in, expected_out, min_out, status, created_at_ms, updated_at_ms)
      VALUES ${rows.join(', ')};`);
  return db;
}

describe('openDatabase', () => {
  it('creates parent directories and sets WAL, durable commits, foreign keys and the busy timeout', async () => {
    const db = t.open();
    expect(existsSync(t.file)).toBe(true);
    expect(db.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.sqlite.pragma('synchronous', { simple: true })).toBe(2); // FULL: a commit is on disk before it returns
    expect(db.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.sqlite.pragma('busy_timeout', { simple: true })).toBe(5000);
    await startCycle(db, { mode: 'once', startedAtMs: 1 });
    expect(existsSync(`${t.file}-wal`)).toBe(true);
  });

  it('applies migrations once: reopening keeps data and does not re-run them', async () => {
    const db1 = t.open();
    const id = await startCycle(db1, { mode: 'daemon', startedAtMs: 5 });
    await db1.close();
    const db2 = t.open();
    const rows = db2.sqlite.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all();
    expect(rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
    expect(db2.sqlite.prepare('SELECT id, mode FROM cycles').all()).toEqual([{ id, mode: 'daemon' }]);
    expect(schemaVersion(db2.sqlite)).toBe(MIGRATIONS.length);
  });

  it('applies only the new migration when the code gains one', () => {
    const db = t.open().sqlite;
    const extra = { version: MIGRATIONS.length + 1, name: 'test: extra table', sql: 'CREATE TABLE extra (x INTEGER)' };
    expect(migrate(db, t.file, [...MIGRATIONS, extra])).toBe(MIGRATIONS.length + 1);
    expect(migrate(db, t.file, [...MIGRATIONS, extra])).toBe(MIGRATIONS.length + 1);
    expect(db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'extra'").get()).toEqual({ n: 1 });
  });

  it('refuses a database written by a newer version, without touching it', async () => {
    const db = t.open();
    db.sqlite.prepare('INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (?, ?, ?)').run(99, 'future', 1);
    await db.close();
    let err: unknown;
    try {
      t.open();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StoreSchemaError);
    expect((err as StoreSchemaError).code).toBe('STORE_SCHEMA_TOO_NEW');
    expect((err as Error).message).toContain(`has schema version 99 but this Ballast knows up to ${MIGRATIONS.length}`);
  });

  it('version 10 rebuilds transfer_ledger keeping its rows, its index and the transfers it references, and admits origin_failed', () => {
    const db = storeAt(9, ['success', 'origin_failed']);
    try {
      db.exec(`INSERT INTO transfer_ledger (transfer_id, status, asset, origin_chain, destination_chain, amount_in, quoted_expected_out, quoted_min_out,
          received_out, received_source, fees_source, total_fees_usd, settled_at_ms, recorded_at_ms)
          VALUES (1, 'success', 'USDC', 'a', 'b', '10', '9', '8', '9', 'order_minimum', 'none', '0', 5, 6);`);
      const originFailed = `INSERT INTO transfer_ledger (transfer_id, status, asset, origin_chain, destination_chain, amount_in, quoted_expected_out,
          quoted_min_out, received_source, fees_source, gas_paid, gas_decimals, total_fees_usd, settled_at_ms, recorded_at_ms)
          VALUES (2, 'origin_failed', 'BTC', 'bitcoin', 'b', '10', '9', '8', 'none', 'none', '2500', 8, '2.5', 7, 8)`;
      expect(() => db.exec(originFailed)).toThrow(/CHECK constraint failed/);
      const before = db.prepare('SELECT * FROM transfer_ledger').all();
      expect(migrate(db, t.file, MIGRATIONS)).toBe(MIGRATIONS.length);
      expect(db.prepare('SELECT * FROM transfer_ledger').all()).toEqual(before);
      db.exec(originFailed);
      expect(db.prepare('SELECT transfer_id, status, gas_paid FROM transfer_ledger ORDER BY transfer_id').all()).toEqual([
        { transfer_id: 1, status: 'success', gas_paid: null },
        { transfer_id: 2, status: 'origin_failed', gas_paid: '2500' },
      ]);
      expect(
        db.prepare("SELECT name FROM sqlite_master WHERE tbl_name = 'transfer_ledger' AND type = 'index' AND sql IS NOT NULL").all(),
      ).toEqual([{ name: 'transfer_ledger_settled' }]);
      expect(() =>
        db.exec(
          "INSERT INTO transfer_ledger (transfer_id, status, asset, origin_chain, destination_chain, amount_in, quoted_expected_out, quoted_min_out, received_source, fees_source, total_fees_usd, settled_at_ms, recorded_at_ms) VALUES (99, 'success', 'X', 'a', 'b', '1', '1', '1', 'none', 'none', '0', 1, 1)",
        ),
      ).toThrow(/FOREIGN KEY constraint failed/);
    } finally {
      db.close();
    }
  });

  it('version 18 records no withdrawal fee for a withdrawal that may have had a ready transaction mined before it', () => {
    const db = storeAt(17, ['deposited', 'deposited']);
    try {
      const withdrawal = (id: number, received: string) =>
        `INSERT INTO withdrawals (id, transfer_id, request_id, chain, chain_id, chain_slug, wallet, owner, recipient, currency, amount, deposit_tx,
          state, received_amount, created_at_ms, updated_at_ms)
          VALUES (${id}, ${id}, '0xreq${id}', 'a', 1, 'a', 'w', '0xo', '0xo', '0xc', '7', '0xd', 'attested', '${received}', 1, 2)`;
      db.exec(`${withdrawal(1, '0')}; ${withdrawal(2, '3')};`);
      expect(migrate(db, t.file, MIGRATIONS)).toBe(MIGRATIONS.length);
      expect(db.prepare('SELECT id, gas_paid FROM withdrawals ORDER BY id').all()).toEqual([
        { id: 1, gas_paid: '0' },
        { id: 2, gas_paid: null }, // part came back: a ready transaction of ours may have paid gas
      ]);
    } finally {
      db.close();
    }
  });

  it('rejects a migration list with a gap', () => {
    const db = t.open().sqlite;
    expect(() => migrate(db, t.file, [{ version: 2, name: 'gap', sql: '' }])).toThrow(/has version 2, expected 1/);
  });
});

describe('CHECK constraints', () => {
  it('reject an unknown transfer status, a malformed amount and an unknown cycle mode', async () => {
    const store = t.open();
    const cycleId = await startCycle(store, { mode: 'once', startedAtMs: 1 });
    const db = store.sqlite;
    const insert = (status: string, amount: string) =>
      db
        .prepare(
          `INSERT INTO transfers (cycle_id, asset, origin_chain, origin_chain_id, origin_currency, destination_chain,
             destination_chain_id, destination_currency, user_address, recipient, amount_in, expected_out, min_out,
             status, created_at_ms, updated_at_ms)
           VALUES (?, 'USDC', 'a', 1, '0x', 'b', 2, '0x', '0x', '0x', ?, '1', '1', ?, 1, 1)`,
        )
        .run(cycleId, amount, status);
    expect(() => insert('lost', '1')).toThrow(/CHECK constraint failed/);
    expect(() => insert('prepared', '-1')).toThrow(/CHECK constraint failed/);
    expect(() => insert('prepared', '1.5')).toThrow(/CHECK constraint failed/);
    expect(() => insert('prepared', '')).toThrow(/CHECK constraint failed/);
    expect(() => db.prepare("INSERT INTO cycles (mode, started_at_ms) VALUES ('weekly', 1)").run()).toThrow(/CHECK constraint failed/);
    insert('prepared', '123');
    expect(db.prepare('SELECT COUNT(*) AS n FROM transfers').get()).toEqual({ n: 1 });
  });

  it('enforce foreign keys', async () => {
    const db = t.open();
    await startCycle(db, { mode: 'once', startedAtMs: 1 });
    expect(() =>
      db.sqlite.prepare("INSERT INTO plan_decisions (cycle_id, asset, kind, detail) VALUES (999, 'USDC', 'in_band', 'x')").run(),
    ).toThrow(/FOREIGN KEY constraint failed/);
  });
});
