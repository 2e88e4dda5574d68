/**
 * The live progress line (src/cli/progress.ts): end states that are not failures carry no ✗, failures do.
 */
import { describe, expect, it } from 'vitest';
import { liveProgressLine } from '../../../packages/ballast/src/cli/progress.ts';
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
    expect(liveProgressLine(event('origin_failed', 'reverted'))).toBe('✗ #3 USDC base → arbitrum 100.5 USDC: origin_failed (reverted)');
    expect(liveProgressLine(event('handed_over', 'term ended'))).toBe('#3 USDC base → arbitrum 100.5 USDC: handed_over (term ended)');
    expect(liveProgressLine(event('in_flight'))).toBe('#3 USDC base → arbitrum 100.5 USDC: in_flight');
  });
});
