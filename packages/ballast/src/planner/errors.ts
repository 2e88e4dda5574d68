/**
 * Errors raised by the planner. The planner is pure; it throws only when its input is inconsistent (a config or
 * wiring bug), never because of balances.
 */
import { BallastError } from '@ballast/protocol/core/errors.ts';

/**
 * The planner input is inconsistent: a band with `min > target` or `target > max`, negative amounts, bad
 * decimals, two targets at the same (chain, currency, address), or malformed `minTransfer` / `maxTransfer`.
 * Code `PLAN_INPUT_INVALID`. `field` names the offending input field.
 */
export class PlanInputError extends BallastError {
  /** Stable error code. */
  readonly code = 'PLAN_INPUT_INVALID' as const;
  /** Input field at fault, e.g. `targets[2].min` or `maxTransfer`. */
  readonly field: string;

  constructor(field: string, problem: string, fix: string, options?: { cause?: unknown }) {
    super(`${field}: ${problem}. Fix: ${fix}`, options);
    this.field = field;
  }
}
