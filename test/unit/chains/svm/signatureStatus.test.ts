/**
 * Commitment levels of a signature status and when they count as final: `confirmed` accepts confirmed and
 * finalized, `finalized` only finalized; a processed transaction is never final. Old nodes without
 * `confirmationStatus` report a rooted transaction with `confirmations: null`.
 */
import { describe, expect, it } from 'vitest';
import { reaches, statusLevel, svmBlockRef } from '../../../../packages/ballast/src/chains/svm/signatureStatus.ts';

describe('signature status levels', () => {
  it('reads confirmationStatus, or confirmations when it is absent', () => {
    expect(statusLevel({ confirmationStatus: 'confirmed', confirmations: 3 })).toBe('confirmed');
    expect(statusLevel({ confirmationStatus: 'finalized', confirmations: null })).toBe('finalized');
    expect(statusLevel({ confirmations: null })).toBe('finalized');
    expect(statusLevel({ confirmations: 12 })).toBe('processed');
  });

  it.each([
    ['processed', 'confirmed', false],
    ['confirmed', 'confirmed', true],
    ['finalized', 'confirmed', true],
    ['processed', 'finalized', false],
    ['confirmed', 'finalized', false],
    ['finalized', 'finalized', true],
  ] as const)('%s reaches %s: %s', (level, commitment, final) => {
    expect(reaches(level, commitment)).toBe(final);
  });

  it('records a slot as the block reference', () => {
    expect(svmBlockRef(330_123_456n)).toBe('slot:330123456');
  });
});
