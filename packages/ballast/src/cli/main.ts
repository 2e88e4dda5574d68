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
import { CliError, EXIT_USAGE } from './exitCodes.ts';
import { COMMANDS, COMMAND_NAMES, commandsFor } from './commandTable.ts';
import { armCrashFromEnv } from '../config/crashAt.ts';
import { describeError, renderError, wantsJson } from './errorReport.ts';
import type { GlobalFlags } from './session.ts';

/** `ballast --version`: `<version> (<first 12 hex of the commit>)`, e.g. `0.1.0 (81bc0ca1f2e3)`. */
export function versionLine(): string {
  const { version, commit } = buildInfo();
  return `${version} (${commit === 'unknown' ? commit : commit.slice(0, 12)})`;
}

/** `ballast approvals list` for that subcommand: the names from the program down. */
function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/**
 * After a usage error (unknown command or option, missing argument), commander prints the error, its suggestion
 * ("(Did you mean plan?)") and then this: the command's usage line and where the full help is, not the whole help.
 */
function shortUsage(cmd: Command): string {
  const path = commandPath(cmd);
  const what = cmd.parent === null ? 'the commands and options' : cmd.commands.length > 0 ? 'its commands' : 'its options';
  return `Usage: ${path} ${cmd.usage()}\nRun '${path} --help' for ${what}.`;
}

function eachCommand(cmd: Command, visit: (c: Command) => void): void {
  visit(cmd);
  for (const sub of cmd.commands) eachCommand(sub, visit);
}

/**
 * Refuses an unknown `--log-level` or BALLAST_LOG_LEVEL (and BALLAST_LOG_FORMAT) before any command runs, whether or
 * not that command logs, naming the accepted values. Loaded when a command runs (it reads the config schema's
 * lists), so `--version` and `--help` do not pay for it.
 *
 * @throws CliError (exit 2)
 */
async function checkLogSettings(flags: GlobalFlags, env: NodeJS.ProcessEnv): Promise<void> {
  const { LogSettingError, resolveLogSettings } = await import('../log/logSettings.ts');
  try {
    resolveLogSettings({ flagLevel: flags.logLevel, env, isTty: false });
  } catch (error) {
    if (error instanceof LogSettingError) throw new CliError(error.message, EXIT_USAGE, { cause: error });
    throw error;
  }
}

/** Options of {@link buildProgram}. */
export interface BuildProgramOptions {
  /**
   * The command line asks for JSON (`--json`): commander's own error text is not printed (main() prints the error as
   * one JSON object on stdout instead).
   */
  json?: boolean;
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
  options: BuildProgramOptions = {},
): Promise<Command> {
  const program = new Command('ballast')
    .description('Keeps a multi-chain treasury at its target balances through the Relay cross-chain API')
    .version(versionLine(), '-V, --version', 'print the version and the commit it was built from')
    .option('-c, --config <file>', 'config file (default: $BALLAST_CONFIG or ./ballast.yaml)')
    .option('--log-level <level>', 'log level for the JSON logs on stderr (trace..fatal)')
    .exitOverride();
  if (options.json) program.configureOutput({ outputError: () => {}, writeErr: () => {} });
  program.hook('preAction', async () => checkLogSettings(program.opts<GlobalFlags>(), process.env));
  const wanted = COMMAND_NAMES.filter((name) => names.includes(name));
  const registers = await Promise.all(wanted.map((name) => COMMANDS[name]!())); // filtered to known names
  for (const register of registers) register(program, out);
  eachCommand(program, (cmd) => cmd.exitOverride().showHelpAfterError(shortUsage(cmd)));
  return program;
}

/**
 * Runs the CLI and returns the exit code (never calls process.exit itself). An error ends as one line on stderr,
 * `ballast: <message>`, or with `--json` as one object on stdout, `{"error", "code", "exitCode"}`
 * (src/cli/errorReport.ts); only an uncoded error (a bug) prints its stack.
 */
export async function main(argv: string[]): Promise<number> {
  const json = wantsJson(argv);
  try {
    try {
      armCrashFromEnv(process.env); // fault injection for the crash-recovery suite; a no-op when unset
    } catch (error) {
      throw new CliError((error as Error).message, EXIT_USAGE);
    }
    const program = await buildProgram(undefined, commandsFor(argv), { json });
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    // --help and --version end through here with exitCode 0; a usage error was printed by commander (unless --json).
    if (error instanceof CommanderError && (error.exitCode === 0 || !json)) return error.exitCode === 0 ? 0 : EXIT_USAGE;
    const report = describeError(error);
    for (const { stream, text } of renderError(report, json)) (stream === 'stdout' ? process.stdout : process.stderr).write(text);
    return report.exitCode;
  }
}

if (process.argv[1] && import.meta.url === (await import('node:url')).pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv);
}
