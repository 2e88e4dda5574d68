/**
 * `ballast needs add|list|cancel` (src/cli/commands/needs.ts) in process, on a real config file and SQLite store:
 * one line per need in whole units with the symbol, idempotent on `--key`, and the README's exit codes: 2 for a flag
 * that cannot be used (named in the message) or an unknown id, 3 for a refusal (a key reused with other content, a
 * need no longer open).
 */
import path from 'node:path';
import { CommanderError } from 'commander';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildProgram } from '../../../packages/ballast/src/cli/main.ts';
import { CliError } from '../../../packages/ballast/src/cli/exitCodes.ts';
import { openSqliteStore } from '../../../packages/ballast/src/store/openStore.ts';
import { listNeeds, type NeedRow } from '../../../packages/ballast/src/store/needs.ts';
import { ENV, baseConfig, tempDirPerTest } from '../config/helpers.ts';

const tmp = tempDirPerTest();
let configFile = '';
let storeFile = '';

beforeEach(() => {
  for (const [k, v] of Object.entries(ENV)) vi.stubEnv(k, v);
  const doc = baseConfig();
  for (const entry of doc.assets.USDC as Record<string, unknown>[]) entry.decimals = 6;
  storeFile = path.join(tmp.dir, 'ballast.db');
  doc.store = storeFile;
  configFile = tmp.write(doc);
});
afterEach(() => {
  vi.unstubAllEnvs();
});

/** Runs `ballast --config <file> needs …` in process: exit code as main() would return it, stdout lines, error line. */
async function needs(...args: string[]): Promise<{ code: number; out: string[]; err: string }> {
  const out: string[] = [];
  const program = await buildProgram((s) => out.push(s), ['needs']);
  program.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  for (const c of program.commands) c.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  try {
    await program.parseAsync(['node', 'ballast', '--config', configFile, 'needs', ...args]);
    return { code: 0, out, err: '' };
  } catch (error) {
    if (error instanceof CliError) return { code: error.exitCode, out, err: error.message };
    if (error instanceof CommanderError) return { code: 2, out, err: error.message };
    throw error;
  }
}

async function stored(): Promise<NeedRow[]> {
  const db = openSqliteStore(storeFile);
  try {
    return await listNeeds(db, { all: true });
  } finally {
    await db.close();
  }
}

const ADD_FLAGS: Readonly<Record<string, string>> = {
  '--asset': 'USDC',
  '--chain': 'base',
  '--amount': '50000',
  '--due': '2099-12-06T09:00:00Z',
  '--key': 'payroll-2099-12',
};
/** `add` with the flags of ADD_FLAGS, some replaced or added. */
const addWith = (over: Record<string, string> = {}) => ['add', ...Object.entries({ ...ADD_FLAGS, ...over }).flat()];
const ADD = addWith();

describe('ballast needs', () => {
  it('add records a need once per key and prints it in whole units; list shows it', async () => {
    const first = await needs(...ADD, '--note', 'December payroll', '--by', 'alice');
    expect(first).toEqual({
      code: 0,
      out: ['recorded: #1 open 50000 USDC base:treasury due 2099-12-06T09:00:00.000Z key payroll-2099-12 "December payroll"'],
      err: '',
    });
    const again = await needs(...ADD, '--note', 'December payroll', '--json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.out[0]!)).toMatchObject({ created: false, need: { id: 1, amount: '50000', amountBaseUnits: '50000000000' } });
    const rows = await stored();
    expect(rows.map((r) => [r.id, r.amount, r.createdBy])).toEqual([[1, 50_000_000_000n, 'alice']]);

    const list = await needs('list');
    expect(list.out).toEqual(['#1 open 50000 USDC base:treasury due 2099-12-06T09:00:00.000Z key payroll-2099-12 "December payroll"']);
    expect(JSON.parse((await needs('list', '--json')).out[0]!)).toMatchObject([{ id: 1, amount: '50000', status: 'open' }]);
  });

  it('refuses a key reused with other content (exit 3) and flags it cannot use (exit 2, the flag named); nothing recorded', async () => {
    expect((await needs(...ADD)).code).toBe(0);
    const conflict = await needs(...addWith({ '--amount': '50001' }));
    expect(conflict.code).toBe(3);
    expect(conflict.err).toMatch(/^refused: --key "payroll-2099-12" is already recorded for need 1 with another amount/);

    const bad: [string[], RegExp][] = [
      [['--amount', '1.1234567'], /^--amount: 1\.1234567 has 7 decimals but USDC on base:treasury has 6/],
      [['--amount', '0'], /^--amount: must be above 0/],
      [['--chain', 'optimism'], /^--chain: USDC is not held on chain "optimism"; its holdings are on arbitrum, base/],
      [['--asset', 'DAI'], /^--asset: no asset "DAI"/],
      [['--wallet', 'ops'], /^--wallet: USDC on base is not held by wallet "ops"/],
      [['--due', '2020-01-01T00:00:00Z'], /^--due: 2020-01-01T00:00:00\.000Z is not in the future/],
      [['--due', 'next friday'], /^--due: expected an ISO-8601 date and time/],
      [['--key', 'two words'], /^--key: must be 1–200 printable ASCII characters/],
    ];
    for (const [[flag, value], message] of bad) {
      const r = await needs(...addWith({ '--key': 'other-key', [flag!]: value! }));
      expect({ flag, code: r.code }).toEqual({ flag, code: 2 });
      expect(r.err).toMatch(message);
    }
    expect((await needs('add', '--asset', 'USDC', '--chain', 'base', '--amount', '1', '--due', '2099-01-01T00:00:00Z')).code).toBe(2);
    expect((await stored()).length).toBe(1);
  });

  it('cancel closes an open need once (exit 3 after), unknown ids exit 2; list --all shows how each ended', async () => {
    expect((await needs(...ADD)).code).toBe(0);
    expect((await needs(...addWith({ '--due': '2099-12-07T09:00:00Z', '--key': 'second', '--amount': '0.5' }))).code).toBe(0);
    const cancelled = await needs('cancel', '1', '--by', 'alice');
    expect(cancelled.code).toBe(0);
    expect(cancelled.out[0]).toMatch(
      /^cancelled: #1 cancelled \(cancelled by alice at \S+Z\) 50000 USDC base:treasury due 2099-12-06T09:00:00\.000Z key payroll-2099-12$/,
    );
    const twice = await needs('cancel', '1');
    expect([twice.code, twice.err]).toEqual([3, expect.stringMatching(/^refused: need 1 is cancelled already \(cancelled by alice/)]);
    expect((await needs('cancel', '99')).code).toBe(2);
    expect((await needs('cancel', 'abc')).code).toBe(2);

    expect((await needs('list')).out).toEqual(['#2 open 0.5 USDC base:treasury due 2099-12-07T09:00:00.000Z key second']);
    const all = (await needs('list', '--all')).out;
    expect(all.map((l) => l.split(' ').slice(0, 2).join(' '))).toEqual(['#1 cancelled', '#2 open']);
    expect((await stored()).map((r) => r.status)).toEqual(['cancelled', 'open']);
  });

  it('says when there is nothing to list', async () => {
    expect((await needs('list')).out).toEqual(['no open needs']);
    expect((await needs('list', '--all')).out).toEqual(['no needs']);
  });
});
