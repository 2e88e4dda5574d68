/**
 * Turns litesvm's log lines for the executed (rewritten) transaction into the lines the original transaction
 * would have logged: each depository instruction appears as the program's own invocation, with what it
 * invoked one level deeper, the Anchor `Program data:` event line, and `success` / `failed: …`.
 *
 * The compute units in the depository's `consumed N of M` line are nominal (the stand-in runs no sBPF code).
 * Pure.
 */
import { base64 } from '@scure/base';
import { encodeDepositEvent, type SvmDepositEvent } from '@ballast/protocol/protocol/svmDepository.ts';
import type { DepositFailure } from './anchorErrors.ts';
import { instructionErrorText } from './txErrors.ts';

/** Nominal compute units the depository reports for itself. */
export const DEPOSITORY_NOMINAL_UNITS = 5_000;
const NOMINAL_BUDGET = 200_000;
const TOP_INVOKE_RE = /^Program (\S+) invoke \[1\]$/;
const INVOKE_RE = /^(Program \S+ invoke \[)(\d+)(\])$/;
const FAILED_RE = /^Program \S+ failed: (.*)$/;

/** How one original depository instruction turned out. */
export type DepositLogOutcome =
  | { kind: 'deposit'; instructionName: string; event: SvmDepositEvent }
  | { kind: 'fail'; instructionName: string | null; failure: DepositFailure };

/** Inputs of {@link rewriteLogs}. */
export interface RewriteLogsInput {
  /** litesvm's logs of the executed transaction. */
  logs: string[];
  /** Program id of each executed instruction. */
  executedProgramIds: string[];
  /** Original instruction index of each executed instruction. */
  origin: number[];
  /** Original index → outcome, for depository instructions only. */
  outcomes: ReadonlyMap<number, DepositLogOutcome>;
  /** The depository program id. */
  programId: string;
}

/** Splits logs into one segment per executed top-level instruction (null when it logged nothing). */
export function segmentLogs(logs: string[], executedProgramIds: string[]): { prefix: string[]; segments: (string[] | null)[] } {
  const prefix: string[] = [];
  const segments: (string[] | null)[] = executedProgramIds.map(() => null);
  let j = -1;
  let current: string[] | null = null;
  for (const line of logs) {
    const top = TOP_INVOKE_RE.exec(line);
    if (top !== null) {
      let k = j + 1;
      while (k < executedProgramIds.length && executedProgramIds[k] !== top[1]) k++;
      if (k < executedProgramIds.length) {
        j = k;
        current = [];
        segments[j] = current;
      }
    }
    (current ?? prefix).push(line);
  }
  return { prefix, segments };
}

/** One level deeper: `invoke [n]` → `invoke [n+1]`. */
function deeper(lines: string[]): string[] {
  return lines.map((line) =>
    line.replace(INVOKE_RE, (_m, head: string, depth: string, tail: string) => `${head}${Number(depth) + 1}${tail}`),
  );
}

/** The logs of the original transaction. */
export function rewriteLogs(input: RewriteLogsInput): string[] {
  const { prefix, segments } = segmentLogs(input.logs, input.executedProgramIds);
  const out = [...prefix];
  const pid = input.programId;
  const consumed = `Program ${pid} consumed ${DEPOSITORY_NOMINAL_UNITS} of ${NOMINAL_BUDGET} compute units`;
  let j = 0;
  while (j < input.origin.length) {
    const original = input.origin[j] as number; // j < origin.length
    let end = j;
    while (end < input.origin.length && input.origin[end] === original) end++;
    const parts = segments.slice(j, end).filter((s): s is string[] => s !== null);
    const outcome = input.outcomes.get(original);
    j = end;
    if (outcome === undefined) {
      for (const part of parts) out.push(...part);
      continue;
    }
    if (parts.length === 0) continue; // execution stopped before this instruction
    out.push(`Program ${pid} invoke [1]`);
    if (outcome.instructionName !== null) out.push(`Program log: Instruction: ${outcome.instructionName}`);
    if (outcome.kind === 'fail') {
      out.push(...outcome.failure.logs, consumed, `Program ${pid} failed: ${instructionErrorText(outcome.failure.error)}`);
      continue;
    }
    for (const part of parts) out.push(...deeper(part));
    const lastLine = parts[parts.length - 1]?.at(-1) ?? '';
    const failed = FAILED_RE.exec(lastLine);
    if (failed !== null) {
      out.push(consumed, `Program ${pid} failed: ${failed[1]}`);
    } else {
      out.push(`Program data: ${base64.encode(encodeDepositEvent(outcome.event))}`, consumed, `Program ${pid} success`);
    }
  }
  return out;
}
