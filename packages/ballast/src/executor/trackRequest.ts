/**
 * Polls a request's status until it is terminal or a deadline passes (docs/relay-contract.md "GET /intents/status/v3": poll
 * about once per second, or use the step item's `check.endpoint`). Statuses pushed by webhooks (docs/relay-contract.md
 * "Events" → "Webhooks") can end a wait early: between two reads the tracker awaits them instead of sleeping, and
 * handles a pushed status like one it read.
 */
import { isTerminalRequestStatus, type IntentStatus, type TerminalRequestStatus } from '@ballast/protocol/relay/schemas.ts';
import { ABORTED, raceAbort } from '../core/abortable.ts';

/** Inputs of {@link trackRequest}. Times in milliseconds; `now` and `sleep` are injected for testability. */
export interface TrackRequestOptions {
  /**
   * Fetches the current status (the Relay client's getStatus bound to the request). `signal` aborts when the
   * tracking time is up or `signal` below aborts: the call should stop its own retries then. Tracking ends on
   * time either way, even when a call ignores the signal.
   */
  getStatus: (signal: AbortSignal) => Promise<IntentStatus>;
  /**
   * Called on every status that differs from the previous one (including the first); `source` says whether it
   * was read from the status endpoint or pushed by a webhook. A Promise it returns (a store write) is awaited
   * before tracking goes on; its rejection ends tracking with that error.
   */
  onStatus: ((status: IntentStatus, source: StatusSource) => void) | ((status: IntentStatus, source: StatusSource) => Promise<void>);
  /**
   * Called for the first failed status read of a failing stretch (a read that succeeds ends the stretch), so
   * a status endpoint that keeps failing yields one warning, not one per poll; the loop keeps polling.
   */
  onError?: (error: unknown) => void;
  /**
   * Called once if the API still says `waiting` after `stuckWaitingMs` (e.g. to ask for a reindex). Failed reads
   * say nothing about indexing and never trigger it.
   */
  onStuckWaiting?: () => Promise<void>;
  stuckWaitingMs?: number;
  pollMs: number;
  timeoutMs: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** Aborts the wait early (graceful shutdown); the request stays in flight. */
  signal?: AbortSignal;
  /**
   * Whether a terminal status belongs to our deposit (e.g. its `inTxHashes` name our transaction). A terminal
   * status that does not is not accepted: `onForeignFinal` is called once and polling goes on.
   */
  isOurs?: (status: IntentStatus) => boolean;
  onForeignFinal?: (status: IntentStatus) => void;
  /**
   * Statuses pushed for this request (src/webhooks/statusFeed.ts). When given, the wait between reads is
   * `pushed.next(ms)` instead of `sleep(ms)`: a pushed status ends it and is handled in place of the next read.
   */
  pushed?: { next(waitMs: number, signal?: AbortSignal): Promise<IntentStatus | null> };
}

/** Where a status came from: the status endpoint (`poll`) or a verified webhook (`push`). */
export type StatusSource = 'poll' | 'push';

/** Outcome: the terminal status, or `null` when the deadline passed (the transfer stays in flight). */
export interface TrackRequestResult {
  final: TerminalRequestStatus | null;
  last: IntentStatus | null;
}

/**
 * Polls until `success`, `failure` or `refund`, or until `timeoutMs` elapses or `signal` aborts.
 *
 * @returns the terminal status and the last record seen; `final: null` on timeout or abort
 */
export async function trackRequest(opts: TrackRequestOptions): Promise<TrackRequestResult> {
  const started = opts.now();
  let last: IntentStatus | null = null;
  let askedReindex = false;
  let reportedForeign = false;
  let failing = false;
  let pushed: IntentStatus | null = null;
  for (;;) {
    if (opts.signal?.aborted) return { final: null, last };
    const read: Read = pushed
      ? { kind: 'ok', status: pushed, source: 'push' }
      : await readWithin(opts, Math.max(0, opts.timeoutMs - (opts.now() - started)));
    pushed = null;
    if (read.kind === 'out-of-time') return { final: null, last };
    if (read.kind === 'failed') {
      if (!failing) opts.onError?.(read.error);
      failing = true;
    } else {
      const status = read.status;
      failing = false;
      // Outside the read's try: a failure in the caller's handler is not a failed status read.
      if (!last || status.status !== last.status || status.txHashes.length !== last.txHashes.length) {
        await opts.onStatus(status, read.source);
      }
      last = status;
      if (isTerminalRequestStatus(status.status)) {
        if (!opts.isOurs || opts.isOurs(status)) return { final: status.status, last };
        if (!reportedForeign) opts.onForeignFinal?.(status);
        reportedForeign = true;
      }
    }
    const elapsed = opts.now() - started;
    if (
      !askedReindex &&
      opts.onStuckWaiting &&
      opts.stuckWaitingMs !== undefined &&
      elapsed >= opts.stuckWaitingMs &&
      last?.status === 'waiting'
    ) {
      askedReindex = true;
      await opts.onStuckWaiting().catch((error: unknown) => opts.onError?.(error));
    }
    if (elapsed >= opts.timeoutMs) return { final: null, last };
    const waitMs = Math.min(opts.pollMs, Math.max(0, opts.timeoutMs - elapsed));
    if (opts.pushed) pushed = await opts.pushed.next(waitMs, opts.signal);
    else await opts.sleep(waitMs);
  }
}

type Read = { kind: 'ok'; status: IntentStatus; source: StatusSource } | { kind: 'failed'; error: unknown } | { kind: 'out-of-time' };

/**
 * One status read bounded by the tracking time left (`leftMs`, real milliseconds) and the caller's signal: the
 * read's signal aborts at that time and the read is abandoned then even if it does not listen (a status endpoint
 * that hangs, or the client's own retries, cannot hold tracking open past `timeoutMs`).
 */
async function readWithin(opts: TrackRequestOptions, leftMs: number): Promise<Read> {
  const limit = new AbortController();
  const signal = opts.signal ? AbortSignal.any([limit.signal, opts.signal]) : limit.signal;
  const timer = setTimeout(() => limit.abort(), leftMs);
  try {
    const read = opts.getStatus(signal).then(
      (status): Read => ({ kind: 'ok', status, source: 'poll' }),
      (error: unknown): Read => ({ kind: 'failed', error }),
    );
    const result = await raceAbort(read, signal);
    // A read that failed because the window closed says nothing about the request.
    return result === ABORTED || (signal.aborted && result.kind === 'failed') ? { kind: 'out-of-time' } : result;
  } finally {
    clearTimeout(timer);
  }
}
