/**
 * Errors of the verify module. Bad quotes never throw (they yield a failing `Verdict`); this covers programmer
 * errors only.
 */
import { BallastError } from '@ballast/protocol/core/errors.ts';

/** Raised by `verifyQuote` when its input is malformed (a programmer error, not a bad quote). */
export class VerifyInputError extends BallastError {
  readonly code = 'VERIFY_BAD_INPUT';
}
