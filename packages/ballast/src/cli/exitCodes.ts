/**
 * Process exit codes (README "Exit codes"): 0 ok, 1 error, 2 bad usage or config, 3 refused by policy or
 * verification, 4 the run lock is held by another live run (nothing was done).
 *
 * Under `--json` an error is one object on stdout, `{"error", "code", "exitCode"}` (src/cli/errorReport.ts): `code` is
 * the error's own (docs/errors.md, e.g. `CONFIG_INVALID`), commander's for a usage error (`commander.unknownOption`),
 * else the exit code's name: `ERROR`, `USAGE`, `REFUSED`, `LOCKED` (`INTERNAL` for a bug).
 *
 * `ballast api-check` exits 0 when every endpoint works, also when the operator's own fee caps refuse some probe
 * routes (a `warning:` line per route names the config keys): 3 would make a deploy gate on api-check fail on the
 * config rather than the API, and a cycle reports the same skip when it happens. 1 is kept for an endpoint that
 * does not work.
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
