/**
 * The live progress line (src/cli/progress.ts): end states that are not failures carry no ✗, failures do; an
 * end state says the stage the transfer reached (a transfer left in flight: deposited or not), never more.
 */
import { describe, expect, it } from 'vitest';
import { createProgressRenderer, liveProgressLine, plainProgressLine } from '../../../packages/ballast/src/cli/progress.ts';
import type { TransferProgressEvent, TransferStage } from '../../../packages/ballast/src/cycle/progressEvent.ts';

const event = (stage: TransferStage, detail?: string): TransferProgressEvent => ({
  planId: 3,
  asset: 'USDC',
  originChain: 'base',
  destinationChain: 'arbitrum',
  amountIn: 100_500_000n,
  decimalsIn: 6,
  decimalsOut: 6,
  stage,
  ...(detail ? { detail } : {}),
  atMs: 0,
});

describe('liveProgressLine', () => {
  it('marks failures with ✗, and not a transfer left to the replica that leads now', () => {
    expect(liveProgressLine(event('origin_failed', 'reverted'))).toBe(
      '✗ #3 USDC base → arbitrum 100.5 USDC: origin transaction failed, nothing deposited (reverted)',
    );
    expect(liveProgressLine(event('handed_over', 'term ended'))).toBe('#3 USDC base → arbitrum 100.5 USDC: handed_over (term ended)');
    expect(liveProgressLine(event('in_flight'))).toBe('#3 USDC base → arbitrum 100.5 USDC: signed, not yet deposited');
    expect(liveProgressLine(event('in_flight'), 'deposited')).toBe('#3 USDC base → arbitrum 100.5 USDC: deposited, not yet filled');
    expect(liveProgressLine(event('failed'))).toBe('✗ #3 USDC base → arbitrum 100.5 USDC: deposited, not filled (failed)');
    expect(plainProgressLine(event('checked'))).toBe(
      '#3 USDC base → arbitrum 100.5 USDC: checked (quoted and verified; nothing signed in plan mode)',
    );
  });

  it('words a transfer left in flight by whether it was seen deposited', () => {
    const lines: string[] = [];
    const { sink } = createProgressRenderer({ write: (chunk: string) => lines.push(chunk) });
    for (const stage of ['planned', 'quoted', 'verified', 'deposited', 'in_flight'] as const) sink(event(stage));
    sink({ ...event('in_flight'), planId: 4 });
    expect(lines.slice(-2)).toEqual([
      '#3 USDC base → arbitrum 100.5 USDC: deposited, not yet filled\n',
      '#4 USDC base → arbitrum 100.5 USDC: signed, not yet deposited\n',
    ]);
  });
});
