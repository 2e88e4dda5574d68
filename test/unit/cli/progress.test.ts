/**
 * The live progress line (src/cli/progress.ts): end states that are not failures carry no ✗, failures do; an
 * end state says the stage the transfer reached (a transfer left in flight: deposited or not), never more. A
 * transfer is named by its id in the store once it has one (the id `history` shows), never by its plan row; the
 * time since the deposit counts on screen while it waits for the fill; a log line never runs into the open line.
 */
import { describe, expect, it } from 'vitest';
import { createProgressRenderer, formatElapsed, liveProgressLine, plainProgressLine } from '../../../packages/ballast/src/cli/progress.ts';
import type { TransferProgressEvent, TransferStage } from '../../../packages/ballast/src/cycle/progressEvent.ts';

const event = (stage: TransferStage, over: Partial<TransferProgressEvent> = {}): TransferProgressEvent => ({
  planId: 3,
  asset: 'USDC',
  originChain: 'base',
  destinationChain: 'arbitrum',
  amountIn: 100_500_000n,
  decimalsIn: 6,
  decimalsOut: 6,
  stage,
  atMs: 0,
  ...over,
});

/** A fake terminal: collects writes and replays carriage returns and line clears like a TTY would. */
function fakeTty() {
  const writes: string[] = [];
  return {
    isTTY: true as const,
    write: (s: string) => void writes.push(s),
    writes,
    /** The screen: lines as a terminal shows them after `\r` + clear-line rewrites. */
    screen(): string[] {
      const lines = [''];
      for (const chunk of writes.join('').split(/(\r\u001b\[2K|\n)/)) {
        if (chunk === '\n') lines.push('');
        else if (chunk === '\r\u001b[2K') lines[lines.length - 1] = '';
        else lines[lines.length - 1] += chunk;
      }
      return lines;
    },
  };
}

/** A clock the test moves, and the redraw timer it fires by hand. */
function manualClock() {
  let ms = 0;
  let tick: (() => void) | null = null;
  return {
    now: () => ms,
    every: (_ms: number, fn: () => void) => {
      tick = fn;
      return () => {
        tick = null;
      };
    },
    advance(by: number) {
      ms += by;
      tick?.();
    },
    get ticking() {
      return tick !== null;
    },
  };
}

describe('liveProgressLine', () => {
  it('marks failures with ✗, and not a transfer left to the replica that leads now', () => {
    expect(liveProgressLine(event('origin_failed', { detail: 'reverted', transferId: 4 }))).toBe(
      '✗ #4 USDC base → arbitrum 100.5 USDC: origin transaction failed, nothing deposited (reverted)',
    );
    expect(liveProgressLine(event('handed_over', { detail: 'term ended' }))).toBe(
      'USDC base → arbitrum 100.5 USDC: handed_over (term ended)',
    );
    expect(liveProgressLine(event('in_flight'))).toBe('USDC base → arbitrum 100.5 USDC: signed, not yet deposited');
    expect(liveProgressLine(event('in_flight'), { reached: 'deposited', transferId: 4 })).toBe(
      '#4 USDC base → arbitrum 100.5 USDC: deposited, not yet filled',
    );
    expect(liveProgressLine(event('failed', { transferId: 4 }))).toBe(
      '✗ #4 USDC base → arbitrum 100.5 USDC: deposited, not filled (failed)',
    );
    expect(plainProgressLine(event('checked'))).toBe(
      'USDC base → arbitrum 100.5 USDC: checked (quoted and verified; nothing signed in plan mode)',
    );
  });

  it('words a transfer left in flight by whether it was seen deposited, by its store id once it has one', () => {
    const lines: string[] = [];
    const { sink } = createProgressRenderer({ write: (chunk: string) => lines.push(chunk) });
    for (const stage of ['planned', 'quoted', 'verified'] as const) sink(event(stage));
    sink(event('deposited', { transferId: 8, atMs: 1_000 }));
    sink(event('in_flight', { transferId: 8, atMs: 61_000 }));
    sink(event('in_flight', { planId: 4 }));
    expect(lines).toEqual([
      'USDC base → arbitrum 100.5 USDC: planned\n',
      'USDC base → arbitrum 100.5 USDC: quoted\n',
      'USDC base → arbitrum 100.5 USDC: verified\n',
      '#8 USDC base → arbitrum 100.5 USDC: deposited\n',
      '#8 USDC base → arbitrum 100.5 USDC: deposited, not yet filled, 1 min 00 s after the deposit\n',
      'USDC base → arbitrum 100.5 USDC: signed, not yet deposited\n',
    ]);
    // Never the plan row's id (3 and 4 here): only the store's.
    expect(lines.join('')).not.toMatch(/#[34]\b/);
  });
});

describe('formatElapsed', () => {
  it('says seconds, then minutes, then hours', () => {
    expect([0, 999, 42_000, 185_000, 3_725_000].map(formatElapsed)).toEqual(['0 s', '0 s', '42 s', '3 min 05 s', '1 h 02 min']);
  });
});

describe('the live line while waiting for the fill', () => {
  it('shows the time since the deposit, redrawn as it passes, and how long the fill took', () => {
    const tty = fakeTty();
    const clock = manualClock();
    const { sink, finish } = createProgressRenderer(tty, clock);
    sink(event('planned'));
    sink(event('verified', { minOut: 100_000_000n }));
    expect(clock.ticking).toBe(false);
    sink(event('deposited', { transferId: 4, minOut: 100_000_000n, atMs: clock.now() }));
    expect(tty.screen().at(-1)).toBe(
      '#4 USDC base → arbitrum 100.5 USDC, at least 100 USDC: planned → quoted → verified → deposited, waiting for the fill 0 s',
    );
    clock.advance(12_000);
    expect(tty.screen().at(-1)).toMatch(/→ deposited, waiting for the fill 12 s$/);
    clock.advance(3_000);
    expect(tty.screen().at(-1)).toMatch(/→ deposited, waiting for the fill 15 s$/);
    sink(event('filled', { transferId: 4, minOut: 100_000_000n, atMs: 16_000 }));
    expect(clock.ticking).toBe(false); // the redraw stops with the line
    finish();
    expect(tty.screen()).toEqual([
      '✓ #4 USDC base → arbitrum 100.5 USDC, at least 100 USDC: planned → quoted → verified → deposited → filled, 16 s after the deposit',
      '',
    ]);
  });

  it('clears the open line before a log line and redraws it after, so they never share a screen line', () => {
    const screen = fakeTty(); // stdout and stderr on one terminal
    const { sink, finish, logStream } = createProgressRenderer(screen, manualClock());
    const stderr = { write: (chunk: string | Uint8Array) => screen.write(String(chunk)), isTTY: true };
    const log = logStream(stderr as unknown as NodeJS.WritableStream); // only write() and isTTY are used
    sink(event('planned'));
    sink(event('quoted', { minOut: 100_000_000n }));
    log.write('WARN relay call failed; retrying\n');
    sink(event('verified', { minOut: 100_000_000n }));
    log.write('INFO broadcast\n');
    finish();
    expect(screen.screen()).toEqual([
      'WARN relay call failed; retrying',
      'INFO broadcast',
      'USDC base → arbitrum 100.5 USDC, at least 100 USDC: planned → quoted → verified',
      '',
    ]);
    expect((log as unknown as { isTTY: boolean }).isTTY).toBe(true);
  });

  it('hands log lines straight to their destination on a pipe', () => {
    const dest = { write: () => true } as unknown as NodeJS.WritableStream;
    expect(createProgressRenderer({ write: () => true }).logStream(dest)).toBe(dest);
  });
});
