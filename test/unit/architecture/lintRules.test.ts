/**
 * The lint rules of eslint.config.js are on and catch what they are for: each case plants one offending source
 * text at a path inside src/ (not written to disk; linted through ESLint's Node API with the repository's own
 * config) and expects the rule id that must report it, and each allowed form is checked to pass. So a rule
 * switched off or a boundary pattern that stops matching fails here, not silently.
 *
 * The planted file of the type-aware cases is type-checked in a project of its own (the TypeScript project service's
 * default project with tsconfig.json's options), because it does not exist on disk. The layer boundaries are syntax
 * rules (`@typescript-eslint/no-restricted-imports`, `no-restricted-syntax`): their cases lint with the same config
 * and typescript-eslint's `disableTypeChecked` on top, so no program is built for them (about 1 s of CPU each).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const PLANTED = 'packages/ballast/src/*/lintPlanted.ts';
const PLANTED_IN_SANDBOX = 'packages/sandbox/src/*/lintPlanted.ts';

const eslint = new ESLint({
  cwd: root,
  cache: false,
  overrideConfig: {
    files: [PLANTED, PLANTED_IN_SANDBOX],
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: [PLANTED, PLANTED_IN_SANDBOX],
          defaultProject: 'tsconfig.json',
          maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: 32,
        },
      },
    },
  },
});

/** The repository's config without the type-aware rules and the project service, for the syntax-only boundary rules. */
const syntaxOnly = new ESLint({
  cwd: root,
  cache: false,
  overrideConfig: { ...tseslint.configs.disableTypeChecked, files: ['**/*.ts'] },
});

/**
 * The rule ids (sorted, one per message) ESLint reports for `code` placed at `<base>/<dir>/lintPlanted.ts`
 * (`base` the product's packages/ballast/src/ by default, or packages/sandbox/src/), linted by `linter`.
 */
async function ruleIdsOf(dir: string, code: string, base = 'packages/ballast/src', linter = eslint): Promise<string[]> {
  const [result] = await linter.lintText(code, { filePath: path.join(root, base, dir, 'lintPlanted.ts') });
  const fatal = result!.messages.filter((m) => m.ruleId === null);
  if (fatal.length > 0) throw new Error(`planted file did not lint: ${fatal.map((m) => m.message).join('; ')}`);
  return result!.messages.map((m) => m.ruleId!).sort();
}

const STORE =
  "import type { StoreDb } from '../store/db.ts';\nimport { getTransfer, markTxSent } from '../store/transfers.ts';\ndeclare const db: StoreDb;\n";
const RESTRICTED_IMPORT = '@typescript-eslint/no-restricted-imports';

describe('type-aware rules (eslint.config.js)', { timeout: 180_000 }, () => {
  const ruleIds = (dir: string, code: string): Promise<string[]> => ruleIdsOf(dir, code);

  it('a dropped store write is a floating promise', async () => {
    expect(await ruleIds('cycle', `${STORE}export async function f(): Promise<void> {\n  markTxSent(db, 1, 0);\n}\n`)).toEqual([
      '@typescript-eslint/no-floating-promises',
    ]);
  });

  it('an async callback of forEach and a Promise as a filter predicate are misused promises', async () => {
    expect(
      await ruleIds(
        'cycle',
        `${STORE}export function f(ids: number[]): void {\n  ids.forEach(async (id) => {\n    await markTxSent(db, id, 0);\n  });\n}\n`,
      ),
    ).toEqual(['@typescript-eslint/no-misused-promises']);
    expect(
      await ruleIds(
        'cycle',
        `${STORE}export function f(ids: number[]): number[] {\n  return ids.filter((id) => getTransfer(db, id));\n}\n`,
      ),
    ).toEqual(['@typescript-eslint/no-misused-promises']);
  });

  it('a switch over a union that misses a member is reported; awaited, returned and void-marked calls pass', async () => {
    expect(
      await ruleIds(
        'planner',
        "export function f(s: 'a' | 'b'): number {\n  switch (s) {\n    case 'a':\n      return 1;\n  }\n  return 0;\n}\n",
      ),
    ).toEqual(['@typescript-eslint/switch-exhaustiveness-check']);
    const ok = `${STORE}export async function f(ids: number[]): Promise<unknown> {\n  await markTxSent(db, 1, 0);\n  void markTxSent(db, 2, 0);\n  await Promise.all(ids.map((id) => getTransfer(db, id)));\n  return getTransfer(db, 3);\n}\n`;
    expect(await ruleIds('cycle', ok)).toEqual([]);
  });

  it('a type imported as a value is reported (consistent-type-imports)', async () => {
    expect(
      await ruleIds(
        'planner',
        "import { type Address, getAddress } from 'viem';\nimport { Hex } from 'viem';\nexport const f = (a: Address, h: Hex): string => getAddress(a) + h;\n",
      ),
    ).toEqual(['@typescript-eslint/consistent-type-imports']);
  });
});

