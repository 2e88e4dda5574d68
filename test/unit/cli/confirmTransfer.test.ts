/**
 * Whether `ballast transfer` asks before it moves money (src/cli/confirmTransfer.ts): on a terminal only, never
 * with --yes or --dry-run; only y or yes is taken as yes.
 */
import { describe, expect, it } from 'vitest';
import { isYes, shouldConfirm } from '../../../packages/ballast/src/cli/confirmTransfer.ts';

describe('ballast transfer: whether to ask', () => {
  it('asks on a terminal only, never with --yes or --dry-run', () => {
    expect(shouldConfirm({ yes: false, dryRun: false, stdinIsTty: true })).toBe(true);
    expect(shouldConfirm({ yes: true, dryRun: false, stdinIsTty: true })).toBe(false);
    expect(shouldConfirm({ yes: false, dryRun: true, stdinIsTty: true })).toBe(false);
    expect(shouldConfirm({ yes: false, dryRun: false, stdinIsTty: false })).toBe(false);
  });

  it('takes y or yes as yes; anything else, or the end of input, as no', () => {
    expect(['y', 'Y', ' yes ', 'YES'].map(isYes)).toEqual([true, true, true, true]);
    expect(['', 'n', 'no', 'yep', 'sure'].map(isYes)).toEqual([false, false, false, false, false]);
    expect(isYes(null)).toBe(false);
  });
});
