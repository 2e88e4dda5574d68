/**
 * What the container kit does with exit codes, Node.js lines and the environment:
 * - the compose entrypoint deploy/container/stop-on-config-error.mjs, run for real: exit 2 (config, key file or store)
 *   becomes 0 with one line saying why, so `restart: on-failure` stops there; other statuses pass through, SIGTERM
 *   reaches the daemon; every compose service that runs the daemon uses it with `on-failure`, migrate does not;
 * - deploy/Dockerfile builds on a supported Node.js LTS line that package.json `engines` names, and its runtime stage
 *   fails the build when better-sqlite3 does not load (the check itself is run here, passing and failing);
 * - deploy/.env.example lists every BALLAST_* variable the code reads and every variable the container configs and
 *   compose files reference.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { copyParts, parseDockerfile, readRepo, ROOT } from './deployKitFiles.ts';

const WRAPPER = path.join(ROOT, 'deploy/container/stop-on-config-error.mjs');
const tmp = mkdtempSync(path.join(tmpdir(), 'ballast-restart-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Runs the wrapper around `node -e <script>`; resolves with its exit code and output. */
function wrapped(script: string, onStdout?: (text: string, child: ReturnType<typeof spawn>) => void) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [WRAPPER, process.execPath, '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      onStdout?.(stdout, child);
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the compose entrypoint', () => {
  it('turns exit 2 into 0 with one line saying why, and passes other statuses through', async () => {
    const config = await wrapped('console.error("ballast: invalid configuration"); process.exit(2)');
    expect(config.code).toBe(0);
    expect(config.stderr).toMatch(
      /^ballast: invalid configuration\nballast exited 2 \(configuration, key file or store error; .*\): not restarting\. /,
    );
    expect((await wrapped('process.exit(1)')).code).toBe(1);
    expect((await wrapped('process.exit(4)')).code).toBe(4);
    expect((await wrapped('process.exit(0)')).code).toBe(0);
    expect((await wrapped('process.kill(process.pid, "SIGKILL")')).code).toBe(128 + 9);
  });

  it('hands SIGTERM on to the daemon and exits with its status', async () => {
    const daemon =
      'process.on("SIGTERM", () => { console.log("drained"); process.exit(0); }); console.log("ready"); setInterval(() => {}, 1000);';
    let sent = false;
    const r = await wrapped(daemon, (out, child) => {
      if (!sent && out.includes('ready')) {
        sent = true;
        child.kill('SIGTERM'); // the wrapper, as `docker stop` signals PID 1
      }
    });
    expect(r.stdout).toBe('ready\ndrained\n');
    expect(r.code).toBe(0);
  });
});

interface Service {
  entrypoint?: string[];
  command?: string[];
  restart?: string;
}

describe('the compose files', () => {
  const steps = parseDockerfile(readRepo('deploy/Dockerfile'));
  const runtime = steps.filter((s) => s.op === 'FROM').at(-1)!.stage;
  const workdir = steps.filter((s) => s.stage === runtime && s.op === 'WORKDIR').at(-1)!.args;
  const imageEntrypoint = JSON.parse(steps.find((s) => s.stage === runtime && s.op === 'ENTRYPOINT')!.args) as string[];
  const wrapperCopy = steps.find(
    (s) => s.stage === runtime && s.op === 'COPY' && copyParts(s.args).sources.includes('deploy/container/stop-on-config-error.mjs'),
  );

  it('run the daemon through the entrypoint with restart on-failure, and migrate without it', () => {
    expect(wrapperCopy).toBeDefined();
    const inImage = path.posix.join(workdir, copyParts(wrapperCopy!.args).dest, 'stop-on-config-error.mjs');
    const daemons: string[] = [];
    for (const file of ['deploy/docker-compose.yml', 'deploy/docker-compose.ha.yml']) {
      const compose = parseAllDocuments(readRepo(file), { merge: true })[0]!.toJS() as { services: Record<string, Service> };
      for (const [name, svc] of Object.entries(compose.services)) {
        if (svc.command?.[0] === 'daemon') {
          daemons.push(`${file} ${name}`);
          expect(svc.entrypoint, name).toEqual(['node', inImage, ...imageEntrypoint]);
          expect(svc.restart, name).toBe('on-failure');
        }
        if (svc.command?.[0] === 'migrate') {
          expect(svc.entrypoint, name).toBeUndefined(); // its exit status gates the replicas
          expect(svc.restart, name).toBe('no');
        }
      }
    }
    expect(daemons).toEqual([
      'deploy/docker-compose.yml ballast',
      'deploy/docker-compose.ha.yml ballast-a',
      'deploy/docker-compose.ha.yml ballast-b',
    ]);
  });
});

