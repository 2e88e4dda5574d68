/**
 * Live progress of `ballast run --once` and `ballast transfer` (src/cycle/progressEvent.ts). On a terminal each
 * transfer has one line rewritten in place as it moves planned → quoted → verified → deposited → filled (or its end
 * state); while it waits for its fill the line shows the time since the deposit, redrawn every second; a log line
 * written meanwhile (through {@link ProgressRenderer.logStream}) clears the open line first and redraws it after, so
 * the two never run into each other. On a pipe or file every stage is a plain line of its own.
 *
 * A transfer is named by its id in the store (`#4`, as `history`, `resume` and `withdraw` name it) from the
 * moment it is written ahead of signing; before that it has no id and is named by its route and amount. Amounts are
 * whole units with the asset symbol. An end state is worded by the stage the transfer reached
 * (src/core/transferStage.ts): a transfer left in flight after its deposit is "deposited, not yet filled", one left
 * before it "signed, not yet deposited", never "done".
 */
import { Writable } from 'node:stream';
import { END_STAGES, type ProgressSink, type TransferProgressEvent, type TransferStage } from '../cycle/progressEvent.ts';
import { formatAmount } from './format.ts';

/** Where progress is written: a writable stream; `isTTY` true selects the live view. */
export interface ProgressStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

/** The happy path, in order, as the live view shows it. */
const PATH: readonly TransferStage[] = ['planned', 'quoted', 'verified', 'deposited', 'filled'];

/** End states that are not failures, shown without a mark: checked, still in flight, left to the new leader. */
const UNMARKED: readonly TransferStage[] = ['checked', 'in_flight', 'handed_over'];

/** End states worded by the stage they mean (the others, and the path's stages, are shown by their name). */
const END_WORDS: Partial<Readonly<Record<TransferStage, string>>> = {
  checked: 'checked (quoted and verified; nothing signed in plan mode)',
  failed: 'deposited, not filled (failed)',
  origin_failed: 'origin transaction failed, nothing deposited',
};

/** How often the live line of a transfer waiting for its fill is redrawn with the time since its deposit, ms. */
export const ELAPSED_REDRAW_MS = 1_000;

/**
 * The words of `stage`: an end state by the stage it means; `in_flight` by whether the transfer was seen
 * deposited (`reached`, the last stage of the happy path it reached).
 */
export function stageWords(stage: TransferStage, reached?: TransferStage): string {
  if (stage === 'in_flight') return reached === 'deposited' ? 'deposited, not yet filled' : 'signed, not yet deposited';
  return END_WORDS[stage] ?? stage;
}

/** Clears the terminal line and returns the cursor to its start (ANSI CSI 2K). */
const CLEAR_LINE = '\r\u001b[2K';

/**
 * A duration for people: `12 s`, `3 min 05 s`, `1 h 02 min`.
 *
 * @param ms milliseconds (negative counts as 0)
 */
export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const pad = (n: number) => String(n).padStart(2, '0');
  if (s < 3600) return `${Math.floor(s / 60)} min ${pad(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${pad(Math.floor((s % 3600) / 60))} min`;
}

/**
 * The transfer, route and amount: `#4 USDC base → arbitrum 100.5 USDC` once it has its id in the store, else
 * `USDC base → arbitrum 100.5 USDC`.
 *
 * @param transferId its id in the store when known (the event's own, else one an earlier event of it carried)
 */
export function describeTransfer(e: TransferProgressEvent, transferId: number | undefined = e.transferId): string {
  const id = transferId !== undefined ? `#${transferId} ` : '';
  return `${id}${e.asset} ${e.originChain} → ${e.destinationChain} ${formatAmount(e.amountIn, e.decimalsIn)} ${e.asset}`;
}

/** What a line knows beyond its event: the stage reached before, the store id, the time since the deposit. */
export interface LineContext {
  /** The last stage of the happy path this transfer reached before (words `in_flight`). */
  reached?: TransferStage;
  /** Its id in the store, when an earlier event carried it. */
  transferId?: number;
  /** Ms since its deposit, for a transfer that was seen deposited. */
  sinceDepositMs?: number;
}

/**
 * One plain line for an event: `#4 USDC base → arbitrum 100.5 USDC: filled (at least 100.2 USDC), 42 s after the
 * deposit`.
 */
export function plainProgressLine(e: TransferProgressEvent, at: LineContext = {}): string {
  const min = e.minOut !== undefined ? ` (at least ${formatAmount(e.minOut, e.decimalsOut)} ${e.asset})` : '';
  const detail = e.detail ? `: ${e.detail}` : '';
  const waited =
    at.sinceDepositMs !== undefined && e.stage !== 'deposited' && END_STAGES.includes(e.stage)
      ? `, ${formatElapsed(at.sinceDepositMs)} after the deposit`
      : '';
  return `${describeTransfer(e, e.transferId ?? at.transferId)}: ${stageWords(e.stage, at.reached)}${e.stage === 'planned' ? '' : min}${detail}${waited}`;
}

/**
 * The live line: the stages reached so far joined by arrows, an end state marked; while deposited, the time
 * waited for the fill (`… → deposited, waiting for the fill 12 s`), and once filled the time it took.
 */
