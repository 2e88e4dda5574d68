/**
 * deploy/Dockerfile, .dockerignore, deploy/docker-compose.yml and deploy/k8s/: every YAML of deploy/ parses,
 * every path a COPY, a compose service or a Kubernetes object references exists (or is a secret the operator
 * supplies and git ignores), and the store path, metrics port, config path and credential names agree with the
 * configs they run (deploy/container/ballast.yaml, loaded by the real loader, and config/ballast.example.yaml).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import {
  composeMountProblems,
  copyParts,
  credentialRefs,
  dockerIgnored,
  dockerignoreRules,
  loadKitConfig,
  parseDockerfile,
  readRepo,
  ROOT,
} from './deployKitFiles.ts';

const example = loadKitConfig('packages/ballast/config/ballast.example.yaml');
const container = loadKitConfig('deploy/container/ballast.yaml');
const containerText = readRepo('deploy/container/ballast.yaml');
const STORE_DIR = path.dirname(container.store);
const CONFIG_FILE = '/etc/ballast/ballast.yaml';

/** Every file under a repository directory (relative paths), skipping node_modules. */
function filesUnder(rel: string): string[] {
  return readdirSync(path.join(ROOT, rel), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !e.parentPath.includes('node_modules'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)));
}

describe('the container config', () => {
  it('agrees with the example config on store, kill switch, metrics port and key files', () => {
    expect(container.store).toBe(example.store);
    expect(container.policy.limits?.killSwitchFile).toBe(example.policy.limits?.killSwitchFile);
    expect(container.metrics.port).toBe(example.metrics.port);
    expect(container.metrics.host).toBe('0.0.0.0'); // reachable from the Prometheus container or pod
    expect(credentialRefs(containerText).active).toEqual(credentialRefs(readRepo('packages/ballast/config/ballast.example.yaml')).active);
    expect(container.log.format).toBe('json');
  });
});

describe('every YAML file in deploy/', () => {
  const yamls = filesUnder('deploy').filter((f) => /\.ya?ml$/.test(f));
  it('parses', () => {
    expect(yamls).toEqual(
      expect.arrayContaining(['deploy/docker-compose.yml', 'deploy/k8s/deployment.yaml', 'deploy/container/ballast.yaml']),
    );
    for (const file of yamls) {
      const docs = parseAllDocuments(readRepo(file));
      const list = Array.isArray(docs) ? docs : [docs];
      for (const doc of list) expect(doc.errors.map((e) => `${file}: ${e.message}`)).toEqual([]);
    }
  });
});

