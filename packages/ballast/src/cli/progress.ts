/**
 * Live progress of `ballast run --once` (src/cycle/progressEvent.ts). On a terminal each transfer has one line
 * rewritten in place as it moves planned → quoted → verified → deposited → filled (or its end state); on a pipe
 * or file every stage is a plain line of its own. Amounts are whole units with the asset symbol. An end state is
 * worded by the stage the transfer reached (src/core/transferStage.ts): a transfer left in flight after its deposit
 * is "deposited, not yet filled", one left before it "signed, not yet deposited", never "done".
 */
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

/** The transfer, route and amount: `#3 USDC base → arbitrum 100.5 USDC`. */
export function describeTransfer(e: TransferProgressEvent): string {
  return `#${e.planId} ${e.asset} ${e.originChain} → ${e.destinationChain} ${formatAmount(e.amountIn, e.decimalsIn)} ${e.asset}`;
}

/**
 * One plain line for an event: `#3 USDC base → arbitrum 100.5 USDC: quoted (at least 100.2 USDC)`.
 *
 * @param reached the last stage of the happy path this transfer reached before (words `in_flight`)
 */
export function plainProgressLine(e: TransferProgressEvent, reached?: TransferStage): string {
  const min = e.minOut !== undefined ? ` (at least ${formatAmount(e.minOut, e.decimalsOut)} ${e.asset})` : '';
  const detail = e.detail ? `: ${e.detail}` : '';
  return `${describeTransfer(e)}: ${stageWords(e.stage, reached)}${e.stage === 'planned' ? '' : min}${detail}`;
}

/**
 * The live line: the stages reached so far joined by arrows, an end state marked.
 *
 * @param reached the last stage of the happy path this transfer reached before (words `in_flight`)
 */
export function liveProgressLine(e: TransferProgressEvent, reached?: TransferStage): string {
  const at = PATH.indexOf(e.stage);
  const words = `${stageWords(e.stage, reached)}${e.detail ? ` (${e.detail})` : ''}`;
  const steps = at >= 0 ? PATH.slice(0, at + 1).join(' → ') : words;
  const min = e.minOut !== undefined && e.stage !== 'planned' ? `, at least ${formatAmount(e.minOut, e.decimalsOut)} ${e.asset}` : '';
  const mark = e.stage === 'filled' ? '✓ ' : at < 0 && !UNMARKED.includes(e.stage) ? '✗ ' : '';
  return `${mark}${describeTransfer(e)}${min}: ${steps}`;
}

/**
 * Creates the sink that renders progress on `stream`: live lines on a TTY, else one plain line per event.
 *
 * @returns the sink and `finish`, which ends a live line left open (call it after the cycle)
 */
export function createProgressRenderer(stream: ProgressStream): { sink: ProgressSink; finish: () => void } {
  const reached = new Map<number, TransferStage>(); // the last path stage of each plan id
  const before = (e: TransferProgressEvent): TransferStage | undefined => {
    const last = reached.get(e.planId);
    if (PATH.includes(e.stage)) reached.set(e.planId, e.stage);
    return last;
  };
  if (!stream.isTTY) {
    return { sink: (e) => void stream.write(`${plainProgressLine(e, before(e))}\n`), finish: () => {} };
  }
  let open: number | null = null;
  const sink: ProgressSink = (e) => {
    if (open !== null && open !== e.planId) stream.write('\n');
    stream.write(`${CLEAR_LINE}${liveProgressLine(e, before(e))}`);
    if (END_STAGES.includes(e.stage)) {
      stream.write('\n');
      open = null;
    } else {
      open = e.planId;
    }
  };
  return {
    sink,
    finish: () => {
      if (open !== null) stream.write('\n');
      open = null;
    },
  };
}
