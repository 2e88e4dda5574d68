/**
 * Reads the quote's steps as Solana step items (docs/design.md "Solana step data"), keeping each item's position
 * so rules can name it (`steps[0].items[0].data.instructions[1]`). Pure.
 */
import type { QuoteResponse } from '@ballast/protocol/relay/schemas.ts';
import type { StepItemRef } from '../types.ts';
import { collectStepItems } from './stepItems.ts';
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
 * Collects every item of every `transaction` step ({@link collectStepItems}), parsing `data` with `parseSvmStepData`.
 * `signature` steps, steps with a non-empty `depositAddress`, items not `incomplete` (docs/relay-contract.md "Step item":
 * the value on a fresh quote) and steps whose `requestId` differs from the quote's go to `stepProblems`.
 */
export function collectSvmSteps(quote: QuoteResponse): SvmSteps {
  return collectStepItems<SvmItem>(quote, { expected: 'only transactions are expected', requireIncomplete: true }, (item, ref, path) => {
    const parsed = parseSvmStepData(item.data);
    return parsed.ok ? { ref, path, stepData: parsed.data } : { ref, path, stepData: null, parseError: parsed.error };
  });
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
