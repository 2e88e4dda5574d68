/**
 * `DepositEvent`s in a transaction's log messages, attributed to the program that logged them. Anchor logs an
 * event as `Program data: <base64>` while the emitting program is executing, so the program invocation stack
 * (`Program <id> invoke [n]` … `Program <id> success | failed: …`) tells whose line it is: only lines logged
 * while the depository program is on top of the stack count, so another program printing the same bytes (any
 * program may log anything) is ignored, and a depository reached through a CPI (depth > 1) still counts.
 * Pure.
 */
import { base64 } from '@scure/base';
import { decodeDepositEvent, type SvmDepositEvent } from '@ballast/protocol/protocol/svmDepository.ts';

const INVOKE_RE = /^Program ([1-9A-HJ-NP-Za-km-z]{32,44}) invoke \[(\d+)\]$/;
const END_RE = /^Program ([1-9A-HJ-NP-Za-km-z]{32,44}) (?:success|failed: .*)$/;
const DATA_PREFIX = 'Program data: ';
const TRUNCATED = 'Log truncated';

/** Events found, and whether the logs could be followed to the end. */
export interface DepositLogScan {
  events: SvmDepositEvent[];
  /**
   * False when the node truncated the logs or the invoke/end lines do not nest: events after that point
   * cannot be attributed, so the scan proves nothing about what is missing.
   */
  complete: boolean;
}

function decodeLine(line: string): SvmDepositEvent | null {
  const fields = line.slice(DATA_PREFIX.length).split(' ');
  if (fields.length !== 1) return null; // Anchor logs an event as exactly one field
  try {
    return decodeDepositEvent(base64.decode(fields[0] ?? ''));
  } catch {
    return null; // not base64: not an event
  }
}

/**
 * Scans log messages for `DepositEvent`s logged by `programId`.
 *
 * @param logs `meta.logMessages` of a transaction
 * @param programId the depository program, base58
 * @returns the events in log order, and whether the scan reached the end (see {@link DepositLogScan})
 * @example
 * depositEventsInLogs(['Program P invoke [1]', 'Program data: eP…', 'Program P success'], 'P').events; // [event]
 */
export function depositEventsInLogs(logs: readonly string[], programId: string): DepositLogScan {
  const stack: string[] = [];
  const events: SvmDepositEvent[] = [];
  for (const line of logs) {
    if (line.startsWith(TRUNCATED)) return { events, complete: false };
    const invoke = INVOKE_RE.exec(line);
    if (invoke) {
      if (Number(invoke[2]) !== stack.length + 1) return { events, complete: false };
      stack.push(invoke[1] ?? '');
      continue;
    }
    const end = END_RE.exec(line);
    if (end) {
      if (stack.at(-1) !== end[1]) return { events, complete: false };
      stack.pop();
      continue;
    }
    if (line.startsWith(DATA_PREFIX) && stack.at(-1) === programId) {
      const event = decodeLine(line);
      if (event) events.push(event);
    }
  }
  return { events, complete: stack.length === 0 };
}
