/**
 * How an error that ends a `ballast` command is told: one line `ballast: <message>` on stderr, or, when the command
 * line has `--json`, one JSON object on stdout, `{"error": <message>, "code": <code>, "exitCode": <n>}`, so a script
 * reads one JSON document from stdout whether the command succeeded or not (and stderr keeps only log lines).
 * `code` is the error's stable code (docs/errors.md, e.g. `CONFIG_INVALID`, `RUN_LOCK_BUSY`) when it has one, else
 * the exit code's name ({@link EXIT_CODE_NAMES}). Pure: the caller writes the text.
 */
import { CommanderError } from 'commander';
import { BallastError } from '@ballast/protocol/core/errors.ts';
import { authRefusalLine, relayAuthRefusal } from '../relay/authRefusal.ts';
import { CliError, EXIT_ERROR, EXIT_LOCKED, EXIT_REFUSED, EXIT_USAGE } from './exitCodes.ts';

/** Exit code → the `code` of an error that has none of its own. */
export const EXIT_CODE_NAMES: Readonly<Record<number, string>> = {
  [EXIT_ERROR]: 'ERROR',
  [EXIT_USAGE]: 'USAGE',
  [EXIT_REFUSED]: 'REFUSED',
  [EXIT_LOCKED]: 'LOCKED',
};

/**
 * Exit codes of coded errors that reach the top level; other coded errors exit 1. Codes, not classes, so
 * matching them loads no command module.
 */
const EXIT_BY_CODE: Readonly<Record<string, number>> = {
  CONFIG_INVALID: EXIT_USAGE,
  STORE_OPEN_FAILED: EXIT_USAGE,
  STORE_SCHEMA_TOO_NEW: EXIT_USAGE,
  RUN_LOCK_BUSY: EXIT_LOCKED,
  MONITOR_ONLY: EXIT_USAGE,
  TRANSFER_INVALID: EXIT_USAGE,
};

/** An error as the CLI reports it. */
export interface ErrorReport {
  /** The message, one or more lines, without the `ballast: ` prefix. */
  message: string;
  /** Stable code: the error's own, else {@link EXIT_CODE_NAMES} of the exit code. */
  code: string;
  exitCode: number;
  /** Only for an uncoded error (a bug): its stack, printed in place of the message. */
  stack?: string;
}

/** The first coded error along `cause` links (a CliError wrapping a ConfigError keeps `CONFIG_INVALID`). */
function codeOf(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof BallastError) return e.code;
  }
  return undefined;
}

/**
 * Classifies an error that ended a command: its message, code and exit code (README "Exit codes").
 * A commander error (unknown command or option, missing argument) exits 2; `--help` and `--version` end as
 * commander errors with exit code 0 and are not errors (the caller checks first).
 */
export function describeError(error: unknown): ErrorReport {
  if (error instanceof CommanderError) {
    const message = error.message.replace(/^error: /, '');
    return { message, code: error.code, exitCode: EXIT_USAGE };
  }
  if (error instanceof CliError) {
    return { message: error.message, code: codeOf(error.cause) ?? EXIT_CODE_NAMES[error.exitCode] ?? 'ERROR', exitCode: error.exitCode };
  }
  if (error instanceof BallastError) {
    const refusedKey = relayAuthRefusal(error);
    // A refused key is a configuration error: a restart does not fix it.
    if (refusedKey) return { message: authRefusalLine(refusedKey), code: error.code, exitCode: EXIT_USAGE };
    return { message: error.message, code: error.code, exitCode: EXIT_BY_CODE[error.code] ?? EXIT_ERROR };
  }
  // Anything else is a bug: show the stack.
  const message = error instanceof Error ? error.message : String(error);
  return { message, code: 'INTERNAL', exitCode: EXIT_ERROR, stack: (error as Error | undefined)?.stack ?? String(error) };
}

/**
 * Whether a command line asks for JSON: `--json` among its arguments before a `--` terminator.
 *
 * @param argv the full `process.argv` (`[node, script, ...args]`)
 */
export function wantsJson(argv: readonly string[]): boolean {
  const args = argv.slice(2);
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).includes('--json');
}

/** One piece of output: where it goes and its text (ending with a newline). */
export interface ErrorOutput {
  stream: 'stdout' | 'stderr';
  text: string;
}

/**
 * The text to print and where.
 *
 * @returns under `--json`, the JSON object (one line) on stdout, plus the stack on stderr for a bug; otherwise
 *   `ballast: <message>` on stderr (the stack for a bug)
 */
export function renderError(report: ErrorReport, json: boolean): ErrorOutput[] {
  const stack: ErrorOutput[] = report.stack !== undefined ? [{ stream: 'stderr', text: `ballast: ${report.stack}\n` }] : [];
  if (!json) return stack.length > 0 ? stack : [{ stream: 'stderr', text: `ballast: ${report.message}\n` }];
  const object = { error: report.message, code: report.code, exitCode: report.exitCode };
  return [{ stream: 'stdout', text: `${JSON.stringify(object)}\n` }, ...stack];
}
