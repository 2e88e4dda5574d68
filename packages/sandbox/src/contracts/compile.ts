/**
 * Compiles the sandbox Solidity contracts with solc-js (standard JSON input, optimizer on, evmVersion cancun)
 * and caches the result on disk, keyed by sha256 of (solc version, settings, sources), in
 * `node_modules/.cache/ballast-sandbox/`. Only the first start after a source change pays the compile
 * (loading the solc WebAssembly compiler takes seconds); later starts read one small JSON file.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Abi, Hex } from 'viem';
import { z } from 'zod';
import { BallastError } from '@ballast/protocol/core/errors.ts';

/** Contract names compiled from `src/sandbox/contracts/<Name>.sol`. */
export const SANDBOX_CONTRACT_NAMES = [
  'RelayDepository',
  'TestStablecoin',
  'TestTetherToken',
  'TestToken',
  'Multicall3',
  'RelayRouter',
  'ApprovalProxy',
] as const;
/** One of {@link SANDBOX_CONTRACT_NAMES}. */
export type SandboxContractName = (typeof SANDBOX_CONTRACT_NAMES)[number];

/** Compiled contract: JSON ABI, creation bytecode (for deployment) and runtime bytecode (for `anvil_setCode`). */
export interface ContractArtifact {
  abi: Abi;
  bytecode: Hex;
  deployedBytecode: Hex;
}

/** Artifacts of every sandbox contract, by contract name. */
export type SandboxArtifacts = Record<SandboxContractName, ContractArtifact>;

/** Options of {@link getArtifacts}. */
export interface GetArtifactsOptions {
  /** Cache directory; default `<node_modules>/.cache/ballast-sandbox`. */
  cacheDir?: string;
}

/** Stable codes of {@link SandboxCompileError}. */
export type SandboxCompileErrorCode = 'SANDBOX_COMPILE_FAILED';

/** Raised when solc reports errors or its output lacks a contract. `code` is stable. */
export class SandboxCompileError extends BallastError {
  readonly code: SandboxCompileErrorCode = 'SANDBOX_COMPILE_FAILED';
}

const COMPILER_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
} as const;

const HexBytecode = z.string().regex(/^0x[0-9a-f]+$/, 'expected non-empty 0x-prefixed bytecode');
const ArtifactSchema = z.object({
  abi: z.array(z.looseObject({ type: z.string() })),
  bytecode: HexBytecode,
  deployedBytecode: HexBytecode,
});
const ArtifactsSchema = z.object({
  RelayDepository: ArtifactSchema,
  TestStablecoin: ArtifactSchema,
  TestTetherToken: ArtifactSchema,
  TestToken: ArtifactSchema,
  Multicall3: ArtifactSchema,
  RelayRouter: ArtifactSchema,
  ApprovalProxy: ArtifactSchema,
});

/** The subset of solc's standard JSON output read here. */
const SolcOutputSchema = z.looseObject({
  errors: z.array(z.looseObject({ severity: z.string(), formattedMessage: z.string().optional(), message: z.string() })).optional(),
  contracts: z
    .record(
      z.string(),
      z.record(
        z.string(),
        z.looseObject({
          abi: z.array(z.looseObject({ type: z.string() })),
          evm: z.looseObject({
            bytecode: z.looseObject({ object: z.string() }),
            deployedBytecode: z.looseObject({ object: z.string() }),
          }),
        }),
      ),
    )
    .optional(),
});

const require = createRequire(import.meta.url);
const memo = new Map<string, Promise<SandboxArtifacts>>();

/** `node_modules/.cache/ballast-sandbox`, located from the installed solc package. */
function defaultCacheDir(): string {
  const nodeModules = dirname(dirname(require.resolve('solc/package.json')));
  return join(nodeModules, '.cache', 'ballast-sandbox');
}

async function readSources(): Promise<Record<string, { content: string }>> {
  const entries = await Promise.all(
    SANDBOX_CONTRACT_NAMES.map(async (name) => {
      const content = await readFile(new URL(`./${name}.sol`, import.meta.url), 'utf8');
      return [`${name}.sol`, { content }] as const;
    }),
  );
  return Object.fromEntries(entries);
}

function toArtifacts(artifacts: z.infer<typeof ArtifactsSchema>): SandboxArtifacts {
  const out = {} as SandboxArtifacts; // every key is filled by the loop below
  for (const name of SANDBOX_CONTRACT_NAMES) {
    const a = artifacts[name];
    out[name] = {
      abi: a.abi as unknown as Abi, // solc emits JSON ABI; shape checked loosely by ArtifactSchema
      bytecode: a.bytecode as Hex, // checked by HexBytecode
      deployedBytecode: a.deployedBytecode as Hex, // checked by HexBytecode
    };
  }
  return out;
}

/** Runs solc-js on the sources; throws SandboxCompileError on any error diagnostic. */
async function compile(sources: Record<string, { content: string }>): Promise<z.infer<typeof ArtifactsSchema>> {
  const solc = (await import('solc')).default;
  const input = { language: 'Solidity', sources, settings: COMPILER_SETTINGS };
  const raw: unknown = JSON.parse(solc.compile(JSON.stringify(input)) as string); // solc returns a JSON string
  const output = SolcOutputSchema.parse(raw);
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) {
    throw new SandboxCompileError(
      `solc reported errors in src/sandbox/contracts: ${errors.map((e) => e.formattedMessage ?? e.message).join('\n')}`,
    );
  }
  const result: Record<string, unknown> = {};
  for (const name of SANDBOX_CONTRACT_NAMES) {
    const c = output.contracts?.[`${name}.sol`]?.[name];
    if (c === undefined) throw new SandboxCompileError(`solc output has no contract ${name} in ${name}.sol; check the contract name`);
    result[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}`, deployedBytecode: `0x${c.evm.deployedBytecode.object}` };
  }
  return ArtifactsSchema.parse(result);
}

async function load(cacheDir: string): Promise<SandboxArtifacts> {
  const sources = await readSources();
  const solcVersion = (require('solc/package.json') as { version: string }).version; // package.json always has version
  const key = createHash('sha256')
    .update(JSON.stringify({ solcVersion, settings: COMPILER_SETTINGS, sources }))
    .digest('hex');
  const file = join(cacheDir, `artifacts-${key}.json`);
  try {
    return toArtifacts(ArtifactsSchema.parse(JSON.parse(await readFile(file, 'utf8'))));
  } catch {
    // cache miss or unreadable cache file: compile below and rewrite it
  }
  const artifacts = await compile(sources);
  await mkdir(cacheDir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(artifacts));
  await rename(tmp, file); // atomic: concurrent starts never read a half-written file
  return toArtifacts(artifacts);
}

/**
 * Returns the compiled sandbox contracts, compiling with solc-js only when the on-disk cache has no entry for
 * the current sources and solc version. Results are also memoised per cache directory for this process.
 *
 * @param opts optional cache directory (tests use a temp dir)
 * @returns ABI, creation bytecode and runtime bytecode of every contract in {@link SANDBOX_CONTRACT_NAMES}
 * @throws SandboxCompileError when solc reports an error; fs errors when the cache directory is not writable
 */
export function getArtifacts(opts: GetArtifactsOptions = {}): Promise<SandboxArtifacts> {
  const cacheDir = opts.cacheDir ?? defaultCacheDir();
  let pending = memo.get(cacheDir);
  if (pending === undefined) {
    pending = load(cacheDir);
    memo.set(cacheDir, pending);
    pending.catch(() => memo.delete(cacheDir));
  }
  return pending;
}
