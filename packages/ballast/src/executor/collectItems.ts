/**
 * Orders the transaction items of a verified quote for execution: steps in the order the API returned them
 * (approve before deposit), items in order within a step (docs/relay-contract.md "Step").
 */
import type { QuoteResponse, StepItem } from '@ballast/protocol/relay/schemas.ts';
import { BallastError } from '@ballast/protocol/core/errors.ts';

/** One item to execute, with where it sits in the quote. */
export interface ExecutableItem {
  stepId: string;
  stepIndex: number;
  itemIndex: number;
  item: StepItem;
}

/** Raised when a quote holds a step Ballast cannot execute (e.g. a `signature` step). */
export class UnsupportedStepError extends BallastError {
  readonly code = 'EXECUTOR_UNSUPPORTED_STEP';
}

/**
 * Lists every item to send, in order. Nothing is skipped on the API's word: verification refuses quotes whose
 * items are not `incomplete`, and the executor sends exactly the verified set.
 *
 * @throws UnsupportedStepError for a non-`transaction` step (verification refuses those first)
 */
export function collectExecutableItems(quote: QuoteResponse): ExecutableItem[] {
  const out: ExecutableItem[] = [];
  quote.steps.forEach((step, stepIndex) => {
    if (step.kind !== 'transaction') {
      throw new UnsupportedStepError(`step ${step.id} is a ${step.kind} step; Ballast only sends transaction steps`);
    }
    step.items.forEach((item, itemIndex) => {
      out.push({ stepId: step.id, stepIndex, itemIndex, item });
    });
  });
  return out;
}

/** The status check endpoint of the quote: the first item carrying a `check` (the deposit). */
export function findCheckEndpoint(quote: QuoteResponse): string | undefined {
  for (const step of quote.steps) for (const item of step.items) if (item.check) return item.check.endpoint;
  return undefined;
}