export function liveProgressLine(e: TransferProgressEvent, at: LineContext = {}): string {
  const index = PATH.indexOf(e.stage);
  const words = `${stageWords(e.stage, at.reached)}${e.detail ? ` (${e.detail})` : ''}`;
  const steps = index >= 0 ? PATH.slice(0, index + 1).join(' → ') : words;
  const min = e.minOut !== undefined && e.stage !== 'planned' ? `, at least ${formatAmount(e.minOut, e.decimalsOut)} ${e.asset}` : '';
  const mark = e.stage === 'filled' ? '✓ ' : index < 0 && !UNMARKED.includes(e.stage) ? '✗ ' : '';
  const since = at.sinceDepositMs === undefined ? '' : formatElapsed(at.sinceDepositMs);
  const waited =
    since === ''
      ? ''
      : e.stage === 'deposited'
        ? `, waiting for the fill ${since}`
        : END_STAGES.includes(e.stage)
          ? `, ${since} after the deposit`
          : '';
  return `${mark}${describeTransfer(e, e.transferId ?? at.transferId)}${min}: ${steps}${waited}`;
}

/** What the renderer returns. */
export interface ProgressRenderer {
  /** The sink to hand to the cycle (`CreateBallastOptions.progress`). */
  sink: ProgressSink;
  /** Ends a live line left open and stops its redraws (call after the cycle). */
  finish: () => void;
  /**
   * The stream to give the logger instead of `dest` (stderr): on a terminal, a log line clears the open progress
   * line first and redraws it after; otherwise `dest` itself.
   */
  logStream: (dest: NodeJS.WritableStream & { isTTY?: boolean }) => NodeJS.WritableStream;
}

/** The clock and the timer of the live view (tests pass their own). */
export interface ProgressClock {
  /** Ms since the epoch; default `Date.now`. */
  now?: () => number;
  /** Calls `fn` every `ms` until the returned function is called; default an unref'd `setInterval`. */
  every?: (ms: number, fn: () => void) => () => void;
}

function everyInterval(ms: number, fn: () => void): () => void {
  const timer = setInterval(fn, ms);
  timer.unref(); // never keeps the process alive
  return () => clearInterval(timer);
}

/**
 * Creates the sink that renders progress on `stream`: live lines on a TTY, else one plain line per event.
 *
 * @returns the sink, `finish`, and `logStream` for the logger's destination
 */
export function createProgressRenderer(stream: ProgressStream, clock: ProgressClock = {}): ProgressRenderer {
  const now = clock.now ?? Date.now;
  const every = clock.every ?? everyInterval;
  const reached = new Map<number, TransferStage>(); // the last path stage of each plan id
  const ids = new Map<number, number>(); // the store id of each plan id, once known
  const depositedAt = new Map<number, number>(); // when each plan id was seen deposited, ms
  /** The line context of `e`, recording what it brings (its stage, its id, its deposit). */
  const contextOf = (e: TransferProgressEvent): LineContext => {
    const before = reached.get(e.planId);
    if (PATH.includes(e.stage)) reached.set(e.planId, e.stage);
    if (e.transferId !== undefined) ids.set(e.planId, e.transferId);
    if (e.stage === 'deposited' && !depositedAt.has(e.planId)) depositedAt.set(e.planId, e.atMs);
    const deposit = depositedAt.get(e.planId);
    const transferId = ids.get(e.planId);
    return {
      ...(before !== undefined ? { reached: before } : {}),
      ...(transferId !== undefined ? { transferId } : {}),
      ...(deposit !== undefined ? { sinceDepositMs: (END_STAGES.includes(e.stage) ? e.atMs : now()) - deposit } : {}),
    };
  };
  if (!stream.isTTY) {
    return {
      sink: (e) => void stream.write(`${plainProgressLine(e, contextOf(e))}\n`),
      finish: () => {},
      logStream: (dest) => dest,
    };
  }
  /** The transfer whose line is open (no line end written yet), with its last event. */
  let open: TransferProgressEvent | null = null;
  let stopRedraw: (() => void) | null = null;
  const openLine = (): string => {
    if (!open) return '';
    const deposit = depositedAt.get(open.planId);
    const transferId = ids.get(open.planId);
    // An open line is on the happy path (an end state closes it), so it needs no earlier stage for its words.
    return liveProgressLine(open, {
      ...(transferId !== undefined ? { transferId } : {}),
      ...(deposit !== undefined ? { sinceDepositMs: now() - deposit } : {}),
    });
  };
  const redraw = () => {
    if (open) stream.write(`${CLEAR_LINE}${openLine()}`);
  };
  const stopTimer = () => {
    stopRedraw?.();
    stopRedraw = null;
  };
  const sink: ProgressSink = (e) => {
    if (open !== null && open.planId !== e.planId) {
      stream.write('\n');
      stopTimer();
    }
    const line = liveProgressLine(e, contextOf(e));
    stream.write(`${CLEAR_LINE}${line}`);
    if (END_STAGES.includes(e.stage)) {
      stream.write('\n');
      open = null;
      stopTimer();
    } else {
      open = e;
      // Waiting for the fill: the time since the deposit keeps counting on screen.
      if (e.stage === 'deposited' && stopRedraw === null) stopRedraw = every(ELAPSED_REDRAW_MS, redraw);
    }
  };
  const logStream = (dest: NodeJS.WritableStream & { isTTY?: boolean }): NodeJS.WritableStream => {
    const through = new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        if (open) stream.write(CLEAR_LINE);
        dest.write(chunk);
        redraw();
        done();
      },
    });
    // The logger colours its lines when its destination is a terminal (src/log/logger.ts).
    return Object.assign(through, { isTTY: dest.isTTY === true });
  };
  return {
    sink,
    finish: () => {
      if (open !== null) stream.write('\n');
      open = null;
      stopTimer();
    },
    logStream,
  };
}
