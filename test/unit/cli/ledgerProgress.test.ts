/**
 * Live progress of `run --once`: on a terminal each transfer's line is rewritten in place as it advances and
 * ends with its end state; on a pipe every stage is its own plain line. Amounts in whole units with the symbol; a
 * transfer is named by its store id (`#7`) once written ahead, never by its plan row.
 */
import { describe, expect, it } from 'vitest';
import { createProgressRenderer } from '../../../packages/ballast/src/cli/progress.ts';
import type { TransferProgressEvent, TransferStage } from '../../../packages/ballast/src/cycle/progressEvent.ts';

function event(planId: number, stage: TransferStage, over: Partial<TransferProgressEvent> = {}): TransferProgressEvent {
  return {
    planId,
    asset: 'USDC',
    originChain: 'alpha',
    destinationChain: 'beta',
    amountIn: 20_000_500_000n,
    decimalsIn: 6,
    decimalsOut: 6,
    stage,
    atMs: 0,
    ...(stage === 'planned' ? {} : { minOut: 19_900_000_000n }),
    ...over,
  };
}

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

describe('progress on a terminal', () => {
  it('rewrites one line per transfer as it moves and leaves its end state', () => {
    const tty = fakeTty();
    let nowMs = 0;
    const { sink, finish } = createProgressRenderer(tty, { now: () => nowMs, every: () => () => {} });
    for (const s of ['planned', 'quoted', 'verified'] as const) sink(event(1, s));
    sink(event(1, 'deposited', { transferId: 7 }));
    nowMs = 5_000;
    expect(tty.screen()).toEqual([
      '#7 USDC alpha → beta 20000.5 USDC, at least 19900 USDC: planned → quoted → verified → deposited, waiting for the fill 0 s',
    ]);
    sink(event(1, 'filled', { transferId: 7, atMs: 5_000 }));
    sink(event(2, 'planned', { asset: 'BTC', amountIn: 4_980_000n, decimalsIn: 8, decimalsOut: 18 }));
    sink(
      event(2, 'refused', { asset: 'BTC', amountIn: 4_980_000n, decimalsIn: 8, decimalsOut: 18, minOut: undefined, detail: 'recipient' }),
    );
    sink(event(3, 'planned'));
    finish();
    expect(tty.screen()).toEqual([
      '✓ #7 USDC alpha → beta 20000.5 USDC, at least 19900 USDC: planned → quoted → verified → deposited → filled, 5 s after the deposit',
      '✗ BTC alpha → beta 0.0498 BTC: refused (recipient)',
      'USDC alpha → beta 20000.5 USDC: planned',
      '',
    ]);
    // Updates in place: the first transfer's five stages took one screen line, with a clear before each rewrite.
    expect(tty.writes.filter((w) => w.startsWith('\r\u001b[2K'))).toHaveLength(8);
  });
});

describe('progress on a pipe', () => {
  it('prints one plain line per stage, no control characters', () => {
    const writes: string[] = [];
    const { sink } = createProgressRenderer({ write: (s: string) => void writes.push(s) });
    sink(event(4, 'planned'));
    sink(event(4, 'quoted'));
    sink(event(4, 'skipped', { detail: 'fee_total_usd' }));
    expect(writes).toEqual([
      'USDC alpha → beta 20000.5 USDC: planned\n',
      'USDC alpha → beta 20000.5 USDC: quoted (at least 19900 USDC)\n',
      'USDC alpha → beta 20000.5 USDC: skipped (at least 19900 USDC): fee_total_usd\n',
    ]);
    expect(writes.join('')).not.toMatch(/[\r\u001b]/);
  });
});
