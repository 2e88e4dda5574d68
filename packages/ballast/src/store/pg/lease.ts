/**
 * The leader lease in PostgreSQL (docs/ha.md): one row per lease name in `leader_lease`, taken, renewed and
 * released by single statements on the database's clock (`now()`), never the client's, and a fencing check
 * that holds the row locked until the caller's transaction ends.
 *
 * - {@link tryAcquireLease}: renews the lease when we hold it at the epoch we present and it has not expired
 *   (same epoch), or takes it when it is free or expired (epoch + 1, our owner); otherwise changes nothing
 *   and reports the holder. One `INSERT … ON CONFLICT DO UPDATE … WHERE` statement, so two replicas racing
 *   cannot both win: the second waits for the first's row lock and re-checks the row it then sees.
 * - {@link assertLeaseHeld}: `SELECT … FOR SHARE` inside the caller's transaction. The shared row lock
 *   conflicts with the takeover's row update, so once the check passed no one can take the lease until the
 *   transaction commits or rolls back: a write-ahead row committed with it was written under our lease.
 * - {@link releaseLease}: sets `expires_at = now()` so a follower takes over at its next attempt.
 */
import type pg from 'pg';
import { LeaseLostError, LeaseOptionsError } from '../../ha/errors.ts';
import { rowShape } from '../rowColumns.ts';

/**
 * DDL of the lease table, idempotent. Run through {@link ensureLeaseTable} by `migratePostgres`
 * (src/store/pg/migrate.ts) after the numbered migrations, and by the elector's `ensureTable` option.
 */
export const LEASE_DDL = `CREATE TABLE IF NOT EXISTS leader_lease (
  name        text PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 200),
  owner       text NOT NULL CHECK (length(owner) BETWEEN 1 AND 200),
  epoch       bigint NOT NULL CHECK (epoch >= 1),
  acquired_at timestamptz NOT NULL,
  renewed_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL
)`;

/** Anything that runs a query: a `pg.Pool`, `pg.Client` or pooled client. */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<pg.QueryResult>;
}

/** A lease as claimed by one replica. */
export interface LeaseClaim {
  /** Lease name, 1–200 characters (one per group of replicas acting on one treasury, e.g. `ballast`). */
  name: string;
  /** Owner id, unique per process incarnation, 1–200 characters. */
  owner: string;
}

/** Outcome of {@link tryAcquireLease}. */
export interface LeaseStatus {
  /** True when the statement renewed or took the lease for us. */
  held: boolean;
  /** Current holder (us when held), or null when no row exists. */
  owner: string | null;
  /** Current epoch (ours when held), or null when no row exists. */
  epoch: bigint | null;
  /** Expiry on the database clock, or null when no row exists. */
  expiresAt: Date | null;
}

/** A lease row as stored. */
export interface LeaseRow {
  name: string;
  owner: string;
  epoch: bigint;
  acquiredAt: Date;
  renewedAt: Date;
  expiresAt: Date;
}

/**
 * A `leader_lease` row as read by {@link readLease}: every column, `epoch` selected as text (`epoch::text`, exact
 * beyond 2^53), times as `Date`. Query results are cast to it unchecked; {@link LEASE_ROW} ties it to the
 * migrated PostgreSQL schema (test/unit/store/rowTypes.test.ts).
 */
interface LeaseDbRow {
  name: string;
  owner: string;
  epoch: string;
  acquired_at: Date;
  renewed_at: Date;
  expires_at: Date;
}

/** Columns of {@link LeaseDbRow}: every column of `leader_lease` (PostgreSQL only). */
export const LEASE_ROW = rowShape<LeaseDbRow>({
  name: 'LeaseDbRow',
  table: 'leader_lease',
  allColumns: true,
  columns: {
    name: 'text',
    owner: 'text',
    epoch: 'integer_text',
    acquired_at: 'timestamptz',
    renewed_at: 'timestamptz',
    expires_at: 'timestamptz',
  },
  engines: ['postgres'],
});

function checkClaim(claim: LeaseClaim): void {
  for (const field of ['name', 'owner'] as const) {
    const v = claim[field];
    if (typeof v !== 'string' || v.length < 1 || v.length > 200) {
      throw new LeaseOptionsError(`lease.${field}`, 'must be a string of 1 to 200 characters');
    }
  }
}

function parseEpoch(v: unknown): bigint {
  if (typeof v !== 'string' || !/^[0-9]+$/.test(v)) throw new Error(`leader_lease.epoch: unexpected value ${String(v)}`);
  return BigInt(v);
}

/**
 * Creates `leader_lease` when missing ({@link LEASE_DDL}). Two callers racing both succeed.
 * @throws the driver's error for anything but the race (no permission, database unreachable)
 */
export async function ensureLeaseTable(q: PgQueryable): Promise<void> {
  try {
    await q.query(LEASE_DDL);
  } catch (err) {
    // Concurrent CREATE TABLE IF NOT EXISTS: the loser sees a duplicate type/table; the table exists.
    const code = (err as { code?: unknown }).code; // driver errors carry the SQLSTATE in `code`
    if (code !== '23505' && code !== '42P07') throw err;
  }
}