describe('deploy/Dockerfile and .dockerignore', () => {
  const steps = parseDockerfile(readRepo('deploy/Dockerfile'));
  const rules = dockerignoreRules();
  const stages = steps.filter((s) => s.op === 'FROM').map((s) => s.stage);
  const runtime = stages.at(-1)!;
  const inStage = (stage: string, op: string) => steps.filter((s) => s.stage === stage && s.op === op);

  it('has a build stage and a runtime stage on a Debian slim Node.js image (its line: deployKitRestart.test.ts)', () => {
    expect(stages).toEqual(['build', 'runtime']);
    expect(steps.find((s) => s.op === 'ARG')?.args).toMatch(/^NODE_IMAGE=node:\d+-bookworm-slim$/);
    expect(
      inStage('build', 'RUN')
        .map((s) => s.args)
        .join('\n'),
    ).toMatch(/python3 make g\+\+[\s\S]*npm ci[\s\S]*npm run build[\s\S]*npm ci --omit=dev --workspace=ballast /);
  });

  it('copies only sources that exist in the context and that .dockerignore lets through', () => {
    const local = steps.filter((s) => s.op === 'COPY' && !copyParts(s.args).from);
    expect(local.length).toBeGreaterThan(3);
    for (const step of local) {
      for (const src of copyParts(step.args).sources) {
        const rel = src.replace(/\/$/, '');
        expect(existsSync(path.join(ROOT, rel)), `${src} exists`).toBe(true);
        const files = statSync(path.join(ROOT, rel)).isDirectory() ? filesUnder(rel) : [rel];
        expect(files.length).toBeGreaterThan(0);
        for (const f of files.filter((x) => !/\.(db|key)$/.test(x))) expect(dockerIgnored(rules, f), `${f} reaches the build`).toBe(false);
      }
    }
    // What stays out: local state, secrets, dependencies, the tests.
    for (const f of [
      'ballast.db',
      'deploy/secrets/treasury-evm.key',
      'deploy/.env',
      'node_modules/pino/package.json',
      'test/unit/deploy/deployKitFiles.ts',
      'dist/cli/main.js',
    ]) {
      expect(dockerIgnored(rules, f), f).toBe(true);
    }
  });

  it('runs, in the runtime stage, what the build stage produced', () => {
    // The build stage's outputs: what it copied in, plus npm ci (node_modules) and npm run build
    // (packages/ballast/dist, packages/protocol/dist, packages/ballast/build-info.json).
    const buildTsconfig = JSON.parse(readRepo('packages/ballast/tsconfig.build.json')) as {
      compilerOptions: { outDir: string; rootDir: string };
    };
    expect(buildTsconfig.compilerOptions).toMatchObject({ outDir: 'dist', rootDir: '..' });
    const produced = new Set([
      'node_modules',
      `packages/ballast/${buildTsconfig.compilerOptions.outDir}`,
      'packages/protocol/dist',
      'packages/ballast/build-info.json',
    ]);
    for (const step of inStage('build', 'COPY')) for (const s of copyParts(step.args).sources) produced.add(s.replace(/\/$/, ''));
    const runtimeCopies = inStage(runtime, 'COPY').filter((s) => copyParts(s.args).from === 'build');
    const copied = runtimeCopies.flatMap((s) =>
      copyParts(s.args).sources.map((src) => path.relative('/opt/ballast', src.replace(/\/$/, ''))),
    );
    for (const c of copied) expect(produced.has(c), `${c} comes from the build stage`).toBe(true);
    // ENTRYPOINT: node + the package bin; the bin runs dist/cli/main.js once build-info.json marks the build complete.
    const entry = JSON.parse(inStage(runtime, 'ENTRYPOINT')[0]!.args) as string[];
    expect(entry).toEqual(['node', '/opt/ballast/bin/ballast.mjs']);
    expect(copied).toEqual(
      expect.arrayContaining([
        'packages/ballast/bin',
        'packages/ballast/dist',
        'packages/ballast/build-info.json',
        'packages/ballast/package.json',
        'node_modules',
      ]),
    );
    // The product's package is laid out at /opt/ballast itself (bin/, dist/ beside node_modules/), as the bin expects.
    const destinations = runtimeCopies.map((s) => copyParts(s.args).dest);
    expect(destinations).toEqual(expect.arrayContaining(['./bin/', './dist/', './node_modules/']));
    const bin = readRepo('packages/ballast/bin/ballast.mjs');
    expect(bin).toContain("'dist/cli/main.js'");
    expect(bin).toContain("'build-info.json'");
    expect(existsSync(path.join(ROOT, 'packages/ballast/src/cli/main.ts'))).toBe(true); // compiled to dist/cli/main.js (scripts/build.mjs)
    // No sandbox in the image: neither the package nor its dependencies (the production install leaves them out).
    expect(copied.filter((c) => c.includes('sandbox'))).toEqual([]);
    expect(JSON.parse(inStage(runtime, 'CMD')[0]!.args)).toEqual(['daemon']);
  });

  it('runs as a non-root user with the store volume, the metrics port and a /healthz check', () => {
    expect(inStage(runtime, 'USER')[0]?.args).toBe('10001:10001');
    expect(JSON.parse(inStage(runtime, 'VOLUME')[0]!.args)).toEqual([STORE_DIR]);
    expect(inStage(runtime, 'EXPOSE')[0]?.args).toBe(String(container.metrics.port));
    expect(inStage(runtime, 'HEALTHCHECK')[0]?.args).toContain(`http://127.0.0.1:${container.metrics.port}/healthz`);
    expect(inStage(runtime, 'ENV')[0]?.args).toContain(`BALLAST_CONFIG=${CONFIG_FILE}`);
  });
});

interface ComposeService {
  build?: { context: string; dockerfile: string };
  image?: string;
  command?: string[];
  env_file?: string[];
  environment?: Record<string, string>;
  secrets?: string[];
  volumes?: string[];
  expose?: string[];
  ports?: string[];
  read_only?: boolean;
}

