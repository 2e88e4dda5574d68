/**
 * Process exit codes (README "Exit codes"): 0 ok, 1 error, 2 bad usage or config, 3 refused by policy or
 * verification, 4 the run lock is held by another live run (nothing was done).
 */
export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;
export const EXIT_REFUSED = 3;
export const EXIT_LOCKED = 4;

/** An error that carries the exit code the CLI must use. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CliError';
  }
}