describe('deploy/Dockerfile', () => {
  const steps = parseDockerfile(readRepo('deploy/Dockerfile'));
  const runtime = steps.filter((s) => s.op === 'FROM').at(-1)!.stage;

  it('builds on a supported Node.js LTS line that package.json engines names', () => {
    const image = /^NODE_IMAGE=node:(\d+)-bookworm-slim$/.exec(steps.find((s) => s.op === 'ARG')!.args);
    expect(image?.[1]).toMatch(/^(22|24)$/); // Node.js 20's life ended on 2026-04-30
    const engines = (JSON.parse(readRepo('package.json')) as { engines: { node: string } }).engines.node;
    expect(engines.split('||').map((r) => /\^(\d+)\./.exec(r.trim())?.[1])).toContain(image![1]);
    expect(JSON.parse(readRepo('packages/ballast/package.json')).engines.node).toBe(engines);
  });

  it('fails the build when better-sqlite3 does not load in the runtime stage', () => {
    const check = steps
      .filter((s) => s.stage === runtime && s.op === 'RUN')
      .map((s) => /node -e "([^"]*)"/.exec(s.args)?.[1])
      .find((script) => script?.includes("require('better-sqlite3')"));
    expect(check).toBeDefined();
    const here = spawnSync(process.execPath, ['-e', check!], { cwd: ROOT, encoding: 'utf8' });
    expect(here.status, here.stderr).toBe(0);
    // Where the module cannot be loaded (no node_modules above a temp directory): exit 1 and a line saying so.
    const missing = spawnSync(process.execPath, ['-e', check!], { cwd: tmp, encoding: 'utf8' });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(new RegExp(`^better-sqlite3 does not load on Node\\.js ${process.version} \\(ABI \\d+\\): `));
  });
});

/** Names set or commented out in deploy/.env.example (`NAME=` or `# NAME=`). */
function listedNames(): Set<string> {
  return new Set([...readRepo('deploy/.env.example').matchAll(/^(?:# )?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!));
}

/** Every file under a repository directory with one of the extensions. */
function filesUnder(rel: string, exts: string[]): string[] {
  return readdirSync(path.join(ROOT, rel), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && exts.some((x) => e.name.endsWith(x)))
    .map((e) => path.join(e.parentPath, e.name));
}

describe('deploy/.env.example', () => {
  it('lists every BALLAST_* variable the code reads', () => {
    const read = new Set<string>();
    const sources = ['packages/ballast/src', 'packages/protocol/src', 'packages/ballast/bin', 'packages/ballast/scripts'].flatMap((d) =>
      filesUnder(d, ['.ts', '.mjs']),
    );
    expect(sources.length).toBeGreaterThan(100);
    for (const file of sources) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\benv(?:\?)?(?:\.([A-Z][A-Z0-9_]*)|\[['"]([A-Z][A-Z0-9_]*)['"]\])/g)) {
        const name = m[1] ?? m[2]!;
        if (name.startsWith('BALLAST_')) read.add(name);
      }
    }
    expect([...read].sort()).toEqual(expect.arrayContaining(['BALLAST_CONFIG', 'BALLAST_LOG_FORMAT', 'BALLAST_LOG_LEVEL']));
    const listed = listedNames();
    expect([...read].filter((n) => !listed.has(n))).toEqual([]);
    expect(listed.has('NO_COLOR')).toBe(true);
  });

  it('lists every variable the container configs and compose files reference, and fills in no secret', () => {
    const files = [
      ...readdirSync(path.join(ROOT, 'deploy/container'))
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => `deploy/container/${f}`),
      'deploy/docker-compose.yml',
      'deploy/docker-compose.ha.yml',
    ];
    const referenced = new Set(files.flatMap((f) => [...readRepo(f).matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!)));
    expect(referenced.has('RELAY_API_KEY')).toBe(true);
    const listed = listedNames();
    expect([...referenced].filter((n) => !listed.has(n))).toEqual([]);
    for (const secret of ['RELAY_API_KEY', 'BALLAST_NEEDS_TOKEN', 'POSTGRES_PASSWORD', 'GRAFANA_ADMIN_PASSWORD']) {
      expect(readRepo('deploy/.env.example')).toMatch(new RegExp(`^(# )?${secret}=$`, 'm'));
    }
  });
});