describe('deploy/docker-compose.yml', () => {
  const compose = parse(readRepo('deploy/docker-compose.yml')) as {
    services: Record<string, ComposeService>;
    secrets: Record<string, { file: string }>;
    volumes: Record<string, unknown>;
  };
  const deployDir = path.join(ROOT, 'deploy');
  const ballast = compose.services.ballast!;

  it('has the daemon, Prometheus, the Pushgateway and Grafana', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['ballast', 'grafana', 'prometheus', 'pushgateway']);
    expect(existsSync(path.join(deployDir, ballast.build!.context, ballast.build!.dockerfile))).toBe(true);
    expect(ballast.command).toEqual(['daemon']);
    expect(ballast.read_only).toBe(true);
  });

  it('references files that exist, or secrets the operator supplies and git ignores', () => {
    expect(composeMountProblems(compose)).toEqual([]);
  });

  it('gives the daemon the config, store, credentials and port its config names', () => {
    const mounts = Object.fromEntries((ballast.volumes ?? []).map((v) => [v.split(':')[1]!, v.split(':')[0]!]));
    expect(mounts[CONFIG_FILE]).toBe('./container/ballast.yaml');
    expect(ballast.environment?.BALLAST_CONFIG).toBe(CONFIG_FILE);
    expect(compose.volumes).toHaveProperty(mounts[STORE_DIR]!);
    // compose mounts secrets at /run/secrets/<name>: the names the config reads from ${CREDENTIALS_DIRECTORY}.
    expect(ballast.environment?.CREDENTIALS_DIRECTORY).toBe('/run/secrets');
    expect([...(ballast.secrets ?? [])].sort()).toEqual(credentialRefs(containerText).active.sort());
    expect(ballast.expose).toEqual([String(container.metrics.port)]);
    expect(ballast.ports).toBeUndefined();
  });

  it('points Prometheus at the daemon and the Pushgateway, and Grafana at Prometheus', () => {
    const prom = parse(readRepo('deploy/prometheus/prometheus.yml')) as {
      scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[];
      rule_files?: string[];
    };
    const targets = prom.scrape_configs.flatMap((j) => j.static_configs.flatMap((s) => s.targets));
    expect(targets).toContain(`ballast:${container.metrics.port}`);
    expect(targets).toContain('pushgateway:9091');
    expect(compose.services.pushgateway!.ports).toEqual(['127.0.0.1:9091:9091']);
    for (const rule of prom.rule_files ?? []) {
      expect(compose.services.prometheus!.volumes).toContain(`./prometheus/${rule}:/etc/prometheus/${rule}:ro`);
    }
    const ds = parse(readRepo('deploy/grafana/provisioning/datasources/prometheus.yml')) as { datasources: { url: string }[] };
    expect(ds.datasources[0]?.url).toBe('http://prometheus:9090');
    const dashboards = parse(readRepo('deploy/grafana/provisioning/dashboards/ballast.yml')) as {
      providers: { options: { path: string } }[];
    };
    const dashboardMount = compose.services.grafana!.volumes!.find((v) => v.startsWith('./grafana/ballast-dashboard.json:'))!;
    expect(path.dirname(dashboardMount.split(':')[1]!)).toBe(dashboards.providers[0]?.options.path);
  });
});

