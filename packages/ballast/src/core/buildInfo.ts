/**
 * The version and commit this Ballast was built from, for `ballast --version` and `ballast_build_info`.
 *
 * - version: `package.json` at the package root (two levels up from both `src/core/` and `dist/core/`).
 * - commit, first found of:
 *   1. `BALLAST_BUILD_COMMIT` in the environment (container images set it at build time);
 *   2. when running the compiled build (`dist/`): `build-info.json` at the package root, written by `npm run build`
 *      (`{"commit": "<sha>"}`); from `src/` it is ignored, since the build may be older than the checkout;
 *   3. the checkout's `.git/HEAD` (a branch ref resolved through `.git/refs` or `.git/packed-refs`);
 *   4. `unknown`.
 *   Only file reads: no `git` process is spawned, so this costs well under a millisecond.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What {@link buildInfo} returns. */
export interface BuildInfo {
  /** Semantic version from package.json, e.g. `0.1.0`. */
  version: string;
  /** Full 40-hex commit id, or `unknown`. */
  commit: string;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/**
 * Where a checkout's `.git` may sit: the package root (a package checked out alone) or the repository root two levels
 * up (the package inside the workspace's `packages/`).
 */
const CHECKOUT_ROOTS = [ROOT, fileURLToPath(new URL('../../../../', import.meta.url))];
/** True when this module is the compiled `dist/core/buildInfo.js`, not the source. */
const FROM_BUILD = /[\\/]dist[\\/]core[\\/]buildInfo\.js$/.test(fileURLToPath(import.meta.url));
let cached: BuildInfo | null = null;

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function commitFromGit(root: string): string | null {
  const head = readText(join(root, '.git', 'HEAD'))?.trim();
  if (!head) return null;
  if (/^[0-9a-f]{40}$/.test(head)) return head;
  const ref = /^ref: (refs\/\S+)$/.exec(head)?.[1];
  if (!ref) return null;
  const loose = readText(join(root, '.git', ref))?.trim();
  if (loose && /^[0-9a-f]{40}$/.test(loose)) return loose;
  for (const line of (readText(join(root, '.git', 'packed-refs')) ?? '').split('\n')) {
    const [sha, name] = line.split(' ');
    if (name === ref && sha && /^[0-9a-f]{40}$/.test(sha)) return sha;
  }
  return null;
}

function commitFromFile(root: string): string | null {
  const text = readText(join(root, 'build-info.json'));
  if (!text) return null;
  try {
    const commit = (JSON.parse(text) as { commit?: unknown }).commit;
    return typeof commit === 'string' && commit !== '' ? commit : null;
  } catch {
    return null;
  }
}

/**
 * The build's version and commit (read once, then cached).
 *
 * @param env environment to read `BALLAST_BUILD_COMMIT` from (default `process.env`)
 * @returns `{version, commit}`; never throws (missing pieces read `unknown`)
 */
export function buildInfo(env: NodeJS.ProcessEnv = process.env): BuildInfo {
  if (cached) return cached;
  let version = 'unknown';
  const pkg = readText(join(ROOT, 'package.json'));
  if (pkg) {
    try {
      const v = (JSON.parse(pkg) as { version?: unknown }).version;
      if (typeof v === 'string') version = v;
    } catch {
      // keep `unknown`
    }
  }
  const commit =
    env.BALLAST_BUILD_COMMIT?.trim() ||
    (FROM_BUILD ? commitFromFile(ROOT) : null) ||
    CHECKOUT_ROOTS.map(commitFromGit).find(Boolean) ||
    'unknown';
  cached = { version, commit };
  return cached;
}
