/**
 * The per-command loading of `ballast`: which subcommand modules a command line needs, that each table entry
 * registers the command it is named after, and that the program built for one command holds only that one.
 */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS, COMMAND_NAMES, commandsFor } from '../../../packages/ballast/src/cli/commandTable.ts';
import { buildProgram, versionLine } from '../../../packages/ballast/src/cli/main.ts';
import { buildInfo } from '../../../packages/ballast/src/core/buildInfo.ts';

const argv = (...args: string[]) => ['/usr/bin/node', '/opt/ballast/bin/ballast.mjs', ...args];

describe('commandsFor', () => {
  it('picks the subcommand after the global options, in every spelling commander accepts', () => {
    expect(commandsFor(argv('history'))).toEqual(['history']);
    expect(commandsFor(argv('history', '--help'))).toEqual(['history']);
    expect(commandsFor(argv('-c', 'ballast.yaml', 'run', '--once'))).toEqual(['run']);
    expect(commandsFor(argv('--config', 'x.yaml', '--log-level', 'debug', 'daemon'))).toEqual(['daemon']);
    expect(commandsFor(argv('--config=x.yaml', '--log-level=warn', 'verify-quote'))).toEqual(['verify-quote']);
    expect(commandsFor(argv('-cx.yaml', 'order-id'))).toEqual(['order-id']);
    // A global option's value that happens to be a command name is not the command.
    expect(commandsFor(argv('--config', 'demo', 'limits'))).toEqual(['limits']);
  });

  it('loads one command for `help <command>` and none for --version', () => {
    expect(commandsFor(argv('help', 'withdraw'))).toEqual(['withdraw']);
    expect(commandsFor(argv('--version'))).toEqual([]);
    expect(commandsFor(argv('-c', 'x.yaml', '-V'))).toEqual([]);
  });

  it('loads every command to list them or to suggest one', () => {
    for (const args of [[], ['--help'], ['-h'], ['help'], ['help', 'nope'], ['histry'], ['--bogus', 'run'], ['toString'], ['-c']]) {
      expect(commandsFor(argv(...args)), args.join(' ')).toEqual([...COMMAND_NAMES]);
    }
  });
});

describe('the command table', () => {
  it('lists every command, each loader registering the command it is named after', async () => {
    expect(COMMAND_NAMES).toEqual([
      'run',
      'daemon',
      'plan',
      'transfer',
      'verify-quote',
      'order-id',
      'history',
      'report',
      'export',
      'limits',
      'approvals',
      'approve',
      'reject',
      'policy',
      'needs',
      'allowances',
      'check-config',
      'schema',
      'api-check',
      'resume',
      'withdraw',
      'sandbox',
      'demo',
      'migrate',
      'store',
      'simulate',
      'completion',
    ]);
    for (const name of COMMAND_NAMES) {
      const program = new Command('ballast');
      (await COMMANDS[name]!())(program, () => {});
      expect(program.commands.map((c) => c.name())).toEqual([name]);
    }
  }, 60_000);

  it('builds a program holding only the commands asked for, in help order', async () => {
    expect((await buildProgram(() => {}, ['history'])).commands.map((c) => c.name())).toEqual(['history']);
    expect((await buildProgram(() => {}, [])).commands).toEqual([]);
    expect((await buildProgram(() => {}, ['demo', 'run'])).commands.map((c) => c.name())).toEqual(['run', 'demo']);
    expect((await buildProgram(() => {})).commands.map((c) => c.name())).toEqual([...COMMAND_NAMES]);
  }, 60_000);
});

describe('versionLine', () => {
  it('prints the package version and the first 12 hex digits of the commit', () => {
    const { version, commit } = buildInfo();
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(versionLine()).toBe(`${version} (${commit === 'unknown' ? 'unknown' : commit.slice(0, 12)})`);
    if (commit !== 'unknown') expect(versionLine()).toMatch(/^\S+ \([0-9a-f]{12}\)$/);
  });
});
