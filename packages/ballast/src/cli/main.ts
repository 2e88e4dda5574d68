/**
 * The `ballast` command line (commander). Exit codes (README "Exit codes", src/cli/exitCodes.ts): 0 ok, 1 error
 * (a restart or the next run may succeed: a port in use, the API unreachable), 2 bad usage, config (a Relay API
 * key refused with 401/403 included) or a store
 * that cannot be opened (a restart does not fix it: systemd's `RestartPreventExitStatus=2` stops there), 3
 * refused by policy or verification, 4 the run lock is held by another run.
 *
 * Only the module of the subcommand being run is imported (src/cli/commandTable.ts), so `--version` and
 * `<command> --help` start fast.
 */
import { Command, CommanderError } from 'commander';
import { buildInfo } from '../core/buildInfo.ts';
import { BallastError } from '@ballast/protocol/core/errors.ts';
import { CliError, EXIT_ERROR, EXIT_LOCKED, EXIT_USAGE } from './exitCodes.ts';
import { COMMANDS, COMMAND_NAMES, commandsFor } from './commandTable.ts';
import { armCrashFromEnv } from '../config/crashAt.ts';
import { authRefusalLine, relayAuthRefusal } from '../relay/authRefusal.ts';

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

/** `ballast --version`: `<version> (<first 12 hex of the commit>)`, e.g. `0.1.0 (81bc0ca1f2e3)`. */
export function versionLine(): string {
  const { version, commit } = buildInfo();
  return `${version} (${commit === 'unknown' ? commit : commit.slice(0, 12)})`;
}

/**
 * Builds the program with the named subcommands (default: all of them).
 *
 * @param out receives command output (stdout in production; a buffer in tests)
 * @param names subcommands to register (see {@link commandsFor}); unknown names are ignored
 */
export async function buildProgram(
  out: (s: string) => void = (s) => process.stdout.write(`${s}\n`),
  names: readonly string[] = COMMAND_NAMES,
): Promise<Command> {
  const program = new Command('ballast')
    .description('Keeps a multi-chain treasury at its target balances through the Relay cross-chain API')
    .version(versionLine(), '-V, --version', 'print the version and the commit it was built from')
    .option('-c, --config <file>', 'config file (default: $BALLAST_CONFIG or ./ballast.yaml)')
    .option('--log-level <level>', 'log level for the JSON logs on stderr (trace..fatal)')
    .showHelpAfterError()
    .exitOverride();
  const wanted = COMMAND_NAMES.filter((name) => names.includes(name));
  const registers = await Promise.all(wanted.map((name) => COMMANDS[name]!())); // filtered to known names
  for (const register of registers) register(program, out);
  for (const cmd of program.commands) cmd.exitOverride();
  return program;
}

/**
 * Runs the CLI and returns the exit code (never calls process.exit itself). Errors end as one line on stderr,
 * `ballast: <message>`; only an uncoded error (a bug) prints its stack.
 */
export async function main(argv: string[]): Promise<number> {
  try {
    try {
      armCrashFromEnv(process.env); // fault injection for the crash-recovery suite; a no-op when unset
    } catch (error) {
      throw new CliError((error as Error).message, EXIT_USAGE);
    }
    const program = await buildProgram(undefined, commandsFor(argv));
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end through here with exitCode 0.
      return error.exitCode === 0 ? 0 : EXIT_USAGE;
    }
    if (error instanceof CliError) {
      process.stderr.write(`ballast: ${error.message}\n`);
      return error.exitCode;
    }
    // Coded errors (config, store, Relay API, listen addresses) carry a complete message; anything else is a
    // bug: show the stack.
    if (error instanceof BallastError) {
      const refusedKey = relayAuthRefusal(error);
      if (refusedKey) {
        process.stderr.write(`ballast: ${authRefusalLine(refusedKey)}\n`);
        return EXIT_USAGE;
      }
      process.stderr.write(`ballast: ${error.message}\n`);
      return EXIT_BY_CODE[error.code] ?? EXIT_ERROR;
    }
    process.stderr.write(`ballast: ${(error as Error).stack ?? String(error)}\n`);
    return EXIT_ERROR;
  }
}

if (process.argv[1] && import.meta.url === (await import('node:url')).pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv);
}
