/**
 * One PostgreSQL transaction on a connection checked out of a pool (docs/ha.md "Partitions"):
 *
 * - the checked-out client has an `error` listener for as long as it is held: node-postgres reports a reset or a
 *   server-side termination of a held connection as an `error` event on the client, which with no listener ends
 *   the process;
 * - a lost connection rejects the transaction with {@link StoreConnectionError} saying whether it may have
 *   committed, and the connection is dropped from the pool instead of being reused;
 * - a fenced transaction (a write-ahead: {@link fenceTransaction}) runs under server-side limits (`SET LOCAL`
 *   statement, lock and idle-in-transaction timeouts), so a leader cut off mid-write cannot keep the lease row
 *   locked past them, and commits with {@link FENCED_COMMIT_SQL}: the lease is checked again on the database
 *   clock in the same message as the COMMIT, so a write-ahead cannot commit after the lease expired.
 */
import type pg from 'pg';
import { LeaseLostError } from '../../ha/errors.ts';
import { StoreConnectionError, type StoreConnectionPhase } from '../errors.ts';
import { assertLeaseHeld, type FencingToken } from './lease.ts';

/** SQLSTATE raised by {@link FENCED_COMMIT_SQL} when the lease expired before the COMMIT. */
export const FENCE_EXPIRED_SQLSTATE = 'BL001';

/**
 * The COMMIT of a fenced transaction, sent as one simple-query message: a `DO` block checks that the lease named
 * by the fencing settings ({@link assertLeaseHeld} set them with the row lock) is still ours and unexpired on the
 * database clock, then `COMMIT` runs in the same message. When the check raises, the rest of the message is
 * skipped and the transaction stays aborted (the caller rolls it back). When a rolled-back savepoint undid the
 * settings, nothing fenced is left to commit and the check passes.
 */
export const FENCED_COMMIT_SQL = `DO $fence$
BEGIN
  IF coalesce(current_setting('ballast.fence_name', true), '') <> '' AND NOT EXISTS (
    SELECT 1 FROM leader_lease
     WHERE name = current_setting('ballast.fence_name')
       AND owner = current_setting('ballast.fence_owner')
       AND epoch = current_setting('ballast.fence_epoch')::bigint
       AND expires_at > clock_timestamp()) THEN
    RAISE EXCEPTION 'leader lease % expired before the write-ahead committed', current_setting('ballast.fence_name')
      USING ERRCODE = '${FENCE_EXPIRED_SQLSTATE}';
  END IF;
END
$fence$; COMMIT`;

/** A connection held for one transaction. */
export interface HeldConnection {
  readonly client: pg.PoolClient;
  /** The token of the fencing check that ran in this transaction, if one did (its COMMIT is fenced). */
  fence: FencingToken | null;
}

/** SQLSTATE classes and codes that mean the session is gone: connection exceptions, shutdowns, FATAL timeouts. */
function sessionGone(code: string): boolean {
  return code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '25P03' || code === '57P05';
}

/** Messages node-postgres uses for a connection that ended or never answered (its errors carry no code). */
const DRIVER_LOSS =
  /Connection terminated|not queryable|Query read timeout|timeout exceeded when trying to connect|Connection terminated due to connection timeout/;

/**
 * Whether an error means the connection was lost rather than a statement refused: a socket error
 * (`ECONNRESET`, `EPIPE`…), node-postgres' own "connection terminated" and timeout errors, or a server error
 * whose SQLSTATE ends the session (class 08, admin/crash shutdown, idle-in-transaction or idle-session timeout).
 */
export function isConnectionLoss(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code; // net errors: E*; pg server errors: the SQLSTATE
  if (typeof code === 'string') {
    if (/^E[A-Z]+$/.test(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code)) return sessionGone(code);
  }
  return DRIVER_LOSS.test(err.message);
}

/**
 * Wraps a connection loss in {@link StoreConnectionError}; anything else is returned unchanged.
 *
 * @param location the store URL without its password
 * @param phase when it struck
 * @param err the error thrown
 * @param lost the error the held client reported through its `error` event, if any
 */
export function connectionError(location: string, phase: StoreConnectionPhase, err: unknown, lost?: Error): unknown {
  if (err instanceof StoreConnectionError) return err;
  if (lost !== undefined || isConnectionLoss(err)) return new StoreConnectionError(location, phase, lost ?? err);
  return err;
}

