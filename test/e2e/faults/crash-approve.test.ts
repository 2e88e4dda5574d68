/**
 * Crash recovery, first half: `ballast run --once` SIGKILLed at every step boundary up to and including the
 * approve (cycle, quote and `tx:*#1` boundaries), then run again as cron would. Per case it prints duplicates,
 * lost and the time back in band; duplicates and lost must be 0 and the treasury must come back in band (how
 * fast is printed, not asserted: it grows with machine load).
 */
import { describe, expect, it } from 'vitest';
import { CRASH_POINTS } from '../../../packages/ballast/src/core/crashPoints.ts';
import { BITCOIN_ONLY_POINTS, crashSequences, killsBeforeDeposit } from './helpers/crashCase.ts';
import { NON_EVM_TARGETS } from './helpers/nonEvmCrash.ts';
import { describeCrashCases } from './helpers/crashSuite.ts';

describe('the kill sequences', () => {
  it('cover every crash point, each tx:* boundary for the approve and the deposit', () => {
    const sequences = crashSequences();
    const killed = new Set(sequences.flat().map((t) => t.replace(/#\d+$/, '')));
    // An EVM run never passes the Bitcoin-only boundaries: crash-bitcoin.test.ts kills there instead.
    for (const point of BITCOIN_ONLY_POINTS) {
      expect(killed).not.toContain(point);
      expect(NON_EVM_TARGETS.bitcoin).toContain(point);
      killed.add(point);
    }
    expect([...killed].sort()).toEqual([...CRASH_POINTS].sort());
    for (const point of CRASH_POINTS.filter((p) => p.startsWith('tx:'))) {
      expect(sequences).toContainEqual([`${point}#1`]);
      expect(sequences).toContainEqual([`${point}#2`]);
    }
    // This file runs the twelve kills before the deposit is written; crash-deposit.test.ts the rest.
    expect(sequences.filter(killsBeforeDeposit)).toHaveLength(12);
  });
});

describeCrashCases('SIGKILL before the deposit', crashSequences().filter(killsBeforeDeposit));