/** A Kubernetes object, loosely typed. */
type K8s = { kind: string; metadata: { name: string; labels?: Record<string, string> }; spec?: any; data?: Record<string, string> }; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('deploy/k8s', () => {
  const files = readdirSync(path.join(ROOT, 'deploy/k8s')).filter((f) => f.endsWith('.yaml'));
  const objects: K8s[] = files
    .flatMap((f) => parseAllDocuments(readRepo(`deploy/k8s/${f}`)) as unknown as { toJS(): K8s }[])
    .map((d) => d.toJS())
    .filter((o) => o?.kind);
  const byKind = (kind: string) => objects.filter((o) => o.kind === kind);
  const deployment = byKind('Deployment')[0]!;
  const cronJob = byKind('CronJob')[0]!;
  const configMap = byKind('ConfigMap')[0]!;

  it('lists existing files in the kustomization and carries no secret values', () => {
    const kustomization = objects.find((o) => o.kind === 'Kustomization') as unknown as { resources: string[] };
    for (const r of kustomization.resources) expect(existsSync(path.join(ROOT, 'deploy/k8s', r)), r).toBe(true);
    expect(kustomization.resources).not.toContain('cronjob.yaml'); // the alternative to the Deployment, never both
    expect(byKind('Secret')).toEqual([]);
    expect(byKind('PersistentVolumeClaim')).toHaveLength(1);
    expect(byKind('Service')).toHaveLength(1);
    expect(byKind('ServiceMonitor')).toHaveLength(1);
  });

  it("keeps the ConfigMap's config identical to deploy/container/ballast.yaml", () => {
    expect(configMap.data?.['ballast.yaml']).toBe(containerText);
  });

  it('runs one signer: one replica, Recreate', () => {
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.spec.strategy).toEqual({ type: 'Recreate' });
    expect(cronJob.spec.concurrencyPolicy).toBe('Forbid');
  });

  for (const [what, pod] of [
    ['Deployment', () => deployment.spec.template.spec],
    ['CronJob', () => cronJob.spec.jobTemplate.spec.template.spec],
  ] as const) {
    it(`${what}: non-root, read-only root, and mounts that agree with the config`, () => {
      const spec = pod();
      expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, runAsGroup: 10001, fsGroup: 10001 });
      const c = spec.containers[0];
      expect(c.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      const volumes = Object.fromEntries(spec.volumes.map((v: { name: string }) => [v.name, v]));
      const mountOf = (p: string) => c.volumeMounts.find((m: { mountPath: string }) => m.mountPath === p);
      // Config: the ConfigMap's key at the path --config names.
      const configPath = c.args[c.args.indexOf('--config') + 1];
      expect(configPath).toBe(CONFIG_FILE);
      const configVol = volumes[mountOf(path.dirname(configPath)).name];
      expect(configVol.configMap.name).toBe(configMap.metadata.name);
      expect(Object.keys(configMap.data!)).toContain(path.basename(configPath));
      // Store: the PVC at the store's directory.
      expect(volumes[mountOf(STORE_DIR).name].persistentVolumeClaim.claimName).toBe(byKind('PersistentVolumeClaim')[0]!.metadata.name);
      // Keys: a Secret (by reference) at $CREDENTIALS_DIRECTORY, no access for others.
      const credDir = c.env.find((e: { name: string }) => e.name === 'CREDENTIALS_DIRECTORY').value;
      const keys = volumes[mountOf(credDir).name].secret;
      expect(keys.secretName).toBe('ballast-keys');
      expect(keys.defaultMode & 0o007).toBe(0);
      expect(c.envFrom).toEqual([{ secretRef: { name: 'ballast-env' } }]);
    });
  }

  it('exposes the metrics port through the Service and the ServiceMonitor, with /healthz and /readyz probes', () => {
    const c = deployment.spec.template.spec.containers[0];
    expect(c.args.slice(-1)).toEqual(['daemon']);
    expect(c.ports).toEqual([{ name: 'metrics', containerPort: container.metrics.port, protocol: 'TCP' }]);
    expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
    const svc = byKind('Service')[0]!;
    const podLabels = deployment.spec.template.metadata.labels;
    for (const [k, v] of Object.entries(svc.spec.selector)) expect(podLabels[k]).toBe(v);
    expect(svc.spec.ports).toEqual([{ name: 'metrics', port: container.metrics.port, targetPort: 'metrics', protocol: 'TCP' }]);
    const sm = byKind('ServiceMonitor')[0]!;
    for (const [k, v] of Object.entries(sm.spec.selector.matchLabels)) expect(svc.metadata.labels?.[k]).toBe(v);
    expect(sm.spec.endpoints[0]).toMatchObject({ port: 'metrics', path: '/metrics' });
  });

  it('runs one-shots from the CronJob with run --once and a Pushgateway', () => {
    const args = cronJob.spec.jobTemplate.spec.template.spec.containers[0].args as string[];
    expect(args.slice(2, 5)).toEqual(['run', '--once', '--json']);
    expect(args[args.indexOf('--pushgateway') + 1]).toMatch(/^http:\/\/\S+:9091$/);
  });
});
