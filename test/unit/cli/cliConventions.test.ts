/**
 * Conventions every `ballast` command shares (src/cli/main.ts, src/cli/errorReport.ts): a mistyped command or option
 * prints commander's suggestion and a short usage, not the whole help; an unknown `--log-level` is refused (exit 2)
 * before any command runs, naming the accepted values; each default appears once in `--help`; an error is one line
 * on stderr, or one JSON object on stdout under `--json`, with the error's own code where it has one.
 */
import { CommanderError, type Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { commandsFor, COMMAND_NAMES } from '../../../packages/ballast/src/cli/commandTable.ts';
import { describeError, renderError, wantsJson } from '../../../packages/ballast/src/cli/errorReport.ts';
import { CliError, EXIT_REFUSED, EXIT_USAGE } from '../../../packages/ballast/src/cli/exitCodes.ts';
import { buildProgram } from '../../../packages/ballast/src/cli/main.ts';
import { ConfigError } from '../../../packages/ballast/src/config/loadConfig.ts';
import { StoreNotFoundError } from '../../../packages/ballast/src/store/errors.ts';

const argv = (...args: string[]) => ['/usr/bin/node', '/opt/ballast/bin/ballast.mjs', ...args];

function eachCommand(cmd: Command, visit: (c: Command) => void): void {
  visit(cmd);
  for (const sub of cmd.commands) eachCommand(sub, visit);
}

/** What commander writes to stderr for a command line that it refuses, and the error it throws. */
async function refused(...args: string[]): Promise<{ stderr: string; error: unknown }> {
  const program = await buildProgram(() => {}, commandsFor(argv(...args)));
  let stderr = '';
  eachCommand(program, (c) => c.configureOutput({ writeErr: (s) => (stderr += s), writeOut: () => {} }));
  const error = await program.parseAsync(argv(...args)).then(
    () => undefined,
    (e: unknown) => e,
  );
  return { stderr, error };
}

describe('a mistyped command or option', () => {
  it('gets the suggestion and a short usage line, not the whole help', async () => {
    const { stderr, error } = await refused('plna');
    expect(error).toBeInstanceOf(CommanderError);
    expect(stderr).toBe(
      "error: unknown command 'plna'\n(Did you mean plan?)\nUsage: ballast [options] [command]\nRun 'ballast --help' for the commands and options.\n",
    );
    expect(describeError(error).exitCode).toBe(EXIT_USAGE);
  });

  it("names the subcommand's own usage, also for a nested one", async () => {
    const option = await refused('history', '--jsno');
    expect(option.stderr).toContain("error: unknown option '--jsno'\n(Did you mean --json?)\nUsage: ballast history [options]\n");
    expect(option.stderr).not.toContain('Options:');
    const nested = await refused('approvals', 'lst');
    expect(nested.stderr).toContain(
      "(Did you mean list?)\nUsage: ballast approvals [options] [command]\nRun 'ballast approvals --help' for its commands.",
    );
  });
});

describe('--log-level', () => {
  it('refuses an unknown level before the command runs, naming the accepted values', async () => {
    const { error } = await refused('--log-level', 'loud', 'history', '--db', '/nonexistent/ballast.db');
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(EXIT_USAGE);
    expect((error as CliError).message).toBe('--log-level is "loud"; use one of fatal, error, warn, info, debug, trace, silent');
  });
});

describe('--help', () => {
  it('shows each default once: no option describes the default commander already prints', async () => {
    const program = await buildProgram(() => {}, COMMAND_NAMES);
    const repeated: string[] = [];
    eachCommand(program, (c) => {
      for (const o of c.options)
        if (o.defaultValue !== undefined && /\bdefault\b/i.test(o.description)) repeated.push(`${c.name()} ${o.flags}`);
    });
    expect(repeated).toEqual([]);
    const seed = program.commands.find((c) => c.name() === 'simulate')!.options.find((o) => o.long === '--seed')!;
    expect(`${seed.description} (default: ${JSON.stringify(seed.defaultValue)})`).toBe(
      'seed of keys, addresses and delivery jitter (default: "1")',
    );
  });
});

describe('errors', () => {
  it('keeps the code of the error behind a CliError, else names the exit code', () => {
    const config = new ConfigError('/etc/ballast/ballast.yaml', [{ path: 'relay.baseUrl', message: 'expected a URL' }]);
    expect(describeError(new CliError(config.message, EXIT_USAGE, { cause: config }))).toMatchObject({
      code: 'CONFIG_INVALID',
      exitCode: 2,
    });
    expect(describeError(new CliError('refused: expired: too late', EXIT_REFUSED))).toEqual({
      message: 'refused: expired: too late',
      code: 'REFUSED',
      exitCode: 3,
    });
    expect(describeError(new StoreNotFoundError('transfers', 9))).toMatchObject({ code: 'STORE_NOT_FOUND', exitCode: 1 });
    const bug = describeError(new TypeError('x is undefined'));
    expect(bug).toMatchObject({ message: 'x is undefined', code: 'INTERNAL', exitCode: 1 });
    expect(bug.stack).toContain('TypeError: x is undefined');
  });

  it('is one JSON object on stdout under --json, one line on stderr otherwise', () => {
    const report = describeError(new CliError('--db x: no such database file', EXIT_USAGE));
    expect(renderError(report, true)).toEqual([
      { stream: 'stdout', text: '{"error":"--db x: no such database file","code":"USAGE","exitCode":2}\n' },
    ]);
    expect(renderError(report, false)).toEqual([{ stream: 'stderr', text: 'ballast: --db x: no such database file\n' }]);
    const bug = renderError(describeError(new Error('boom')), true);
    expect(bug.map((o) => o.stream)).toEqual(['stdout', 'stderr']); // the stack stays on stderr
    expect(wantsJson(argv('report', '--json'))).toBe(true);
    expect(wantsJson(argv('report', '--', '--json'))).toBe(false);
    expect(wantsJson(argv('report', '--csv'))).toBe(false);
  });
});
