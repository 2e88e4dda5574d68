/**
 * The compiled build as an operator runs it: `scripts/build.mjs` builds into a temporary package root (its own
 * dist/ and build-info.json, this package's bin/ballast.mjs and package.json, node_modules linked), and the
 * tests run `node bin/ballast.mjs` there with plain node: --version (version and commit), `history --help`,
 * one-line startup failures with the documented exit codes (store 2, metrics port 1), and the fallback to the
 * sources when they are newer than the build.
 *
 * The build here skips tsc's type check (`--no-typecheck`: the same emitted files, about half the CPU), as `npm ci`'s
 * `prepare` does: the same sources are type-checked by `npm run typecheck` before the tests.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ROOT, type CliResult } from './helpers/cli.ts';
import { tempDir } from './helpers/sandboxBallast.ts';
import { copyParts, parseDockerfile, readRepo } from '../unit/deploy/deployKitFiles.ts';

const COMMIT = '0123456789abcdef0123456789abcdef01234567';
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'packages/ballast/package.json'), 'utf8')) as { version: string }).version;
// anvil's first dev key: public, test only.
const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

const tmp = tempDir('ballast-build-');
const pkg = path.join(tmp.dir, 'pkg');
const links: string[] = [];
afterAll(() => {
  for (const link of links) rmSync(link, { force: true }); // the links only, never what they point to
  tmp.cleanup();
});

/** A package root holding the bin and package.json of this package, with node_modules linked. */
function packageRoot(dir: string): string {
  mkdirSync(path.join(dir, 'bin'), { recursive: true });
  cpSync(path.join(ROOT, 'packages/ballast/bin/ballast.mjs'), path.join(dir, 'bin/ballast.mjs'));
  cpSync(path.join(ROOT, 'packages/ballast/package.json'), path.join(dir, 'package.json'));
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  links.push(path.join(dir, 'node_modules'));
  return dir;
}

/**
 * Runs `node <root>/bin/ballast.mjs <args>` with plain node (or with `nodeArgs` before the script, e.g. the
 * `ballast-dist` condition the tests' CLI children get); BALLAST_BUILD_COMMIT unset.
 */
