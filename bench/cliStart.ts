/**
 * CLI start, median of 10 runs each, alternating with `node -e 0` (the cost of starting node at all):
 * - `ballast --version` as shipped: the package compiled to dist/ (scripts/build.mjs, built for this run into
 *   .ballast-cache/bench-build with copies of bin/ballast.mjs and package.json and no src/, as a package ships);
 *   target: under 0.3 s.
 * - `node bin/ballast.mjs --version` in this checkout, whatever it runs right now (dist/ when it is current,
 *   else the sources through tsx); reported.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, type BenchRow } from './lib.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BUILD_DIR = path.join(ROOT, '.ballast-cache', 'bench-build');
const RUNS = 10;

/** Wall time of one process run to completion, ms; throws when it exits non-zero. */
function runMs(args: string[]): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr.trim().split('\n')[0] ?? ''}`);
  return ms;
}

/** Medians of `args` and of `node -e 0`, alternating. */
function againstBareNode(args: string[]): { ms: number; bareMs: number; output: string } {
  const output = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
  runMs(args); // warm the file cache
  const runs: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    runs.push(runMs(args));
    bare.push(runMs(['-e', '0']));
  }
  return { ms: median(runs), bareMs: median(bare), output };
}

/** Compiles the package into BUILD_DIR with a copy of bin/ballast.mjs; returns its bin path, or null (printed) on failure. */
function buildShipped(): string | null {
  const r = spawnSync(process.execPath, ['packages/ballast/scripts/build.mjs', '--root', BUILD_DIR], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) {
    console.log(`cli start: build failed (${r.stderr.trim().split('\n').slice(-1)[0] ?? r.status}); the shipped start is not measured`);
    return null;
  }
  mkdirSync(path.join(BUILD_DIR, 'bin'), { recursive: true });
  const bin = path.join(BUILD_DIR, 'bin', 'ballast.mjs');
  copyFileSync(path.join(ROOT, 'packages/ballast/bin/ballast.mjs'), bin);
  copyFileSync(path.join(ROOT, 'packages/ballast/package.json'), path.join(BUILD_DIR, 'package.json')); // shipped beside dist/
  return bin;
}

/** Measures; prints the medians; returns the rows. */
export function cliStartRows(): BenchRow[] {
  const rows: BenchRow[] = [];
  const bin = existsSync(path.join(ROOT, 'packages/ballast/scripts/build.mjs')) ? buildShipped() : null;
  if (bin) {
    const shipped = againstBareNode([bin, '--version']);
    console.log(
      `cli start, compiled dist/: ballast --version (${shipped.output}) ${shipped.ms.toFixed(0)} ms, node -e 0 ${shipped.bareMs.toFixed(0)} ms (median of ${RUNS})`,
    );
    rows.push({
      label: 'ballast --version (compiled dist/) wall time',
      value: shipped.ms / 1000,
      limit: 0.3,
      unit: 's',
      note: `node -e 0: ${(shipped.bareMs / 1000).toFixed(3)} s`,
    });
    rows.push({
      label: 'ballast --version (compiled dist/) / node -e 0',
      value: shipped.ms / shipped.bareMs,
      limit: Number.POSITIVE_INFINITY,
      unit: '×',
    });
    rmSync(BUILD_DIR, { recursive: true, force: true });
  } else {
    rows.push({ label: 'ballast --version (compiled dist/) wall time', value: Number.NaN, limit: 0.3, unit: 's', note: 'not built' });
  }
  const checkout = againstBareNode(['packages/ballast/bin/ballast.mjs', '--version']);
  console.log(
    `cli start, this checkout: node bin/ballast.mjs --version ${checkout.ms.toFixed(0)} ms, node -e 0 ${checkout.bareMs.toFixed(0)} ms (median of ${RUNS})`,
  );
  rows.push({
    label: 'bin/ballast.mjs --version in this checkout / node -e 0',
    value: checkout.ms / checkout.bareMs,
    limit: Number.POSITIVE_INFINITY,
    unit: '×',
    note: `${checkout.ms.toFixed(0)} ms: runs dist/ when current, else the sources through tsx`,
  });
  return rows;
}
