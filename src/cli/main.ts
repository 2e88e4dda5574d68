/**
 * The `ballast` command line (commander). Exit codes: 0 ok, 1 error, 2 bad usage or config, 3 refused by policy
 * or verification (README "Exit codes").
 */
import { Command, CommanderError } from 'commander';
import { BallastError } from '../core/errors.ts';
import { CliError, EXIT_ERROR, EXIT_LOCKED, EXIT_USAGE } from './exitCodes.ts';
import { RunLockBusyError } from '../app/runLock.ts';
import { registerAllowances } from './commands/allowances.ts';
import { registerDaemon } from './commands/daemon.ts';
import { registerResume } from './commands/resume.ts';
import { registerWithdraw } from './commands/withdraw.ts';
import { registerDemo } from './commands/demo.ts';
import { registerHistory } from './commands/history.ts';
import { registerLimits } from './commands/limits.ts';
import { registerOrderId } from './commands/orderId.ts';
import { registerPlan } from './commands/plan.ts';
import { registerRun } from './commands/run.ts';
import { registerSandbox } from './commands/sandbox.ts';
import { registerVerifyQuote } from './commands/verifyQuote.ts';
import { armCrashFromEnv } from '../config/crashAt.ts';

/**
 * Builds the program. `out` receives command output (stdout in production; a buffer in tests).
 */
export function buildProgram(out: (s: string) => void = (s) => process.stdout.write(`${s}\n`)): Command {
  const program = new Command('ballast')
    .description('Keeps a multi-chain treasury at its target balances through the Relay cross-chain API')
    .option('-c, --config <file>', 'config file (default: $BALLAST_CONFIG or ./ballast.yaml)')
    .option('--log-level <level>', 'log level for the JSON logs on stderr (trace..fatal)')
    .showHelpAfterError()
    .exitOverride();
  registerRun(program, out);
  registerDaemon(program);
  registerPlan(program, out);
  registerVerifyQuote(program, out);
  registerOrderId(program, out);
  registerHistory(program, out);
  registerLimits(program, out);
  registerAllowances(program, out);
  registerResume(program, out);
  registerWithdraw(program, out);
  registerSandbox(program, out);
  registerDemo(program, out);
  for (const cmd of program.commands) cmd.exitOverride();
  return program;
}

/**
 * Runs the CLI and returns the exit code (never calls process.exit itself).
 */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    try {
      armCrashFromEnv(process.env); // fault injection for the crash-recovery suite; a no-op when unset
    } catch (error) {
      throw new CliError((error as Error).message, EXIT_USAGE);
    }
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
    if (error instanceof RunLockBusyError) {
      process.stderr.write(`ballast: ${error.message}\n`);
      return EXIT_LOCKED;
    }
    // Coded errors (store, Relay API) carry a complete message; anything else is a bug: show the stack.
    const coded = error instanceof BallastError;
    process.stderr.write(`ballast: ${coded ? error.message : ((error as Error).stack ?? String(error))}\n`);
    return EXIT_ERROR;
  }
}

if (process.argv[1] && import.meta.url === (await import('node:url')).pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv);
}
