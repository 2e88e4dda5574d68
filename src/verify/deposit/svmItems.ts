/**
 * Reads the quote's steps as Solana step items (DESIGN.md "Solana step data"), keeping each item's position
 * so rules can name it (`steps[0].items[0].data.instructions[1]`). Pure.
 */
import type { QuoteResponse } from '../../relay/schemas.ts';
import type { StepItemRef } from '../types.ts';
import { parseSvmStepData, type SvmInstruction, type SvmStepData } from './svmStepData.ts';

/** One item of a `transaction` step: its parsed instructions, or why its `data` does not parse. */
export interface SvmItem {
  ref: StepItemRef;
  /** `steps[i].items[j]`, for details. */
  path: string;
  stepData: SvmStepData | null;
  /** Why `stepData` is null. */
  parseError?: string;
}

/** An item whose `data` parsed. */
export type ParsedSvmItem = SvmItem & { stepData: SvmStepData };

/** The quote's transaction items and the step-level problems found on the way. */
export interface SvmSteps {
  items: SvmItem[];
  /**
   * Steps and items Ballast never executes, as human details: `signature` steps, deposit-address steps,
   * items whose status is not `incomplete`, steps of another request.
   */
  stepProblems: string[];
}

/**
 * Collects every item of every `transaction` step, parsing `data` with `parseSvmStepData`.
 * `signature` steps, steps with a non-empty `depositAddress`, items not `incomplete` (spec "Step item": the
 * value on a fresh quote) and steps whose `requestId` differs from the quote's go to `stepProblems`.
 */
export function collectSvmSteps(quote: QuoteResponse): SvmSteps {
  const items: SvmItem[] = [];
  const stepProblems: string[] = [];
  const requestId = quote.requestId ?? quote.steps.find((s) => s.requestId !== undefined)?.requestId;
  quote.steps.forEach((step, stepIndex) => {
    if (step.kind !== 'transaction') {
      stepProblems.push(`steps[${stepIndex}] ("${step.id}") is a ${step.kind} step; only transactions are expected`);
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
      if (item.status !== 'incomplete') {
        stepProblems.push(`${path}.status is "${item.status}"; a fresh quote's items are all "incomplete"`);
      }
      const parsed = parseSvmStepData(item.data);
      const ref = { stepIndex, itemIndex };
      items.push(parsed.ok ? { ref, path, stepData: parsed.data } : { ref, path, stepData: null, parseError: parsed.error });
    });
  });
  return { items, stepProblems };
}

/** The items whose `data` parsed. */
export function parsedItems(items: readonly SvmItem[]): ParsedSvmItem[] {
  return items.filter((i): i is ParsedSvmItem => i.stepData !== null);
}

/** One instruction with where it sits, for details (`steps[0].items[0].data.instructions[2]`). */
export interface LocatedInstruction {
  item: ParsedSvmItem;
  index: number;
  path: string;
  ix: SvmInstruction;
}

/** Every instruction of every parsed item, in quote order. */
export function allInstructions(items: readonly SvmItem[]): LocatedInstruction[] {
  return parsedItems(items).flatMap((item) =>
    item.stepData.instructions.map((ix, index) => ({ item, index, path: `${item.path}.data.instructions[${index}]`, ix })),
  );
}
