/**
 * `ballast migrate` and `ballast store copy` on a real history: a SQLite store written by real cycles on the
 * sandbox (anvil chains, local Relay API: cycles, balances, a plan, a quote with its fee decision and verdict, a
 * transfer with its transactions, events and ledger entry), the few tables a healthy run leaves empty filled by
 * hand (one amount beyond 2^64), copied into a real PostgreSQL on loopback by the CLI as a separate process.
 * Checks: counts, max ids and exact amount sums printed and equal; every row equal field by field; identity
 * sequences past the copied ids; a second copy into the same target refused; a copy whose result differs (a
 * trigger on the target) rolled back entirely; a target that was not migrated refused; `run`/`daemon` with a
 * postgres URL in `store:` refused with one line.
 *
 * The copy and the `daemon` refusal run the CLI as a separate process (`runCli`); the other commands call the same
 * `main()` in this process (`runCliInProcess`), with the same output and exit code.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { sandboxEnv } from '../../packages/ballast/src/cli/sandboxEnv.ts';
import { COPY_TABLES } from '../../packages/ballast/src/store/copy/tables.ts';
import { copyStore } from '../../packages/ballast/src/store/copy/copyStore.ts';
import { StoreCopyError } from '../../packages/ballast/src/store/copy/errors.ts';
import { migratePostgres } from '../../packages/ballast/src/store/pg/migrate.ts';
import { LATEST_SCHEMA_VERSION } from '../../packages/ballast/src/store/migrations.ts';
import { createDatabase, startPostgres, type PostgresServer } from '../helpers/postgres.ts';
import { runCli, runCliInProcess, ROOT } from './helpers/cli.ts';
import { ballastOnSandbox, tempDir } from './helpers/sandboxBallast.ts';

const HUGE = '123456789012345678901234567890123'; // base units beyond 2^64 and 2^96: summed exactly or not at all

const tmp = tempDir('ballast-pg-copy-');
let sandbox: Sandbox | null = null;
let server: PostgresServer | null = null;
let storeFile = '';
let configFile = '';
const clients: pg.Client[] = [];

/** Fills the tables a successful run leaves empty, with rows that pass every CHECK. */
function fillQuietTables(db: Database.Database): void {
  const count = (t: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n; // aggregate: one row
  const cycle = (db.prepare('SELECT MAX(id) AS id FROM cycles').get() as { id: number }).id; // aggregate: one row
  const plan = (db.prepare('SELECT MAX(id) AS id FROM planned_transfers').get() as { id: number }).id;
  const transfer = (db.prepare('SELECT MAX(id) AS id FROM transfers').get() as { id: number }).id;
  if (count('limit_hits') === 0) {
    db.prepare(
      `INSERT INTO limit_hits (cycle_id, plan_id, asset, origin_chain, destination_chain, amount_in, reason, detail, decided_at_ms)
       VALUES (?, ?, 'USDC', 'alpha', 'beta', ?, 'daily_budget', 'over budget', 1700000000000)`,
    ).run(cycle, plan, HUGE);
  }
  if (count('quote_errors') === 0) {
    db.prepare(
      "INSERT INTO quote_errors (cycle_id, plan_id, code, message, relay_request_id, at_ms) VALUES (?, ?, 'RELAY_HTTP_429', 'slow down', NULL, 1700000000001)",
    ).run(cycle, plan);
  }
  if (count('withdrawals') === 0) {
    db.prepare(
      `INSERT INTO withdrawals (transfer_id, request_id, chain, chain_id, chain_slug, wallet, owner, recipient, currency, amount, deposit_tx,
        state, attempts, nonce, signature, prepared_amount, created_at_ms, updated_at_ms)
       VALUES (?, '0xreq', 'alpha', 31001, 'alpha', 'treasury', '0xowner', '0xrecipient', '0xusdc', '7000000', '0xdeposit',
        'executing', 1, '0x01', '0xsig', '6999999', 1700000000002, 1700000000003)`,
    ).run(transfer);
  }
  if (count('route_candidates') === 0) {
    const quote = (db.prepare('SELECT MAX(id) AS id FROM quotes').get() as { id: number }).id;
    db.prepare(
      `INSERT INTO route_candidates (cycle_id, plan_id, rank, origin_chain, origin_wallet, amount_in, quote_id, fees_usd, min_out, outcome, detail, decided_at_ms)
       VALUES (?, ?, 0, 'alpha', 'treasury', ?, ?, '0.52', '19999000000', 'chosen', 'the cheapest', 1700000000004),
              (?, ?, 1, 'gamma', 'treasury', '20000000000', NULL, NULL, NULL, 'no_spare', 'spare gone', 1700000000004)`,
    ).run(cycle, plan, HUGE, quote, cycle, plan);
  }
  if (count('transfer_requests') === 0) {
    db.prepare(
      `INSERT INTO transfer_requests (from_ref, to_ref, amount, requested_by, requested_at_ms, state, cycle_id, outcome, detail, finished_at_ms)
       VALUES ('alpha:USDC', 'beta:USDC', '100', 'ops@host', 1700000000005, 'done', ?, 'success', 'transfer 1: success', 1700000000006),
              ('alpha:USDC', 'beta:USDC', '5', 'ops@host', 1700000000007, 'pending', NULL, NULL, NULL, NULL)`,
    ).run(cycle);
  }
  if (count('wallet_pauses') === 0) {
    db.prepare(
      `INSERT INTO wallet_pauses (address, stage, code, detail, transfer_id, created_at_ms, resolved_at_ms, resolution)
       VALUES ('0xwallet', 'quote', 'BLOCKED_WALLET_ADDRESS', 'quote refused by screening', NULL, 1700000000008, 1700000000009, 'resumed by ops'),
              ('0xwallet', 'fill', 'BLOCKED_WALLET', 'fill blocked; funds in compliance review', ?, 1700000000010, NULL, NULL)`,
    ).run(transfer);
  }
  if (count('flow_states') === 0) {
    db.prepare(
      `INSERT INTO flow_states (chain, currency, address, at_ms, balance, rate_scaled, samples)
       VALUES ('alpha', '0xusdc', '0xtreasury', 1700000000011, '-5', '-123456789012345678901234567890', 3)`,
    ).run();
  }
  if (count('notifications') === 0) {
    db.prepare(
      `INSERT INTO notifications (sink, event, severity, dedupe_key, summary, payload, status, attempts, next_attempt_at_ms, last_error, created_at_ms, finished_at_ms)
       VALUES ('ops', 'transfer_failed', 'critical', 'transfer_failed:transfer:1', 'failed', '{"amountIn":"5"}', 'delivered', 1, 1700000000012, NULL, 1700000000012, 1700000000013),
              ('chat', 'route_paused', 'critical', 'route_paused:route:USDC:alpha:beta:failure:1', 'paused', '{}', 'pending', 2, 1700000000014, 'HTTP 500', 1700000000012, NULL)`,
    ).run();
  }
  if (count('approval_requests') === 0) {
    const request = db.prepare(
      `INSERT INTO approval_requests (cycle_id, plan_id, quote_id, asset, origin_chain, origin_wallet, origin_currency, destination_chain,
        destination_wallet, destination_currency, amount_in, amount_usd, max_fees_json, reason, message, required, status, created_at_ms,
        expires_at_ms, closed_at_ms, closed_by, close_detail, transfer_id)
       VALUES (?, ?, NULL, 'USDC', 'alpha', 'treasury', '0xusdc', 'beta', 'treasury', '0xusdc', ?, ?, '{"totalBps":30}', 'beta below min',
        '{"id":1}', 2, ?, 1700000000012, 1700000086412, ?, NULL, ?, ?)`,
    );
    request.run(cycle, plan, HUGE, '25000.5', 'executed', 1700000000013, 'transfer 1', transfer);
    request.run(cycle, plan, '7', null, 'pending', null, null, null);
    db.prepare(
      `INSERT INTO approval_signoffs (request_id, approver, signature, recorded_at_ms)
       VALUES (1, 'alice', '0xsig-a', 1700000000014), (1, 'bob', '0xsig-b', 1700000000015)`,
    ).run();
  }
  if (count('approval_policies') === 0) {
    db.prepare(
      `INSERT INTO approval_policies (digest, previous_digest, text, proposed_by, proposed_at_ms, approved_at_ms, initialized_by)
       VALUES ('0xfirst', NULL, '{"policy":1}', 'ops', 1700000000016, 1700000000016, 'ops'),
              ('0xsecond', '0xfirst', '{"policy":2}', 'alice', 1700000000017, NULL, NULL)`,
    ).run();
    db.prepare(
      `INSERT INTO approval_policy_signoffs (policy_id, approver, signature, recorded_at_ms) VALUES (2, 'alice', '0xsig-p', 1700000000018)`,
    ).run();
  }
  if (count('needs') === 0) {
    db.prepare(
      `INSERT INTO needs (idempotency_key, asset, chain, wallet, amount, due_at_ms, note, status, created_at_ms, created_by,
        closed_at_ms, closed_by, closed_reason)
       VALUES ('payroll-1', 'USDC', 'beta', 'treasury', ?, 1700000000100, 'payroll', 'open', 1700000000019, 'ops', NULL, NULL, NULL),
              ('vendor-1', 'USDC', 'alpha', 'treasury', '7', 1700000000020, NULL, 'cancelled', 1700000000019, 'api', 1700000000021, 'ops',
               'cancelled by ops')`,
    ).run(HUGE);
  }
  if (count('run_lock') === 0)
    db.prepare("INSERT INTO run_lock (id, owner, pid, acquired_at_ms, expires_at_ms) VALUES (1, 'host:1', 1, 1, 2)").run();
}

/** Every row of `table` in key order, each value as text (null kept), the same way for both engines. */
function sqliteRows(db: Database.Database, table: string, key: string): (string | null)[][] {
  const rows = db.prepare(`SELECT * FROM ${table} ORDER BY ${key}`).raw(true).safeIntegers(true).all() as unknown[][]; // raw rows
  return rows.map((r) => r.map((v) => (v === null ? null : String(v))));
}
async function pgRows(client: pg.Client, table: string, key: string): Promise<(string | null)[][]> {
  const res = await client.query({ text: `SELECT * FROM ${table} ORDER BY ${key}`, rowMode: 'array' });
  return (res.rows as unknown[][]).map((r) => r.map((v) => (v === null ? null : String(v))));
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  clients.push(client);
  return client;
}

beforeAll(async () => {
  server = await startPostgres();
  sandbox = await startSandbox({});
  const { ballast, store, configFile: written } = ballastOnSandbox(sandbox, tmp.dir);
  storeFile = store;
  configFile = written; // store: \${BALLAST_DEMO_STORE}
  try {
    const first = await ballast.runCycle('once');
    expect(first.attempts.map((a) => a.outcome)).toEqual(['success']);
    await ballast.runCycle('once');
    await ballast.runCycle('plan');
  } finally {
    await ballast.close();
  }
  const db = new Database(storeFile);
  try {
    fillQuietTables(db);
  } finally {
    db.close();
  }
}, 240_000);

afterAll(async () => {
  for (const c of clients) await c.end();
  await sandbox?.stop();
  await server?.stop();
  tmp.cleanup();
});

describe('ballast store copy', () => {
  it('copies a real history without loss, keeps ids, moves the sequences, and refuses a second copy', async () => {
    const url = await createDatabase(server!.url, 'copy_full');
    const migrated = await runCliInProcess(['migrate', '--store', url]);
    expect(migrated.stderr).toBe('');
    expect(migrated.code).toBe(0);
    expect(migrated.stdout).toContain(`schema version 0 → ${LATEST_SCHEMA_VERSION}`);
    expect((await runCliInProcess(['migrate', '--store', url])).stdout).toContain(`schema version ${LATEST_SCHEMA_VERSION}, up to date`);

    const before = new Database(storeFile, { readonly: true });
    const sourceRows = Object.fromEntries(COPY_TABLES.map((t) => [t.name, sqliteRows(before, t.name, t.key)]));
    before.close();
    for (const t of COPY_TABLES)
      expect({ table: t.name, empty: sourceRows[t.name]!.length === 0 }).toEqual({ table: t.name, empty: false });

    const copied = await runCli(['store', 'copy', '--from', path.relative(ROOT, storeFile), '--to', url, '--json']);
    expect(copied.stderr).toBe('');
    expect(copied.code).toBe(0);
    const report = JSON.parse(copied.stdout) as {
      schemaVersion: number;
      tables: {
        table: string;
        source: { rows: string; maxKey: string; sums: Record<string, string> };
        target: { rows: string; sums: Record<string, string> };
        differences: string[];
      }[];
    };
    expect(report.schemaVersion).toBe(LATEST_SCHEMA_VERSION);
    expect(report.tables.map((t) => t.table)).toEqual(COPY_TABLES.map((t) => t.name));
    for (const t of report.tables) {
      expect(t.differences).toEqual([]);
      expect(t.source.rows).toBe(String(sourceRows[t.table]!.length));
      expect(t.target).toEqual({ rows: t.source.rows, maxKey: t.source.maxKey, sums: t.source.sums });
    }
    expect(report.tables.find((t) => t.table === 'limit_hits')!.target.sums.amount_in).toBe(HUGE);
    const transfersSums = report.tables.find((t) => t.table === 'transfers')!.source.sums;
    expect(BigInt(transfersSums.amount_in!) > 0n).toBe(true);

    const client = await connect(url);
    for (const t of COPY_TABLES) {
      expect({ table: t.name, rows: await pgRows(client, t.name, t.key) }).toEqual({ table: t.name, rows: sourceRows[t.name] });
    }
    // Exact sums in SQL on the target too (not only in the copy's own report).
    const sum = await client.query<{ s: string }>('SELECT SUM(amount_in::numeric)::text AS s FROM limit_hits');
    expect(sum.rows[0]!.s).toBe(HUGE);
    // The identity sequences continue after the copied ids.
    const maxCycle = BigInt(report.tables.find((t) => t.table === 'cycles')!.source.maxKey);
    const next = await client.query<{ id: string }>("INSERT INTO cycles (mode, started_at_ms) VALUES ('plan', 1) RETURNING id::text AS id");
    expect(BigInt(next.rows[0]!.id)).toBe(maxCycle + 1n);
    await client.query('DELETE FROM cycles WHERE id = $1', [next.rows[0]!.id]);

    const again = await runCliInProcess(['store', 'copy', '--from', storeFile, '--to', url]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('the target is not empty (table cycles has');
    const cycles = await client.query<{ n: string }>('SELECT COUNT(*)::text AS n FROM cycles');
    expect(cycles.rows[0]!.n).toBe(String(sourceRows.cycles!.length));
  }, 120_000);

  it('rolls the whole copy back when the copied figures differ from the source', async () => {
    const url = await createDatabase(server!.url, 'copy_tampered');
    const client = await connect(url);
    await migratePostgres(client, 'copy_tampered');
    // A trigger that alters one amount on its way in: the copy's sums no longer match the source.
    await client.query(
      `CREATE FUNCTION tamper() RETURNS trigger AS $$ BEGIN NEW.amount_in := NEW.amount_in || '0'; RETURN NEW; END $$ LANGUAGE plpgsql`,
    );
    await client.query('CREATE TRIGGER tamper BEFORE INSERT ON limit_hits FOR EACH ROW EXECUTE FUNCTION tamper()');
    const source = new Database(storeFile, { readonly: true, fileMustExist: true });
    const target = await connect(url);
    try {
      const err = await copyStore({ source, target, sourceLabel: storeFile, targetLabel: 'copy_tampered' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreCopyError);
      expect((err as StoreCopyError).code).toBe('STORE_COPY_MISMATCH');
      expect((err as Error).message).toContain('limit_hits: sum(amount_in)');
      const bad = (err as StoreCopyError).comparison.filter((t) => t.differences.length > 0);
      expect(bad.map((t) => t.table)).toEqual(['limit_hits']);
      expect(bad[0]!.target.sums.amount_in).toBe(BigInt(HUGE) * 10n);
    } finally {
      source.close();
    }
    for (const t of COPY_TABLES) {
      const n = await client.query<{ n: string }>(`SELECT COUNT(*)::text AS n FROM ${t.name}`);
      expect({ table: t.name, rows: n.rows[0]!.n }).toEqual({ table: t.name, rows: '0' });
    }
  }, 60_000);

  it('refuses a target that was not migrated, a missing source and a non-URL target', async () => {
    const url = await createDatabase(server!.url, 'copy_bare');
    const bare = await runCliInProcess(['store', 'copy', '--from', storeFile, '--to', url]);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain(
      `the target is at schema version 0, expected ${LATEST_SCHEMA_VERSION}; run \`ballast migrate --store <url>\``,
    );
    const missing = path.join(tmp.dir, 'nope.db');
    const noSource = await runCliInProcess(['store', 'copy', '--from', missing, '--to', url]);
    expect(noSource.code).toBe(2);
    expect(noSource.stderr).toContain(`--from ${missing}: no such SQLite store file`);
    const notUrl = await runCliInProcess(['store', 'copy', '--from', storeFile, '--to', path.join(tmp.dir, 'x.db')]);
    expect(notUrl.code).toBe(2);
    expect(notUrl.stderr).toContain('not a PostgreSQL URL');
  }, 60_000);
});

describe('ballast migrate on SQLite', () => {
  it('creates and migrates a new file, then finds it up to date; the history store is already current', async () => {
    const fresh = path.join(tmp.dir, 'fresh', 'new.db');
    const first = await runCliInProcess(['migrate', '--store', fresh, '--json']);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({
      engine: 'sqlite',
      store: fresh,
      before: 0,
      after: LATEST_SCHEMA_VERSION,
      latest: LATEST_SCHEMA_VERSION,
    });
    const db = new Database(fresh, { readonly: true });
    const versions = db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all();
    db.close();
    expect(versions).toEqual(Array.from({ length: LATEST_SCHEMA_VERSION }, (_, i) => i + 1));
    const again = await runCliInProcess(['migrate', '--store', storeFile]);
    expect(again.code).toBe(0);
    expect(again.stdout.trim()).toBe(`sqlite store ${storeFile}: schema version ${LATEST_SCHEMA_VERSION}, up to date`);
  }, 60_000);
});

describe('a postgres:// store in the config', () => {
  it('is migrated by `ballast migrate` and read by history; an unreachable server is one line without the password', async () => {
    const url = await createDatabase(server!.url, 'from_config');
    const withPassword = url.replace('postgres@', 'postgres:hunter2secret@'); // trust auth ignores it
    const env = sandboxEnv(sandbox!, withPassword);
    const migrated = await runCliInProcess(['migrate', '--config', configFile], { env });
    expect(migrated.stderr).toBe('');
    expect(migrated.code).toBe(0);
    expect(migrated.stdout).toContain(`postgres store postgres://postgres:***@`);
    expect(migrated.stdout).toContain(`schema version 0 → ${LATEST_SCHEMA_VERSION}`);
    expect(migrated.stdout).not.toContain('hunter2secret');
    const history = await runCliInProcess(['history', '--json', '--config', configFile], { env });
    expect(history.code, history.stderr).toBe(0);
    expect(JSON.parse(history.stdout)).toEqual([]);
    // A server that cannot be reached: exit 1 (a restart may succeed), one line naming the store without its password.
    const down = sandboxEnv(sandbox!, withPassword.replace(`:${server!.port}/`, ':1/'));
    for (const args of [['run', '--once'], ['daemon']]) {
      // `daemon` as a real process (how an operator meets the refusal); `run --once` in this process.
      const refused =
        args[0] === 'daemon'
          ? await runCli([...args, '--config', configFile], { env: down, timeoutMs: 30_000 })
          : await runCliInProcess([...args, '--config', configFile], { env: down });
      expect(refused.code, refused.stderr).toBe(1);
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      expect(refused.stderr).toContain('postgres://postgres:***@127.0.0.1:1/');
      expect(refused.stderr).toContain('cannot be reached');
      expect(refused.stderr).not.toContain('hunter2secret');
    }
  }, 90_000);
});