const ACQUIRE_SQL = `
WITH attempt AS (
  INSERT INTO leader_lease AS l (name, owner, epoch, acquired_at, renewed_at, expires_at)
  VALUES ($1, $2, 1, now(), now(), now() + $3::integer * interval '1 millisecond')
  ON CONFLICT (name) DO UPDATE SET
    owner = EXCLUDED.owner,
    epoch = CASE WHEN l.owner = EXCLUDED.owner AND l.epoch = $4::bigint AND l.expires_at > now()
                 THEN l.epoch ELSE l.epoch + 1 END,
    acquired_at = CASE WHEN l.owner = EXCLUDED.owner AND l.epoch = $4::bigint AND l.expires_at > now()
                       THEN l.acquired_at ELSE now() END,
    renewed_at = now(),
    expires_at = EXCLUDED.expires_at
  WHERE (l.owner = EXCLUDED.owner AND l.epoch = $4::bigint) OR l.expires_at <= now()
  RETURNING l.owner, l.epoch, l.expires_at
)
SELECT owner, epoch::text AS epoch, expires_at, true AS held FROM attempt
UNION ALL
SELECT owner, epoch::text AS epoch, expires_at, false AS held FROM leader_lease
 WHERE name = $1 AND NOT EXISTS (SELECT 1 FROM attempt)`;

/**
 * Renews or takes the lease in one statement on the database clock.
 *
 * @param claim lease name and our owner id
 * @param ttlMs lifetime from the database's `now()`, ms (integer > 0)
 * @param epoch the epoch we hold and want to renew, or null to take the lease only when it is free or
 *   expired. Presenting our epoch of an expired lease takes it again at epoch + 1.
 * @returns `held` with our epoch and expiry, or the current holder
 * @throws LeaseOptionsError on a bad claim or ttl; the driver's error when the database cannot be reached
 */
export async function tryAcquireLease(q: PgQueryable, claim: LeaseClaim, ttlMs: number, epoch: bigint | null): Promise<LeaseStatus> {
  checkClaim(claim);
  if (!Number.isInteger(ttlMs) || ttlMs <= 0) throw new LeaseOptionsError('ttlMs', `must be a positive integer, got ${ttlMs}`);
  const r = await q.query(ACQUIRE_SQL, [claim.name, claim.owner, ttlMs, epoch === null ? null : epoch.toString()]);
  const row = r.rows[0] as { owner: string; epoch: string; expires_at: Date; held: boolean } | undefined; // shape of ACQUIRE_SQL's select list
  if (!row) return { held: false, owner: null, epoch: null, expiresAt: null };
  return { held: row.held, owner: row.owner, epoch: parseEpoch(row.epoch), expiresAt: row.expires_at };
}

/**
 * Gives the lease up at once (`expires_at = now()`) when we still hold it at `epoch`.
 * @returns true when our lease was released; false when it was not ours any more (nothing changed)
 */
export async function releaseLease(q: PgQueryable, claim: LeaseClaim, epoch: bigint): Promise<boolean> {
  checkClaim(claim);
  const r = await q.query(
    `UPDATE leader_lease SET expires_at = now(), renewed_at = now()
      WHERE name = $1 AND owner = $2 AND epoch = $3::bigint AND expires_at > now()`,
    [claim.name, claim.owner, epoch.toString()],
  );
  return r.rowCount === 1;
}

/** Reads the lease row, or null when there is none (for status output and tests). */
export async function readLease(q: PgQueryable, name: string): Promise<LeaseRow | null> {
  const r = await q.query(
    'SELECT name, owner, epoch::text AS epoch, acquired_at, renewed_at, expires_at FROM leader_lease WHERE name = $1',
    [name],
  );
  const row = r.rows[0] as LeaseDbRow | undefined; // the select list above, checked by LEASE_ROW
  if (!row) return null;
  return {
    name: row.name,
    owner: row.owner,
    epoch: parseEpoch(row.epoch),
    acquiredAt: row.acquired_at,
    renewedAt: row.renewed_at,
    expiresAt: row.expires_at,
  };
}

/**
 * Fencing check: inside the caller's open transaction, locks the lease row (`FOR SHARE`) and checks that
 * `owner` holds it at `epoch` and that it has not expired on the database clock (`clock_timestamp()`, the
 * time of the check itself). The lock is held until the transaction ends, and a takeover's update of the
 * row waits for it, so the lease cannot change hands before this transaction commits.
 *
 * It also records the token in transaction-local settings (`ballast.fence_name`, `ballast.fence_owner`,
 * `ballast.fence_epoch`) for the fenced COMMIT, which checks the lease again (src/store/pg/pgTransaction.ts).
 *
 * Must run on a client inside `BEGIN … COMMIT` (outside one the lock ends with the statement); see
 * `withFencedTransaction` (src/store/pg/pgTransaction.ts).
 * @throws LeaseLostError (`STORE_LEASE_LOST`) when the lease is not ours at that epoch or has expired
 */
export async function assertLeaseHeld(client: PgQueryable, name: string, owner: string, epoch: bigint): Promise<void> {
  const r = await client.query(
    `SELECT owner, epoch::text AS epoch, expires_at > clock_timestamp() AS live,
            set_config('ballast.fence_name', $1, true), set_config('ballast.fence_owner', $2, true),
            set_config('ballast.fence_epoch', $3, true)
       FROM leader_lease WHERE name = $1 FOR SHARE`,
    [name, owner, epoch.toString()],
  );
  const row = r.rows[0] as { owner: string; epoch: string; live: boolean } | undefined; // shape of the select list
  const found = row ? { owner: row.owner, epoch: parseEpoch(row.epoch), live: row.live } : { owner: null, epoch: null, live: false };
  if (!row || found.owner !== owner || found.epoch !== epoch || !found.live) {
    throw new LeaseLostError(name, owner, epoch, found);
  }
}

/** The lease a fenced transaction runs under. */
export interface FencingToken extends LeaseClaim {
  /** Epoch of our term. */
  epoch: bigint;
}
