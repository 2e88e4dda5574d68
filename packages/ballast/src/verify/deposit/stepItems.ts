/**
 * Walks a quote's steps (docs/relay-contract.md "Step", "Step item") for every VM's verifier: collects each item of every
 * `transaction` step with its position (`steps[i].items[j]`) and reports the step-level problems that make a
 * quote unexecutable whatever the VM (`signature` steps, deposit-address steps, a `requestId` other than the
 * quote's and, on request, items not `incomplete`). How an item's `data` is read is left to the caller. Pure.
 */
import type { QuoteResponse, StepItem } from '@ballast/protocol/relay/schemas.ts';
import type { StepItemRef } from '../types.ts';

/** Options of {@link collectStepItems}. */
export interface CollectStepItemsOptions {
  /**
   * What the VM expects instead of a `signature` step, ending the problem
   * `steps[i] ("id") is a signature step; <expected>` (e.g. `only transactions are expected`).
   */
  expected: string;
  /** Report items whose `status` is not `incomplete` (docs/relay-contract.md "Step item": the value on a fresh quote). */
  requireIncomplete: boolean;
}

/** Items of `transaction` steps, as the caller read them, and the step-level problems in quote order. */
export interface CollectedStepItems<T> {
  items: T[];
  stepProblems: string[];
}

/**
 * Calls `read` on every item of every `transaction` step, in quote order. A non-transaction step is reported
 * in `stepProblems` and its items are skipped; a step with a non-empty `depositAddress` (not locally
 * verifiable, docs/relay-contract.md "Local quote verification") or a `requestId` other than the quote's (the quote's own,
 * else the first step's) is reported there too while its items are still read; so is an item whose status is not
 * `incomplete` when `opts.requireIncomplete` is set (before that item is read).
 *
 * @param quote the parsed quote
 * @param opts the wording for non-transaction steps and whether item statuses are checked
 * @param read turns one raw item, its position and its path (`steps[i].items[j]`) into the caller's item
 * @returns the items `read` returned and the problems found; never throws unless `read` does
 */
export function collectStepItems<T>(
  quote: QuoteResponse,
  opts: CollectStepItemsOptions,
  read: (item: StepItem, ref: StepItemRef, path: string) => T,
): CollectedStepItems<T> {
  const items: T[] = [];
  const stepProblems: string[] = [];
  const requestId = quote.requestId ?? quote.steps.find((s) => s.requestId !== undefined)?.requestId;
  quote.steps.forEach((step, stepIndex) => {
    if (step.kind !== 'transaction') {
      stepProblems.push(`steps[${stepIndex}] ("${step.id}") is a ${step.kind} step; ${opts.expected}`);
      return;
    }
    if (step.depositAddress) {
      stepProblems.push(`steps[${stepIndex}].depositAddress is set (${step.depositAddress}); deposit-address flows are not verifiable`);
    }
    if (step.requestId !== undefined && requestId !== undefined && step.requestId !== requestId) {
      stepProblems.push(`steps[${stepIndex}].requestId is ${step.requestId}, but the quote tracks ${requestId}; one quote has one request`);
    }
    step.items.forEach((item, itemIndex) => {
      const path = `steps[${stepIndex}].items[${itemIndex}]`;
      if (opts.requireIncomplete && item.status !== 'incomplete') {
        // The executor sends every item; an item the API calls done would be skipped by a client that trusts it.
        stepProblems.push(`${path}.status is "${item.status}"; a fresh quote's items are all "incomplete"`);
      }
      items.push(read(item, { stepIndex, itemIndex }, path));
    });
  });
  return { items, stepProblems };
}
