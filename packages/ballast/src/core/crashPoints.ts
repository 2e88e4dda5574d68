/**
 * Named step boundaries of the money path, for fault injection. Production code calls {@link crashPoint} at
 * every boundary where a process death must be survivable (after the write-ahead row, after a broadcast, after
 * a receipt…). Nothing happens unless a handler is armed: the CLI arms one from `BALLAST_CRASH_AT`
 * (src/config/crashAt.ts) that SIGKILLs the process, so the crash-recovery suite can kill a real run at an exact
 * boundary; in-process model tests arm one that throws.
 *
 * Pure module state, no I/O of its own.
 */

/** Every boundary, in the order one transfer passes them. */
export const CRASH_POINTS = [
  /** The cycle row is written; nothing read yet. */
  'cycle:started',
  /** In-flight transfers were refreshed (reconciled, re-checked for reorgs, statuses read). */
  'cycle:refreshed',
  /** The plan is recorded; no quote asked yet. */
  'cycle:planned',
  /** A quote is recorded; fee policy and verification not run yet. */
  'quote:recorded',
  /** The verdict is recorded; nothing signed yet. */
  'quote:verified',
  /** A transaction is signed in memory; nothing written ahead, nothing sent. */
  'tx:signed',
  /** A signed transaction is written ahead (committed); not broadcast yet. */
  'tx:written',
  /** The node accepted the broadcast; the store does not say `sent` yet. */
  'tx:sent',
  /** The store says `sent` (and the transfer `broadcast`); the receipt is not awaited yet. */
  'tx:recorded-sent',
  /** The receipt arrived; the store does not say `confirmed` yet. */
  'tx:mined',
  /** The store says `confirmed`; the next item is not signed yet. */
  'tx:confirmed',
  /** The transfer is `deposited`; tracking has not started. */
  'transfer:deposited',
  /** A request status was written while tracking. */
  'track:status',
  /** The transfer reached a final status. */
  'transfer:final',
  /** Reconciliation moved a transfer (found its deposit, failed it, re-sent a transaction). */
  'reconcile:moved',
  /** A replacement ending an unwanted deposit is written ahead; not broadcast yet. */
  'cancel:written',
] as const;

/** One step boundary. */
export type CrashPoint = (typeof CRASH_POINTS)[number];

/** Called at every boundary passed while armed; `hit` counts passes of that boundary since arming (1-based). */
export type CrashHandler = (point: CrashPoint, hit: number) => void;

let handler: CrashHandler | null = null;
const hits = new Map<CrashPoint, number>();

/**
 * Arms a handler (or disarms with null) and resets the hit counts. The handler may throw or end the process;
 * whatever it throws propagates from the boundary.
 */
export function armCrashPoints(h: CrashHandler | null): void {
  handler = h;
  hits.clear();
}

/** Marks a step boundary. A no-op unless a handler is armed. */
export function crashPoint(point: CrashPoint): void {
  if (handler === null) return;
  const hit = (hits.get(point) ?? 0) + 1;
  hits.set(point, hit);
  handler(point, hit);
}

/**
 * Parses a crash target `<point>` or `<point>#<n>` (the n-th pass of that boundary, default 1).
 *
 * @throws Error naming the accepted points when the text is not one
 */
export function parseCrashTarget(text: string): { point: CrashPoint; hit: number } {
  const m = /^([a-z:-]+)(?:#([1-9][0-9]*))?$/.exec(text.trim());
  const point = m?.[1] as CrashPoint | undefined; // checked against CRASH_POINTS just below
  if (!m || !point || !CRASH_POINTS.includes(point)) {
    throw new Error(`BALLAST_CRASH_AT=${JSON.stringify(text)} is not <point>[#n] with a point among: ${CRASH_POINTS.join(', ')}`);
  }
  return { point, hit: m[2] === undefined ? 1 : Number(m[2]) };
}
