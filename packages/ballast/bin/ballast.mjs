#!/usr/bin/env node
// The `ballast` command. Runs the compiled build (dist/cli/main.js, written by `npm run build` and by `npm ci`
// through the `prepare` script) with plain node. When that build is missing, incomplete or older than the
// sources beside it (after a `git pull` without a rebuild, or while editing), it runs src/ through tsx instead,
// silently: the code that runs is then always the code in the checkout, never a stale build, and a daemon
// restarted after an upgrade that skipped the build keeps working (only its start is slower, about a second).
//
// "Complete and current": build-info.json (written last by the build, dated when the build started) exists and
// no file or directory under src/ or a sibling workspace package's src/ (../protocol, ../sandbox) was
// modified after it. The check stats the few hundred entries of src/, a few
// milliseconds; without src/ (a package shipped as dist/ only) the build is used as it is.
//
// The workspace packages (@ballast/protocol, @ballast/sandbox) export their TypeScript sources by default (what
// tsx, vitest and tsc load) and their compiled dist/ under the `ballast-dist` condition, which this file adds
// (a module resolve hook, Node.js 20.6 or later) before it loads the build.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { register } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url);
const distMain = new URL('dist/cli/main.js', root);
const marker = new URL('build-info.json', root);
const srcDirs = ['src/', '../protocol/src/', '../sandbox/src/'].map((dir) => fileURLToPath(new URL(dir, root)));

/** Newest modification time (ms) of a source directory and everything under it; -1 when it does not exist. */
function newestMtimeUnder(srcDir) {
  let newest;
  try {
    newest = statSync(srcDir).mtimeMs;
  } catch {
    return -1;
  }
  for (const entry of readdirSync(srcDir, { recursive: true, withFileTypes: true })) {
    const mtime = statSync(`${entry.parentPath}/${entry.name}`).mtimeMs;
    if (mtime > newest) newest = mtime;
  }
  return newest;
}

/** Newest modification time (ms) of the product's and the workspace packages' sources; -1 when there are none. */
function newestSourceMtime() {
  return Math.max(...srcDirs.map(newestMtimeUnder));
}

/** Resolve hook adding the `ballast-dist` export condition: workspace packages resolve to their compiled dist/. */
const DIST_CONDITION_HOOK =
  'export async function resolve(specifier, context, next) {' +
  " return next(specifier, { ...context, conditions: [...context.conditions, 'ballast-dist'] }); }";

function buildIsCurrent() {
  try {
    if (!existsSync(distMain)) return false;
    return newestSourceMtime() <= statSync(marker).mtimeMs; // no marker (throws): the build never finished
  } catch {
    return false; // also a source file removed during the walk: run the sources
  }
}

/** The opposite, for the sources: the workspace packages resolve to their sources even under `ballast-dist`. */
const SOURCE_CONDITION_HOOK =
  'export async function resolve(specifier, context, next) {' +
  " return next(specifier, { ...context, conditions: context.conditions.filter((c) => c !== 'ballast-dist') }); }";

/**
 * Whether node was started with `--conditions=ballast-dist` (the tests start their CLI children so): the workspace
 * packages then already resolve to dist/. A resolve hook runs module loading on a loader thread, about a second of
 * CPU per start, so the build is run without one when the condition is already set.
 */
function distConditionSet() {
  try {
    return import.meta.resolve('@ballast/protocol/core/errors.ts').includes('/protocol/dist/');
  } catch {
    return false;
  }
}

let main;
if (buildIsCurrent()) {
  if (!distConditionSet()) register(`data:text/javascript,${encodeURIComponent(DIST_CONDITION_HOOK)}`);
  ({ main } = await import(distMain.href));
} else if (existsSync(new URL('src/cli/main.ts', root))) {
  if (distConditionSet()) register(`data:text/javascript,${encodeURIComponent(SOURCE_CONDITION_HOOK)}`);
  const { register: registerTsx } = await import('tsx/esm/api');
  registerTsx();
  ({ main } = await import(new URL('src/cli/main.ts', root).href));
} else {
  process.stderr.write('ballast: dist/ is missing and there are no sources to run; run `npm run build` in the package directory\n');
  process.exit(1);
}
process.exitCode = await main(process.argv);