describe('layer boundaries (eslint.config.js)', { timeout: 180_000 }, () => {
  const ruleIds = (dir: string, code: string, base = 'packages/ballast/src'): Promise<string[]> => ruleIdsOf(dir, code, base, syntaxOnly);

  it('chain clients and signers only under src/chains/ and the sandbox', async () => {
    expect(
      await ruleIds(
        'cycle',
        "import { createWalletClient, http } from 'viem';\nexport const f = (): unknown => createWalletClient({ transport: http() });\n",
      ),
    ).toEqual([RESTRICTED_IMPORT, RESTRICTED_IMPORT]);
    expect(await ruleIds('app', "import { privateKeyToAccount } from 'viem/accounts';\nexport const f = privateKeyToAccount;\n")).toEqual([
      RESTRICTED_IMPORT,
    ]);
    expect(
      await ruleIds(
        'executor',
        "import { Connection } from '@solana/web3.js';\nexport const f = (): Connection => new Connection('http://127.0.0.1:8899');\n",
      ),
    ).toEqual([RESTRICTED_IMPORT]);
    expect(await ruleIds('withdraw', "import { ECPairFactory } from 'ecpair';\nexport const f = ECPairFactory;\n")).toEqual([
      RESTRICTED_IMPORT,
    ]);
    expect(
      await ruleIds(
        'cycle',
        "import type { Psbt } from 'bitcoinjs-lib';\nexport function f(psbt: Psbt): void {\n  psbt.signAllInputs({} as never);\n}\n",
      ),
    ).toEqual(['no-restricted-syntax']);
    expect(
      await ruleIds('cycle', "export async function f(): Promise<Response> {\n  return fetch('http://127.0.0.1:3000/tx');\n}\n"),
    ).toEqual(['no-restricted-syntax']);
    // Allowed: type-only imports, the libraries' pure parts, HTTP in the Relay client, clients inside an adapter.
    expect(
      await ruleIds(
        'cycle',
        "import type { Connection } from '@solana/web3.js';\nimport { PublicKey } from '@solana/web3.js';\nexport const f = (c: Connection): PublicKey => new PublicKey(c.rpcEndpoint);\n",
      ),
    ).toEqual([]);
    expect(
      await ruleIds('relay', "export async function f(): Promise<Response> {\n  return fetch('http://127.0.0.1:3000/quote');\n}\n"),
    ).toEqual([]);
    expect(
      await ruleIds(
        'chains',
        "import { createPublicClient, http } from 'viem';\nexport const f = (): unknown => createPublicClient({ transport: http() });\n",
      ),
    ).toEqual([]);
  });

  it('a cross-layer import: the cycle and the executor reach chains only through the adapter interface', async () => {
    expect(
      await ruleIds('cycle', "import { readEvmBalances } from '../chains/evm/readBalances.ts';\nexport const f = readEvmBalances;\n"),
    ).toEqual([RESTRICTED_IMPORT]);
    expect(await ruleIds('executor', "import type { ChainAdapter } from '../chains/adapter.ts';\nexport type F = ChainAdapter;\n")).toEqual(
      [],
    );
  });

  it('database drivers and SQL only under src/store/', async () => {
    expect(
      await ruleIds('cycle', "import Database from 'better-sqlite3';\nexport const f = (): unknown => new Database(':memory:');\n"),
    ).toEqual([RESTRICTED_IMPORT]);
    expect(await ruleIds('metrics', "import pg from 'pg';\nexport const f = pg;\n")).toEqual([RESTRICTED_IMPORT]);
    expect(
      await ruleIds(
        'cycle',
        `${STORE}export async function f(): Promise<void> {\n  await db.run(\n    \`UPDATE transfers SET status = ?\`,\n    'failed',\n  );\n}\n`,
      ),
    ).toEqual(['no-restricted-syntax']);
    expect(
      await ruleIds(
        'cycle',
        "declare const db: { prepare(sql: string): unknown };\nexport const f = (): unknown => db.prepare('SELECT 1');\n",
      ),
    ).toEqual(['no-restricted-syntax']);
    expect(
      await ruleIds(
        'cli',
        'declare const db: { sqlite: { exec(sql: string): void } };\nexport const f = (sql: string): void => db.sqlite.exec(sql);\n',
      ),
    ).toEqual(['no-restricted-syntax']);
    // Allowed: the elector's pool, a type import of the driver, `get` with a word that is not SQL.
    expect(await ruleIds('ha', "import pg from 'pg';\nexport const f = pg;\n")).toEqual([]);
    expect(
      await ruleIds(
        'cycle',
        "import type Database from 'better-sqlite3';\nexport const f = (params: URLSearchParams, d?: Database.Database): unknown => params.get('with') ?? d;\n",
      ),
    ).toEqual([]);
  });

  it('the pure core imports no I/O', async () => {
    expect(await ruleIds('planner', "import { readFileSync } from 'node:fs';\nexport const f = readFileSync;\n")).toEqual([
      RESTRICTED_IMPORT,
    ]);
    expect(
      await ruleIds('verify', "import { createRelayClient } from '../relay/client.ts';\nexport const f = createRelayClient;\n"),
    ).toEqual([RESTRICTED_IMPORT]);
    expect(await ruleIds('policy', "import { getTransfer } from '../store/transfers.ts';\nexport const f = getTransfer;\n")).toEqual([
      RESTRICTED_IMPORT,
    ]);
    expect(
      await ruleIds('policy', "import type { QuoteResponse } from '@ballast/protocol/relay/schemas.ts';\nexport type F = QuoteResponse;\n"),
    ).toEqual([]);
  });

  it('the product loads the sandbox only from the CLI commands that start it, by a dynamic import', async () => {
    const dynamic = "export const f = async (): Promise<unknown> => (await import('@ballast/sandbox/startSandbox.ts')).startSandbox;\n";
    expect(
      await ruleIds('cycle', "import { startSandbox } from '@ballast/sandbox/startSandbox.ts';\nexport const f = startSandbox;\n"),
    ).toEqual([RESTRICTED_IMPORT]);
    expect(await ruleIds('cli', "import type { Sandbox } from '@ballast/sandbox/startSandbox.ts';\nexport type F = Sandbox;\n")).toEqual([
      RESTRICTED_IMPORT,
    ]);
    // A relative path into the sandbox breaks two rules: it reaches the sandbox, and it leaves the product's package.
    expect(
      await ruleIds('cycle', "import { startSandbox } from '../../../sandbox/src/startSandbox.ts';\nexport const f = startSandbox;\n"),
    ).toEqual([RESTRICTED_IMPORT, RESTRICTED_IMPORT]);
    expect(
      await ruleIds('cycle', "import { parseUsdMicros } from '../../../protocol/src/core/units.ts';\nexport const f = parseUsdMicros;\n"),
    ).toEqual([RESTRICTED_IMPORT]);
    expect(await ruleIds('cli', dynamic)).toEqual(['no-restricted-syntax']);
    const lintCommand = async (code: string) => {
      const [result] = await syntaxOnly.lintText(code, { filePath: path.join(root, 'packages/ballast/src/cli/commands/sandbox.ts') });
      return result!.messages.filter((m) => m.ruleId === RESTRICTED_IMPORT || m.ruleId === 'no-restricted-syntax').map((m) => m.ruleId);
    };
    expect(await lintCommand(dynamic)).toEqual([]);
    expect(await lintCommand("import { startSandbox } from '@ballast/sandbox/startSandbox.ts';\nexport const f = startSandbox;\n")).toEqual(
      [RESTRICTED_IMPORT],
    );
  });

  it("the sandbox does not import the client's Relay API schemas (it keeps its own reading)", async () => {
    const inSandbox = (code: string) => ruleIds('api', code, 'packages/sandbox/src');
    expect(
      await inSandbox("import { QuoteResponseSchema } from '@ballast/protocol/relay/schemas.ts';\nexport const f = QuoteResponseSchema;\n"),
    ).toEqual([RESTRICTED_IMPORT]);
    expect(await inSandbox("import type { OrderData } from '@ballast/protocol/relay/schemas.ts';\nexport type F = OrderData;\n")).toEqual([
      RESTRICTED_IMPORT,
    ]);
    expect(
      await inSandbox(
        "import { REQUEST_STATUS_UPDATED } from '@ballast/protocol/relay/webhookSchemas.ts';\nexport const f = REQUEST_STATUS_UPDATED;\n",
      ),
    ).toEqual([RESTRICTED_IMPORT]);
    expect(
      await inSandbox("import { computeOrderId } from '@ballast/protocol/protocol/orderId.ts';\nexport const f = computeOrderId;\n"),
    ).toEqual([]);
  });
});
