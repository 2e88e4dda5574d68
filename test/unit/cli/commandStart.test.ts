/**
 * What a command loads before its action runs. `ballast <command> --help` only needs the option definitions, so
 * the registering module of `run`, `daemon` and `plan` must not reach, through static imports, the chain
 * libraries (viem, web3.js, spl-token, bitcoinjs-lib…), the store drivers or the metrics client: their actions
 * import the app with `import()` when they run. And node-postgres is required only when a PostgreSQL store or
 * lease is opened (src/store/pg/pgModule.ts), so wiring the app on a SQLite store does not load it.
 *
 * The check walks the static value imports of src/ (`import type` and `import()` excluded), as Node's module
 * loader evaluates them at start, and into the workspace packages' sources (`@ballast/<name>/x.ts` is
 * packages/<name>/src/x.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Packages that cost start time (each 0.1–0.6 s of CPU to load) and that `--help` does not need. */
const HEAVY = [
  'viem',
  '@solana/web3.js',
  '@solana/spl-token',
  'bitcoinjs-lib',
  'tiny-secp256k1',
  'ecpair',
  'pg',
  'better-sqlite3',
  'node-cron',
  'prom-client',
  'litesvm',
  'solc',
];

/** Specifiers of the static value imports and re-exports of a source text (no `import type`, no `import()`). */
function staticImports(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(import|export)\s+(?!type\s)([^;]*?)\s+from\s+'([^']+)'|^\s*import\s+'([^']+)'/gm)) {
    if (m[4] !== undefined) {
      out.push(m[4]);
      continue;
    }
    const clause = m[2]!;
    const named = /^\{([^}]*)\}$/.exec(clause.trim());
    // `import { type A, type B } from 'x'` is erased by the compiler (verbatimModuleSyntax keeps an empty import
    // only for a side-effect import, which has no braces).
    if (
      named &&
      named[1]!
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
        .every((s) => s.startsWith('type '))
    )
      continue;
    out.push(m[3]!);
  }
  return out;
}

/** Path under the root of a workspace package module (`@ballast/protocol/core/units.ts`), or null for another specifier. */
function workspaceFile(spec: string): string | null {
  const m = /^@ballast\/([a-z-]+)\/(.+)$/.exec(spec);
  return m ? `packages/${m[1]!}/src/${m[2]!}` : null;
}

/** Package name of a bare specifier (`@scope/name/sub` → `@scope/name`), or null for relative, node: and workspace ones. */
function packageOf(spec: string): string | null {
  if (spec.startsWith('.') || spec.startsWith('node:') || workspaceFile(spec) !== null) return null;
  return spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
}

/**
 * Every package reached from `entry` (a path under the root) through static imports, each with the chain of
 * modules that reaches it first.
 */
function reachedPackages(entry: string): Map<string, string[]> {
  const via = new Map<string, string | null>([[entry, null]]);
  const packages = new Map<string, string[]>();
  const queue = [entry];
  const chain = (file: string) => {
    const out: string[] = [];
    for (let f: string | null | undefined = file; f; f = via.get(f)) out.unshift(f);
    return out;
  };
  while (queue.length > 0) {
    const file = queue.shift()!; // length > 0
    for (const spec of staticImports(readFileSync(path.join(root, file), 'utf8'))) {
      const pkg = packageOf(spec);
      if (pkg !== null) {
        if (!packages.has(pkg)) packages.set(pkg, chain(file));
        continue;
      }
      if (spec.startsWith('node:')) continue;
      const next =
        workspaceFile(spec) ??
        path
          .relative(root, path.resolve(path.dirname(path.join(root, file)), spec))
          .split(path.sep)
          .join('/');
      if (!existsSync(path.join(root, next))) throw new Error(`${file}: import ${spec} does not resolve to a file`);
      if (!via.has(next)) {
        via.set(next, file);
        queue.push(next);
      }
    }
  }
  return packages;
}

/** The heavy packages reached from `entry`, each as `package <- importer <- … <- entry`. */
function heavyFrom(entry: string): string[] {
  return [...reachedPackages(entry)].filter(([pkg]) => HEAVY.includes(pkg)).map(([pkg, path]) => [pkg, ...path.reverse()].join(' <- '));
}

describe('the start of a command', () => {
  it('the walker sees what the app loads (the check is not empty)', () => {
    const app = [...reachedPackages('packages/ballast/src/cli/openBallast.ts').keys()];
    expect(app).toEqual(
      expect.arrayContaining(['viem', '@solana/web3.js', '@solana/spl-token', 'bitcoinjs-lib', 'better-sqlite3', 'prom-client']),
    );
    // src/policy/guaranteedLoss.ts imports only @ballast/protocol modules: viem is found through their sources.
    expect(reachedPackages('packages/ballast/src/policy/guaranteedLoss.ts').get('viem')).toEqual([
      'packages/ballast/src/policy/guaranteedLoss.ts',
      'packages/protocol/src/core/units.ts',
    ]);
    expect(
      staticImports(
        "import { type A, type B } from 'x';\nimport type { C } from 'y';\nimport { d, type E } from 'z';\nexport { f } from './f.ts';\nimport 'side';\nconst g = await import('lazy');",
      ),
    ).toEqual(['z', './f.ts', 'side']);
  });

  it.each(['run', 'daemon', 'plan'])('`%s --help` loads no chain library, store driver or metrics client', (name) => {
    expect(heavyFrom(`packages/ballast/src/cli/commands/${name}.ts`)).toEqual([]);
  });

  it('wiring the app on a SQLite store does not load node-postgres (required when a PostgreSQL store opens)', () => {
    const app = reachedPackages('packages/ballast/src/cli/openBallast.ts');
    expect(app.get('pg')).toBeUndefined();
    expect(reachedPackages('packages/ballast/src/app/daemon.ts').get('pg')).toBeUndefined();
  });
});
