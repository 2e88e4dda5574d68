/**
 * The product's production install carries no sandbox: starting from the dependencies and optional dependencies
 * of packages/ballast/package.json (the product), and following package-lock.json's dependency graph as npm installs
 * it (`npm ci --omit=dev --workspace=ballast`, deploy/Dockerfile), no package of
 * the sandbox is reached: not @ballast/sandbox, nor solc, litesvm or Foundry's anvil binaries. The same walk from
 * packages/sandbox does reach them, so the walk sees what it is looking for.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './deployKitFiles.ts';

/** One entry of package-lock.json's `packages` map (lockfileVersion 3). */
interface LockEntry {
  name?: string;
  link?: boolean;
  resolved?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
const product = JSON.parse(readFileSync(path.join(ROOT, 'packages/ballast/package.json'), 'utf8')) as {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};

/** Packages only the sandbox needs: none may be in the product's production install. */
const SANDBOX_ONLY = [/^@ballast\/sandbox$/, /^solc$/, /^litesvm(-|$)/, /^@foundry-rs\//];

/** Lock key of `name` as required from the package at lock key `from` (Node's lookup: nearest node_modules up). */
function resolveFrom(from: string, name: string): string | null {
  for (let dir = from; ; dir = path.posix.dirname(dir)) {
    const base = dir === '.' ? '' : dir;
    const key = base === '' ? `node_modules/${name}` : `${base}/node_modules/${name}`;
    if (lock.packages[key]) return key;
    if (base === '') return null;
  }
}

/** Lock keys of every installed package reached from `start` by production (and optional, peer) dependencies. */
function productionClosure(start: string, roots: Record<string, string>): Map<string, string> {
  const reached = new Map<string, string>(); // lock key → package name
  const queue: Array<[string, string]> = Object.keys(roots).map((name) => [start, name]);
  while (queue.length > 0) {
    const [from, name] = queue.shift()!; // length > 0
    let key = resolveFrom(from, name);
    if (key === null) continue; // an optional dependency for another platform
    const linked = lock.packages[key]!;
    if (linked.link && linked.resolved) key = linked.resolved;
    if (reached.has(key)) continue;
    reached.set(key, name);
    const entry = lock.packages[key]!;
    const required = Object.keys(entry.peerDependencies ?? {}).filter((peer) => !entry.peerDependenciesMeta?.[peer]?.optional);
    for (const dep of [...Object.keys(entry.dependencies ?? {}), ...Object.keys(entry.optionalDependencies ?? {}), ...required])
      queue.push([key, dep]);
  }
  return reached;
}

const sandboxOnly = (closure: Map<string, string>) =>
  [...new Set(closure.values())].filter((name) => SANDBOX_ONLY.some((re) => re.test(name))).sort();

describe('the production install of the product', () => {
  it('reaches the product and protocol dependencies and none of the sandbox', () => {
    const closure = productionClosure('packages/ballast', { ...product.dependencies, ...product.optionalDependencies });
    const names = new Set(closure.values());
    for (const needed of ['@ballast/protocol', 'better-sqlite3', 'viem', 'zod', 'tsx']) expect(names.has(needed), needed).toBe(true);
    expect(closure.has('packages/protocol')).toBe(true); // the workspace link was followed
    expect(sandboxOnly(closure)).toEqual([]);
  });

  it('the same walk from the sandbox package finds its heavy dependencies', () => {
    const sandbox = lock.packages['packages/sandbox']!;
    const closure = productionClosure('packages/sandbox', { ...sandbox.dependencies, ...sandbox.optionalDependencies });
    expect(sandboxOnly(closure)).toEqual(expect.arrayContaining(['solc', 'litesvm', '@foundry-rs/anvil-linux-amd64']));
    expect(closure.has('packages/protocol')).toBe(true);
  });
});