/** Options of {@link runPgTransaction}. */
export interface PgTransactionOptions {
  /** The store URL without its password, for messages. */
  location: string;
}

/**
 * Runs `work` between `BEGIN` and `COMMIT` on one connection of `pool`, rolled back when `work` throws.
 *
 * @returns what `work` returns, after the COMMIT
 * @throws StoreConnectionError (`STORE_CONNECTION_LOST`) when the connection could not be opened or was lost
 *   (phase `commit` when the COMMIT got no answer); LeaseLostError when a fenced COMMIT found the lease expired
 *   (rolled back); any error of `work` (rolled back)
 */
export async function runPgTransaction<T>(pool: pg.Pool, o: PgTransactionOptions, work: (held: HeldConnection) => Promise<T>): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    throw connectionError(o.location, 'connect', err);
  }
  let lost: Error | undefined;
  const onError = (err: Error): void => {
    lost ??= err; // the pending or next statement fails too; it is reported there
  };
  client.on('error', onError);
  const held: HeldConnection = { client, fence: null };
  let phase: 'transaction' | 'commit' = 'transaction';
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const out = await work(held);
    phase = 'commit';
    await client.query(held.fence ? FENCED_COMMIT_SQL : 'COMMIT');
    return out;
  } catch (err) {
    const refusedAtCommit = (err as { code?: unknown }).code === FENCE_EXPIRED_SQLSTATE; // an error response: the session lives
    if (phase === 'transaction' || refusedAtCommit) {
      await client.query('ROLLBACK').catch((rollbackErr: unknown) => {
        broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr));
      });
    } else {
      broken = err instanceof Error ? err : new Error(String(err)); // COMMIT failed: the connection's state is unknown
    }
    if (refusedAtCommit && held.fence && lost === undefined) {
      const f = held.fence;
      throw new LeaseLostError(f.name, f.owner, f.epoch, { owner: f.owner, epoch: f.epoch, live: false });
    }
    throw connectionError(o.location, refusedAtCommit ? 'transaction' : phase, err, lost);
  } finally {
    client.removeListener('error', onError);
    client.release(lost ?? broken);
  }
}

/**
 * Makes the transaction on `held` a fenced one: sets its server-side limits (`SET LOCAL statement_timeout`,
 * `lock_timeout` and `idle_in_transaction_session_timeout` to `limitMs`), then locks the lease row and checks it
 * ({@link assertLeaseHeld}); from then on its COMMIT is {@link FENCED_COMMIT_SQL}.
 *
 * @param limitMs the limit of every statement, lock wait and idle gap of the rest of the transaction, ms (integer
 *   ≥ 1), or null to leave the session's own
 * @throws LeaseLostError (`STORE_LEASE_LOST`) when the lease is not ours at that epoch or has expired
 */
export async function fenceTransaction(held: HeldConnection, token: FencingToken, limitMs: number | null): Promise<void> {
  if (limitMs !== null) {
    if (!Number.isSafeInteger(limitMs) || limitMs < 1)
      throw new RangeError(`fenced transaction limit: expected a whole number of ms ≥ 1, got ${limitMs}`);
    await held.client.query(
      `SET LOCAL statement_timeout = ${limitMs}; SET LOCAL lock_timeout = ${limitMs}; SET LOCAL idle_in_transaction_session_timeout = ${limitMs}`,
    );
  }
  await assertLeaseHeld(held.client, token.name, token.owner, token.epoch);
  held.fence = token;
}

/**
 * Runs `work` in a fenced transaction on a connection of `pool` ({@link fenceTransaction}, then
 * {@link FENCED_COMMIT_SQL}): whatever `work` writes commits only under our lease (the write-ahead row before a
 * signature belongs here).
 *
 * @param limitMs see {@link fenceTransaction}; null keeps the session's limits
 * @returns what `work` returns, after COMMIT
 * @throws LeaseLostError before `work` runs when the lease is not ours, or at COMMIT when it expired meanwhile;
 *   StoreConnectionError when the connection was lost; any error of `work` (rolled back)
 */
export async function withFencedTransaction<T>(
  pool: pg.Pool,
  token: FencingToken,
  work: (client: pg.PoolClient) => Promise<T>,
  o: { location?: string; limitMs?: number | null } = {},
): Promise<T> {
  return runPgTransaction(pool, { location: o.location ?? 'postgres' }, async (held) => {
    await fenceTransaction(held, token, o.limitMs ?? null);
    return work(held.client);
  });
}
