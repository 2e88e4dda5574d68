/**
 * Errors of the verify module. Bad quotes never throw (they yield a failing {@link Verdict}); these classes
 * cover programmer errors and callers that want to turn a failing verdict into an exception.
 */
import type { RuleResult, Verdict } from './types.ts';

/** Raised by `verifyQuote` when its input is malformed (a programmer error, not a bad quote). */
export class VerifyInputError extends Error {
  readonly code = 'VERIFY_BAD_INPUT';
  constructor(message: string) {
    super(message);
    this.name = 'VerifyInputError';
  }
}

/** Raised by {@link assertVerdictOk} when a quote failed local verification; `failed` lists the failing rules. */
export class QuoteVerificationError extends Error {
  readonly code = 'QUOTE_VERIFICATION_FAILED';
  constructor(readonly failed: readonly RuleResult[]) {
    super(
      `quote failed local verification (${failed.map((r) => r.rule).join(', ')}): ` +
        failed.map((r) => `${r.rule}: ${r.detail}`).join(' | ') +
        '. Do not sign it; request a fresh quote or fix the expectations.',
    );
    this.name = 'QuoteVerificationError';
  }
}

/**
 * Throws when a verdict is not ok.
 *
 * @throws QuoteVerificationError listing every failed rule
 */
export function assertVerdictOk(verdict: Verdict): void {
  if (!verdict.ok) throw new QuoteVerificationError(verdict.rules.filter((r) => !r.ok));
}
