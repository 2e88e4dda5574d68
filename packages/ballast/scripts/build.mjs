#!/usr/bin/env node
/**
 * Builds the runnable package: compiles src/ and the sibling workspace packages' sources (../protocol/src,
 * ../sandbox/src) in one tsc run (tsconfig.build.json: type-checked, relative `.ts` import specifiers
 * rewritten to `.js`), puts src/ into dist/ and each package's src/ into its own dist/ (packages/<name>/dist,
 * where its package.json `exports` points under the `ballast-dist` condition that bin/ballast.mjs sets), copies
 * the non-TypeScript files the code reads at run time (the sandbox's `.sol` sources, located through
 * `import.meta.url`) beside them, then writes build-info.json
 * (`{"commit": "<40-hex sha or unknown>"}`, read by src/core/buildInfo.ts) at the package root.
 *
 * build-info.json doubles as the "dist/ is complete" marker read by bin/ballast.mjs: it is removed before the
 * build starts and written last, with its modification time set to the moment the build started, so a source
 * file edited during the build still counts as newer than dist/. dist/ is compiled into a temporary directory
 * and swapped in by rename, so a process starting meanwhile never sees half a build.
 *
 * Usage: node scripts/build.mjs [--root <dir>] [--if-possible] [--no-typecheck]
 *   --root <dir>    write <dir>/dist and <dir>/build-info.json instead of the package's own (tests); the
 *                   workspace packages' dist/ are always written in their own directories, where node_modules
 *                   links them
 *   --if-possible   exit 0 with one notice when TypeScript is not installed (`npm ci --omit=dev`); used by
 *                   the `prepare` script, since bin/ballast.mjs then runs the sources through tsx instead
 *   --no-typecheck  emit without the type check (`tsc --noCheck`: the same files, in about half the CPU time),
 *                   for a build of sources `npm run typecheck` checks anyway: `prepare` (`npm ci` in a checkout;
 *                   `npm test` type-checks, `npm run build` and deploy/Dockerfile build checked) and the build
 *                   test, test/e2e/cli-build
 * Commit: $BALLAST_BUILD_COMMIT, else `git rev-parse HEAD` in the package, else `unknown`.
 * Exit codes: 0 built (or skipped with --if-possible), 1 compile errors or I/O failure, 2 bad arguments.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const PKG = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(PKG, 'src');
/** Sibling workspace packages compiled with the product (directories beside PKG); each dist/ receives its src/ compiled. */
const WORKSPACE_PACKAGES = ['protocol', 'sandbox'].filter((dir) => existsSync(join(PKG, '..', dir, 'src')));
/** The product's directory name under the workspace's packages/ (tsc's rootDir is that parent). */
const SELF = basename(PKG);

function fail(message, code = 1) {
  process.stderr.write(`build: ${message}\n`);
  process.exit(code);
}

function parseArgs(argv) {
  const opts = { root: PKG, ifPossible: false, typecheck: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--if-possible') opts.ifPossible = true;
    else if (arg === '--no-typecheck') opts.typecheck = false;
    else if (arg === '--root' && argv[i + 1]) opts.root = resolve(argv[++i]);
    else fail(`unknown argument ${JSON.stringify(arg)}; usage: node scripts/build.mjs [--root <dir>] [--if-possible] [--no-typecheck]`, 2);
  }
  return opts;
}

/** Path of tsc's entry point, or null when the typescript package is not installed. */
function tscPath() {
  try {
    return createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    return null;
  }
}

/** The commit being built: 40 hex digits, or `unknown`. */
function commit() {
  const fromEnv = process.env.BALLAST_BUILD_COMMIT?.trim();
  if (fromEnv) return fromEnv;
  const git = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: PKG, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const sha = git.status === 0 ? git.stdout.trim() : '';
  return /^[0-9a-f]{40}$/.test(sha) ? sha : 'unknown';
}

/** Copies every file under `src` that tsc does not emit (anything but `.ts`) to the same place under `out`. */
function copyAssets(src, out) {
  let copied = 0;
  for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name.endsWith('.ts')) continue;
    const from = join(entry.parentPath, entry.name);
    const to = join(out, relative(src, from));
    mkdirSync(dirname(to), { recursive: true });
    cpSync(from, to);
    copied++;
  }
  return copied;
}

const opts = parseArgs(process.argv.slice(2));
const tsc = tscPath();
if (!tsc) {
  if (opts.ifPossible) {
    process.stderr.write('build: typescript is not installed (production install); bin/ballast.mjs will run the sources through tsx\n');
    process.exit(0);
  }
  fail('typescript is not installed; run `npm ci` (with dev dependencies) first');
}

const startedAt = new Date();
const dist = join(opts.root, 'dist');
const marker = join(opts.root, 'build-info.json');
const staging = join(opts.root, `.dist-build-${process.pid}`);
const retired = join(opts.root, `.dist-old-${process.pid}`);
mkdirSync(opts.root, { recursive: true });
rmSync(marker, { force: true });
rmSync(staging, { recursive: true, force: true });

const tscArgs = ['-p', join(PKG, 'tsconfig.build.json'), '--outDir', staging, ...(opts.typecheck ? [] : ['--noCheck'])];
const compiled = spawnSync(process.execPath, [tsc, ...tscArgs], {
  cwd: PKG,
  stdio: 'inherit',
});
if (compiled.status !== 0) {
  rmSync(staging, { recursive: true, force: true });
  fail('tsc reported errors (above); dist/ was left unchanged');
}
// tsconfig.build.json's rootDir is the workspace's packages/: staging/<SELF>/src is the product, staging/<package>/src
// a sibling package.
let assets = copyAssets(SRC, join(staging, SELF, 'src'));
for (const dir of WORKSPACE_PACKAGES) assets += copyAssets(join(PKG, '..', dir, 'src'), join(staging, dir, 'src'));

/** Swaps `built` in as `target` (a directory) by rename, the previous one removed after. */
function swapIn(built, target, old) {
  if (existsSync(target)) renameSync(target, old);
  renameSync(built, target);
  rmSync(old, { recursive: true, force: true });
}
for (const dir of WORKSPACE_PACKAGES) {
  // Copied first beside the package (the build root may be on another file system), then swapped in by rename.
  const home = join(PKG, '..', dir);
  const next = join(home, `.dist-build-${process.pid}`);
  rmSync(next, { recursive: true, force: true });
  cpSync(join(staging, dir, 'src'), next, { recursive: true });
  swapIn(next, join(home, 'dist'), join(home, `.dist-old-${process.pid}`));
}
swapIn(join(staging, SELF, 'src'), dist, retired);
rmSync(staging, { recursive: true, force: true });

const sha = commit();
writeFileSync(marker, `${JSON.stringify({ commit: sha })}\n`);
utimesSync(marker, startedAt, startedAt);
process.stderr.write(
  `build: ${relative(process.cwd(), dist) || '.'} ready (${assets} asset file(s) copied, commit ${sha.slice(0, 12)}, ${((Date.now() - startedAt.getTime()) / 1000).toFixed(1)} s)\n`,
);
