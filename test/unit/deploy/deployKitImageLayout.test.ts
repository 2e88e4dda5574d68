/**
 * The container image's runtime layout works: the real build (`scripts/build.mjs`, what `npm run build` runs in
 * the Dockerfile's build stage) is written to a temp directory, the runtime stage's COPY instructions are
 * replayed into another one (/opt/ballast → the temp directory; node_modules linked rather than copied), and its
 * ENTRYPOINT runs from there with plain node: `--version` prints the version and the commit the build recorded,
 * with no sources in the layout (so from dist/, not through tsx).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyParts, parseDockerfile, readRepo, ROOT } from './deployKitFiles.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'ballast-image-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const APP = '/opt/ballast';

describe('the Dockerfile runtime stage', () => {
  it('runs its ENTRYPOINT from the compiled build alone', () => {
    const buildRoot = path.join(tmp, 'build');
    const commit = 'c0ffee0000000000000000000000000000000001';
    const built = spawnSync(process.execPath, [path.join(ROOT, 'packages/ballast/scripts/build.mjs'), '--root', buildRoot], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, BALLAST_BUILD_COMMIT: commit },
    });
    expect(built.status, built.stderr).toBe(0);

    // Replay the runtime stage: COPY --from=build takes the build outputs (packages/ballast/dist and
    // packages/ballast/build-info.json, written under --root here) from the build
    // and the rest (what the build stage copied from the context) from the repository; plain COPY from the context.
    const steps = parseDockerfile(readRepo('deploy/Dockerfile'));
    const runtime = steps.filter((s) => s.op === 'FROM').at(-1)!.stage;
    const image = path.join(tmp, 'image');
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
  }, 180_000);
});
