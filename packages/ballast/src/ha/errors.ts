/**
 * Errors of the leader lease (docs/ha.md). Codes are in the store family because the lease lives in the
 * PostgreSQL store and fences its writes.
 */
import { BallastError } from '@ballast/protocol/core/errors.ts';

/** What the fencing check found instead of our lease. */
export interface LeaseFound {
  /** Owner in the lease row, or null when there is no row. */
  owner: string | null;
  /** Epoch in the lease row, or null when there is no row. */
  epoch: bigint | null;
  /** Whether the row's `expires_at` was still ahead of the database clock. */
  live: boolean;
}

/**
 * The caller no longer holds the lease it acts under (code `STORE_LEASE_LOST`): another replica took it (a
 * higher epoch), or it expired on the database clock, or it was released, or the caller's own replica holds it
 * again but in a later term than the one the work began in (src/app/leaderGuard.ts). Raised by `assertLeaseHeld` inside
 * the transaction that was about to write ahead; roll that transaction back and stop acting: nothing may be
 * signed under a lost lease. Leadership is decided again by the elector.
 */
export class LeaseLostError extends BallastError {
  readonly code = 'STORE_LEASE_LOST' as const;
  /** Lease name (e.g. `ballast`). */
  readonly lease: string;
  /** Owner we claimed to be. */
  readonly owner: string;
  /** Epoch we claimed to hold. */
  readonly epoch: bigint;
  /** What the lease row said. */
  readonly found: LeaseFound;

  constructor(lease: string, owner: string, epoch: bigint, found: LeaseFound) {
    const laterTerm = found.owner === owner && found.epoch !== null && found.epoch !== epoch;
    const what =
      found.owner === null
        ? 'no lease row exists'
        : laterTerm
          ? `this replica holds it again, but in a later term (epoch ${String(found.epoch)})`
          : found.owner !== owner || found.epoch !== epoch
            ? `it is held by ${found.owner} at epoch ${String(found.epoch)}`
            : 'it expired on the database clock';
    super(
      `leader lease "${lease}" is not held by ${owner} at epoch ${String(epoch)}: ${what}; the write was refused ` +
        (laterTerm
          ? '(work begun in an earlier term never writes ahead or broadcasts; the current term plans afresh)'
          : '(this replica is not the leader; it acts again only after winning the lease)'),
    );
    this.lease = lease;
    this.owner = owner;
    this.epoch = epoch;
    this.found = found;
  }
}

/**
 * Leader lease options or arguments are malformed (code `STORE_LEASE_INVALID`); the message names the field
 * and the allowed range. Fix the configuration (`ttlMs`, `renewEveryMs`, `marginMs`, lease name, owner).
 */
export class LeaseOptionsError extends BallastError {
  readonly code = 'STORE_LEASE_INVALID' as const;
  /** The offending field. */
  readonly field: string;

  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.field = field;
  }
}

/**
 * A write-ahead was attempted while this process does not lead (code `STORE_NOT_LEADER`): its elector has no
 * current term (never won, or the term ended at its deadline, on a takeover or at shutdown). Nothing was
 * written and nothing may be signed; the process acts again only after winning the lease.
 */
export class NotLeaderError extends BallastError {
  readonly code = 'STORE_NOT_LEADER' as const;

  constructor(readonly store: string) {
    super(
      `this replica does not hold the leader lease of ${store}; the write-ahead was refused and nothing will be signed (only the leader acts; it takes over when the lease is free)`,
    );
  }
}