function ballast(root: string, args: string[], env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<CliResult> {
  const base = { ...process.env };
  delete base.BALLAST_BUILD_COMMIT;
  delete base.NODE_OPTIONS; // no loader from the test runner: the bin must work on its own
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, path.join(root, 'bin/ballast.mjs'), ...args], {
      cwd: tmp.dir,
      env: { ...base, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A config that loads without any network: one EVM wallet from the environment, two chains, one asset. */
function writeConfig(name: string, extra: Record<string, unknown>): string {
  const file = path.join(tmp.dir, `${name}.yaml`);
  const holding = (chain: string) => ({
    chain,
    currency: '0x0000000000000000000000000000000000000001',
    wallet: 'treasury',
    min: '40',
    target: '50',
    max: '60',
  });
  writeFileSync(
    file,
    stringify({
      relay: { baseUrl: 'http://127.0.0.1:9' },
      wallets: { treasury: { vm: 'evm', privateKey: '${BUILD_TEST_KEY}' } },
      chains: { alpha: { chainId: 31001, rpcUrl: 'http://127.0.0.1:9' }, beta: { chainId: 31002, rpcUrl: 'http://127.0.0.1:9' } },
      assets: { USDC: [holding('alpha'), holding('beta')] },
      policy: { minTransfer: '1', maxTransfer: '100', slippageBps: 50, maxFees: { totalBps: 30 } },
      schedule: '0 0 1 1 *',
      ...extra,
    }),
  );
  return file;
}

function stderrLines(r: CliResult): string[] {
  return r.stderr.split('\n').filter((l) => l !== '');
}

beforeAll(() => {
  packageRoot(pkg);
  const built = spawnSync(process.execPath, [path.join(ROOT, 'packages/ballast/scripts/build.mjs'), '--root', pkg, '--no-typecheck'], {
    env: { ...process.env, BALLAST_BUILD_COMMIT: COMMIT },
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`build failed (${built.status}):\n${built.stdout}\n${built.stderr}`);
}, 240_000);

describe('the build', () => {
  it('writes dist/ with .js import specifiers, the .sol sources beside compile.js, and build-info.json', () => {
    expect(JSON.parse(readFileSync(path.join(pkg, 'build-info.json'), 'utf8'))).toEqual({ commit: COMMIT });
    const main = readFileSync(path.join(pkg, 'dist/cli/main.js'), 'utf8');
    expect(main).toContain('"./commandTable.js"');
    expect(main).not.toMatch(/from ["']\.[^"']+\.ts["']/); // relative ones; the workspace packages' resolve by `exports`
    const errorReport = readFileSync(path.join(pkg, 'dist/cli/errorReport.js'), 'utf8');
    expect(errorReport).toContain("from '@ballast/protocol/core/errors.ts'");
    const table = readFileSync(path.join(pkg, 'dist/cli/commandTable.js'), 'utf8');
    expect(table).toContain('import("./commands/history.js")');
    const sources = readdirSync(path.join(ROOT, 'packages/sandbox/src/contracts')).filter((f) => f.endsWith('.sol'));
    expect(sources.length).toBeGreaterThan(0);
    for (const sol of sources) expect(existsSync(path.join(ROOT, 'packages/sandbox/dist/contracts', sol)), sol).toBe(true);
    expect(existsSync(path.join(ROOT, 'packages/protocol/dist/core/units.js'))).toBe(true);
    expect(readdirSync(pkg).filter((f) => f.startsWith('.dist-'))).toEqual([]); // staging and retired copies removed
  });

  it('resolves the demo config from dist/ to <package>/config/demo.yaml, as from src/', () => {
    // `ballast-dist`: the export condition bin/ballast.mjs sets, under which the workspace packages resolve to dist/.
    const r = spawnSync(
      process.execPath,
      [
        '--conditions=ballast-dist',
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(path.join(pkg, 'dist/cli/commands/demo.js'))}); console.log(m.DEMO_CONFIG)`,
      ],
      { encoding: 'utf8' },
    );
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe(path.join(pkg, 'config/demo.yaml'));
  });
});

describe('bin/ballast.mjs on the build', () => {
  it('--version prints the version and the first 12 hex of the built commit', async () => {
    const r = await ballast(pkg, ['--version']);
    expect(r).toEqual({ code: 0, stdout: `${VERSION} (${COMMIT.slice(0, 12)})\n`, stderr: '' });
  });

  it('history --help prints the command usage (exit 0)', async () => {
    const r = await ballast(pkg, ['history', '--help']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: ballast history \[options\]/);
    expect(r.stdout).toContain('--db <file>');
  });

  it('a store whose parent is a regular file: exit 2, one line on stderr naming store', async () => {
    const blocker = path.join(tmp.dir, 'blocker');
    writeFileSync(blocker, 'a file where a directory should be');
    const store = path.join(blocker, 'ballast.db');
    const config = writeConfig('bad-store', { store });
    const commands = [
      ['daemon', '-c', config],
      ['run', '--once', '-c', config],
    ];
    // Both commands fail before they write anything: run side by side.
    const results = await Promise.all(commands.map((args) => ballast(pkg, args, { BUILD_TEST_KEY: DEV_KEY })));
    for (const [i, args] of commands.entries()) {
      const r = results[i]!;
      expect(r.code, args[0]).toBe(2);
      expect(stderrLines(r), args[0]).toEqual([
        expect.stringMatching(
          new RegExp(
            `^ballast: store: ${store} cannot be opened: a parent of it is a file, not a directory \\((ENOTDIR|EEXIST)\\); set store: `,
          ),
        ),
      ]);
      expect(r.stdout).toBe('');
    }
  });

  it('a store path that is a directory: exit 2, one line naming store', async () => {
    const dir = path.join(tmp.dir, 'store-dir');
    mkdirSync(dir);
    const r = await ballast(pkg, ['daemon', '-c', writeConfig('dir-store', { store: dir })], { BUILD_TEST_KEY: DEV_KEY });
    expect(r.code).toBe(2);
    expect(stderrLines(r)).toEqual([
      `ballast: store: ${dir} cannot be opened: it is a directory (SQLITE_CANTOPEN); set store: to a file path, e.g. ${dir}/ballast.db`,
    ]);
  });

  it('a metrics port in use: exit 1, one line naming metrics.listen', async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve, reject) => {
      holder.once('error', reject);
      holder.listen(0, '127.0.0.1', resolve);
    });
    try {
      const port = (holder.address() as { port: number }).port;
      const config = writeConfig('port-taken', {
        store: path.join(tmp.dir, 'port', 'ballast.db'),
        metrics: { listen: `127.0.0.1:${port}` },
      });
      const r = await ballast(pkg, ['daemon', '-c', config], { BUILD_TEST_KEY: DEV_KEY });
      expect(r.code).toBe(1);
      expect(stderrLines(r)).toEqual([`ballast: cannot listen on 127.0.0.1:${port} (EADDRINUSE); change metrics.listen or free the port`]);
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });
});

describe('bin/ballast.mjs next to sources', () => {
  it('runs the sources through tsx when they are newer than the build, and the build once it is newer', async () => {
    const root = packageRoot(path.join(tmp.dir, 'with-src'));
    cpSync(path.join(pkg, 'dist'), path.join(root, 'dist'), { recursive: true });
    cpSync(path.join(pkg, 'build-info.json'), path.join(root, 'build-info.json'));
    const built = new Date(Date.now() - 60_000);
    utimesSync(path.join(root, 'build-info.json'), built, built);
    cpSync(path.join(ROOT, 'packages/ballast/src'), path.join(root, 'src'), { recursive: true }); // copied now: newer than the build
    const mainTs = path.join(root, 'src/cli/main.ts');
    const EDITED = 'edited after the build'; // a line main.ts now prints on stderr whenever it runs
    writeFileSync(mainTs, `${readFileSync(mainTs, 'utf8')}\nprocess.stderr.write(${JSON.stringify(`${EDITED}\n`)});\n`);

    // Plain node, and node under the `ballast-dist` condition (how the tests start their CLI children: the bin then
    // skips its resolve hook on the build, and drops the condition again on the sources). `--help` loads every
    // command's module (through tsx here), `--version` main.ts and what it imports (a workspace package among them).
    const DIST_CONDITION = ['--conditions=ballast-dist'];
    const fromSource = await Promise.all([ballast(root, ['--help']), ballast(root, ['--version'], {}, DIST_CONDITION)]);
    for (const r of fromSource) {
      expect(r.code).toBe(0);
      expect(r.stderr).toBe(`${EDITED}\n`);
    }
    expect(fromSource[0]!.stdout).toContain('print the version and the commit it was built from');
    // From src/ the commit is not read from build-info.json (src/core/buildInfo.ts): not the build's.
    expect(fromSource[1]!.stdout).toMatch(new RegExp(`^${VERSION.replaceAll('.', '\\.')} \\((unknown|[0-9a-f]{12})\\)\n$`));
    expect(fromSource[1]!.stdout).not.toContain(COMMIT.slice(0, 12));

    const later = new Date(Date.now() + 60_000);
    utimesSync(path.join(root, 'build-info.json'), later, later);
    const fromBuild = await Promise.all([ballast(root, ['--version']), ballast(root, ['--version'], {}, DIST_CONDITION)]);
    for (const r of fromBuild) expect(r).toEqual({ code: 0, stdout: `${VERSION} (${COMMIT.slice(0, 12)})\n`, stderr: '' });
  }, 120_000);

  it('without a build or sources: one line telling to run npm run build (exit 1)', async () => {
    const root = packageRoot(path.join(tmp.dir, 'empty'));
    const r = await ballast(root, ['--version']);
    expect(r.code).toBe(1);
    expect(stderrLines(r)).toEqual([
      'ballast: dist/ is missing and there are no sources to run; run `npm run build` in the package directory',
    ]);
  });
});

/**
 * The container image's runtime layout works: the runtime stage's COPY instructions of deploy/Dockerfile are
 * replayed from the build above (what `npm run build` writes in the Dockerfile's build stage) into a temp
 * directory (/opt/ballast → it; node_modules linked rather than copied), and its ENTRYPOINT runs from there with
 * plain node: `--version` prints the version and the commit the build recorded, with no sources in the layout (so
 * from dist/, not through tsx).
 */
describe('the Dockerfile runtime stage', () => {
  const APP = '/opt/ballast';
  it('runs its ENTRYPOINT from the compiled build alone', () => {
    const buildRoot = pkg; // the build of this file's beforeAll (dist/ and build-info.json under it)
    const commit = COMMIT;

    // Replay the runtime stage: COPY --from=build takes the build outputs (packages/ballast/dist and
    // packages/ballast/build-info.json, written under --root here) from the build
    // and the rest (what the build stage copied from the context) from the repository; plain COPY from the context.
    const steps = parseDockerfile(readRepo('deploy/Dockerfile'));
    const runtime = steps.filter((s) => s.op === 'FROM').at(-1)!.stage;
    const image = path.join(tmp.dir, 'image');
    const inImage = (p: string) => path.join(image, path.relative(APP, p));
    for (const step of steps.filter((s) => s.stage === runtime && s.op === 'COPY')) {
      const { from, sources, dest } = copyParts(step.args);
      const destDir = inImage(path.resolve(APP, dest));
      for (const src of sources) {
        const rel = from === 'build' ? path.relative(APP, src.replace(/\/$/, '')) : src.replace(/\/$/, '');
        const built = from === 'build' ? /^packages\/ballast\/(dist|build-info\.json)$/.exec(rel) : null;
        const origin = built ? path.join(buildRoot, built[1]!) : path.join(ROOT, rel);
        expect(existsSync(origin), `${step.args}: ${origin}`).toBe(true);
        mkdirSync(path.dirname(destDir), { recursive: true });
        if (rel === 'node_modules') symlinkSync(origin, destDir, 'dir');
        else if (statSync(origin).isDirectory())
          cpSync(origin, destDir, { recursive: true }); // a directory's contents
        else {
          mkdirSync(destDir, { recursive: true });
          cpSync(origin, path.join(destDir, path.basename(rel)));
        }
      }
    }
    expect(existsSync(path.join(image, 'src'))).toBe(false);
    expect(existsSync(path.join(image, 'dist/cli/main.js'))).toBe(true);

    const entry = JSON.parse(steps.find((s) => s.stage === runtime && s.op === 'ENTRYPOINT')!.args) as string[];
    expect(entry[0]).toBe('node');
    const env = { ...process.env };
    delete env.BALLAST_BUILD_COMMIT;
    const run = spawnSync(process.execPath, [inImage(entry[1]!), '--version'], { cwd: image, encoding: 'utf8', env });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const version = (JSON.parse(readFileSync(path.join(ROOT, 'packages/ballast/package.json'), 'utf8')) as { version: string }).version;
    expect(run.stdout.trim()).toBe(`${version} (${commit.slice(0, 12)})`);
  });
});
