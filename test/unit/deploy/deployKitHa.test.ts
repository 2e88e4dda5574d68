/**
 * The replicated (HA) variant of the deployment kit: deploy/container/ballast-ha.yaml (loaded by the real loader:
 * a PostgreSQL store from the environment and the leader lease), deploy/k8s/ha/ (two replicas on different nodes,
 * no volume for a store, a PodDisruptionBudget, the ConfigMap equal to the container config, the migrate Job),
 * deploy/docker-compose.ha.yml (PostgreSQL, a one-shot migrate, two replicas after it) and
 * deploy/prometheus/prometheus-ha.yml (every replica scraped, `promtool check config`). Each is compared with the
 * single-replica file it derives from, so the two variants cannot drift apart unnoticed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { isPostgresUrl } from '../../../packages/ballast/src/config/storeUrl.ts';
import { composeMountProblems, credentialRefs, loadKitConfig, readRepo, ROOT } from './deployKitFiles.ts';

const HA_CONFIG = 'deploy/container/ballast-ha.yaml';
const haText = readRepo(HA_CONFIG);
const STORE_URL = 'postgres://u:p@db:5432/ballast';
const CONFIG_FILE = '/etc/ballast/ballast.yaml';

const single = loadKitConfig('deploy/container/ballast.yaml');
const ha = loadKitConfig(HA_CONFIG, { BALLAST_STORE_URL: STORE_URL, BALLAST_INSTANCE: 'pod-a' });

/** Every YAML document of a repository file, as plain JS. */
const docsOf = (rel: string): unknown[] => parseAllDocuments(readRepo(rel), { merge: true }).map((d) => d.toJS());

describe('every YAML file of the HA variant', () => {
  const files = [
    HA_CONFIG,
    'deploy/docker-compose.ha.yml',
    'deploy/prometheus/prometheus-ha.yml',
    ...readdirSync(path.join(ROOT, 'deploy/k8s/ha'))
      .filter((f) => /\.ya?ml$/.test(f))
      .map((f) => `deploy/k8s/ha/${f}`),
  ];
  it('parses', () => {
    expect(files).toEqual(
      expect.arrayContaining(['deploy/k8s/ha/kustomization.yaml', 'deploy/k8s/ha/deployment.yaml', 'deploy/k8s/ha/pdb.yaml']),
    );
    for (const file of files) {
      const docs = parseAllDocuments(readRepo(file));
      for (const doc of Array.isArray(docs) ? docs : [docs]) expect(doc.errors.map((e) => `${file}: ${e.message}`)).toEqual([]);
    }
  });
});

describe('deploy/container/ballast-ha.yaml', () => {
  it('loads with a PostgreSQL store from BALLAST_STORE_URL and the lease labelled by BALLAST_INSTANCE', () => {
    expect(ha.store).toBe(STORE_URL);
    expect(isPostgresUrl(ha.store)).toBe(true);
    expect(ha.ha).toMatchObject({ lease: 'ballast', instance: 'pod-a', ttlMs: 15_000 });
    expect(ha.warnings.filter((w) => w.startsWith('ha:'))).toEqual([]);
    // The URL (and its password) comes from the environment, never the file.
    expect(haText).toMatch(/^store: \$\{BALLAST_STORE_URL\}$/m);
    expect(haText).not.toMatch(/postgres(ql)?:\/\/[^\s`]*@/i); // no URL with credentials, even in a comment
  });

  it('needs BALLAST_INSTANCE set (no silent host-name default when the variable is missing)', () => {
    expect(() => loadKitConfig(HA_CONFIG, { BALLAST_STORE_URL: STORE_URL, BALLAST_INSTANCE: '' })).toThrow(/BALLAST_INSTANCE/);
  });

  it('has no kill-switch file (a local file on one replica halts nothing) and is otherwise the single config', () => {
    expect(ha.policy.limits?.killSwitchFile).toBeUndefined();
    expect(single.policy.limits?.killSwitchFile).toBeDefined();
    const { killSwitchFile: _dropped, ...singleLimits } = single.policy.limits ?? {};
    expect(ha.policy.limits).toEqual(singleLimits);
    expect({ ...ha.policy, limits: undefined }).toEqual({ ...single.policy, limits: undefined });
    for (const key of ['relay', 'chains', 'assets', 'tracking', 'schedule', 'metrics', 'log', 'withdrawals'] as const) {
      expect(ha[key], key).toEqual(single[key]);
    }
    expect(Object.fromEntries(Object.entries(ha.wallets).map(([n, w]) => [n, w.address]))).toEqual(
      Object.fromEntries(Object.entries(single.wallets).map(([n, w]) => [n, w.address])),
    );
    expect(credentialRefs(haText).active).toEqual(credentialRefs(readRepo('deploy/container/ballast.yaml')).active);
    expect(ha.metrics.host).toBe('0.0.0.0');
  });
});

/** A Kubernetes object, loosely typed. */
type K8s = {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: any;
  data?: Record<string, string>;
  resources?: string[];
}; // eslint-disable-line @typescript-eslint/no-explicit-any
type EnvVar = { name: string; value?: string; valueFrom?: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

const k8sDir = (dir: string): K8s[] =>
  readdirSync(path.join(ROOT, dir))
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((f) => docsOf(`${dir}/${f}`) as K8s[])
    .filter((o) => o?.kind);

describe('deploy/k8s/ha', () => {
  const objects = k8sDir('deploy/k8s/ha');
  const singleObjects = k8sDir('deploy/k8s');
  const byKind = (kind: string, from = objects) => from.filter((o) => o.kind === kind);
  const kustomization = byKind('Kustomization')[0]!;
  const deployment = byKind('Deployment')[0]!;
  const singleDeployment = byKind('Deployment', singleObjects)[0]!;
  const configMap = byKind('ConfigMap')[0]!;
  const pod = deployment.spec.template.spec;
  const c = pod.containers[0];
  const env = (name: string, from: EnvVar[] = c.env) => from.find((e) => e.name === name);

  it('is a kustomization of existing files in its directory, without PVC, CronJob, migrate Job or Secret', () => {
    for (const r of kustomization.resources!) {
      expect(existsSync(path.join(ROOT, 'deploy/k8s/ha', r)), r).toBe(true);
      expect(r.startsWith('..'), `${r}: kustomize refuses files outside the kustomization root`).toBe(false);
    }
    expect([...kustomization.resources!].sort()).toEqual([
      'configmap.yaml',
      'deployment.yaml',
      'pdb.yaml',
      'service.yaml',
      'servicemonitor.yaml',
    ]);
    expect(byKind('PersistentVolumeClaim')).toEqual([]);
    expect(byKind('Secret')).toEqual([]);
  });

  it("reuses the single kit's Service and ServiceMonitor verbatim", () => {
    for (const f of ['service.yaml', 'servicemonitor.yaml']) expect(readRepo(`deploy/k8s/ha/${f}`), f).toBe(readRepo(`deploy/k8s/${f}`));
  });

  it("keeps the ConfigMap's config identical to deploy/container/ballast-ha.yaml", () => {
    expect(configMap.data?.['ballast.yaml']).toBe(haText);
    expect(configMap.metadata.name).not.toBe(byKind('ConfigMap', singleObjects)[0]!.metadata.name);
  });

  it('runs two replicas, rolling one at a time with a surge, on different nodes', () => {
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } });
    const podLabels = deployment.spec.template.metadata.labels;
    for (const [k, v] of Object.entries(deployment.spec.selector.matchLabels)) expect(podLabels[k]).toBe(v);
    const spread = pod.topologySpreadConstraints.find((t: { topologyKey: string }) => t.topologyKey === 'kubernetes.io/hostname');
    expect(spread).toMatchObject({ maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' });
    for (const [k, v] of Object.entries(spread.labelSelector.matchLabels)) expect(podLabels[k]).toBe(v);
  });

  it("has no store volume: no PVC, nothing mounted at the single kit's store directory", () => {
    expect(pod.volumes.filter((v: { persistentVolumeClaim?: unknown }) => v.persistentVolumeClaim)).toEqual([]);
    expect(c.volumeMounts.map((m: { mountPath: string }) => m.mountPath)).not.toContain(path.dirname(single.store));
  });

  it('labels each replica with its pod name and reads the store URL from the ballast-env Secret', () => {
    expect(env('BALLAST_INSTANCE')?.valueFrom).toEqual({ fieldRef: { fieldPath: 'metadata.name' } });
    expect(env('BALLAST_STORE_URL')?.valueFrom).toEqual({ secretKeyRef: { name: 'ballast-env', key: 'BALLAST_STORE_URL' } });
    // Every ${VAR} of the config is set: explicitly, or by the ballast-env Secret (envFrom) for the rest.
    expect(c.envFrom).toEqual([{ secretRef: { name: 'ballast-env' } }]);
    expect(env('CREDENTIALS_DIRECTORY')).toEqual(env('CREDENTIALS_DIRECTORY', singleDeployment.spec.template.spec.containers[0].env));
  });

  it('mounts its own ConfigMap at the path --config names, and the keys like the single Deployment', () => {
    const volumes = Object.fromEntries(pod.volumes.map((v: { name: string }) => [v.name, v]));
    const mountOf = (p: string) => c.volumeMounts.find((m: { mountPath: string }) => m.mountPath === p);
    const configPath = c.args[c.args.indexOf('--config') + 1];
    expect(configPath).toBe(CONFIG_FILE);
    expect(c.args.at(-1)).toBe('daemon');
    expect(volumes[mountOf(path.dirname(configPath)).name].configMap.name).toBe(configMap.metadata.name);
    expect(Object.keys(configMap.data!)).toContain(path.basename(configPath));
    const sPod = singleDeployment.spec.template.spec;
    const sVolumes = Object.fromEntries(sPod.volumes.map((v: { name: string }) => [v.name, v]));
    expect(volumes.keys).toEqual(sVolumes.keys);
    expect(mountOf(env('CREDENTIALS_DIRECTORY')!.value!)).toMatchObject({ name: 'keys', readOnly: true });
  });

  it("keeps the single Deployment's probes, ports, security context, resources and grace period", () => {
    const sPod = singleDeployment.spec.template.spec;
    const sc = sPod.containers[0];
    for (const key of ['image', 'ports', 'livenessProbe', 'readinessProbe', 'resources', 'securityContext'] as const)
      expect(c[key], key).toEqual(sc[key]);
    for (const key of ['securityContext', 'terminationGracePeriodSeconds', 'automountServiceAccountToken'] as const)
      expect(pod[key], key).toEqual(sPod[key]);
    expect(deployment.spec.template.metadata.labels).toEqual(singleDeployment.spec.template.metadata.labels);
  });

  it('exposes the metrics port through the Service, with /healthz and /readyz probes on it', () => {
    const svc = byKind('Service')[0]!;
    const podLabels = deployment.spec.template.metadata.labels;
    for (const [k, v] of Object.entries(svc.spec.selector)) expect(podLabels[k]).toBe(v);
    expect(c.ports).toEqual([{ name: 'metrics', containerPort: ha.metrics.port, protocol: 'TCP' }]);
    expect(svc.spec.ports).toEqual([{ name: 'metrics', port: ha.metrics.port, targetPort: 'metrics', protocol: 'TCP' }]);
    expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
  });

  it("has a PodDisruptionBudget keeping one replica, selecting the Deployment's pods", () => {
    const pdbs = byKind('PodDisruptionBudget');
    expect(pdbs).toHaveLength(1);
    const pdb = pdbs[0]!;
    expect(pdb.spec.minAvailable).toBe(1);
    expect(pdb.spec.minAvailable).toBeLessThan(deployment.spec.replicas);
    expect(pdb.spec.selector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    const podLabels = deployment.spec.template.metadata.labels;
    for (const [k, v] of Object.entries(pdb.spec.selector.matchLabels)) expect(podLabels[k]).toBe(v);
  });

  it('migrates with a Job that runs the same config, env and keys as the replicas (outside the kustomization)', () => {
    const job = byKind('Job')[0]!;
    const jPod = job.spec.template.spec;
    const jc = jPod.containers[0];
    expect(jc.args).toEqual(['--config', CONFIG_FILE, 'migrate']);
    expect(jc.image).toBe(c.image);
    expect(jc.env).toEqual(c.env);
    expect(jc.envFrom).toEqual(c.envFrom);
    expect(jc.volumeMounts).toEqual(c.volumeMounts);
    expect(jPod.volumes).toEqual(pod.volumes);
    expect(jPod.securityContext).toEqual(pod.securityContext);
    expect(jPod.restartPolicy).toBe('Never');
    // Its pods are not the Deployment's: the Service and the PDB do not select them.
    expect(job.spec.template.metadata.labels['app.kubernetes.io/component']).not.toBe(
      deployment.spec.template.metadata.labels['app.kubernetes.io/component'],
    );
  });

  it('lists only files in or below its own directory, which together hold the five objects (kustomize refuses ../ paths)', () => {
    const k = parse(readRepo('deploy/k8s/ha/kustomization.yaml')) as { resources: string[] };
    for (const r of k.resources) expect(r, r).not.toMatch(/^\/|(^|\/)\.\.(\/|$)/);
    const kinds = k.resources.flatMap((r) => parseAllDocuments(readRepo(`deploy/k8s/ha/${r}`)).map((d) => (d.toJS() as K8s).kind)).sort();
    expect(kinds).toEqual(['ConfigMap', 'Deployment', 'PodDisruptionBudget', 'Service', 'ServiceMonitor']);
  });
});

interface ComposeService {
  image?: string;
  command?: string[];
  env_file?: string[];
  environment?: Record<string, string>;
  secrets?: string[];
  volumes?: string[];
  expose?: string[];
  ports?: string[];
  read_only?: boolean;
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: { test?: string[] };
  restart?: string;
}

describe('deploy/docker-compose.ha.yml', () => {
  const compose = docsOf('deploy/docker-compose.ha.yml')[0] as {
    name: string;
    services: Record<string, ComposeService>;
    secrets: Record<string, { file: string }>;
    volumes: Record<string, unknown>;
  };
  const singleCompose = parse(readRepo('deploy/docker-compose.yml')) as { name: string; services: Record<string, ComposeService> };
  const replicas = Object.keys(compose.services).filter((n) => n.startsWith('ballast-'));
  const prom = parse(readRepo('deploy/prometheus/prometheus-ha.yml')) as {
    scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[];
    rule_files?: string[];
  };
  const targets = prom.scrape_configs.flatMap((j) => j.static_configs.flatMap((s) => s.targets));
  const mountsOf = (svc: ComposeService) => Object.fromEntries((svc.volumes ?? []).map((v) => [v.split(':')[1]!, v.split(':')[0]!]));

  it('is standalone: PostgreSQL, migrate, two replicas, Prometheus, the Pushgateway and Grafana, under its own project name', () => {
    expect(Object.keys(compose.services).sort()).toEqual([
      'ballast-a',
      'ballast-b',
      'grafana',
      'migrate',
      'postgres',
      'prometheus',
      'pushgateway',
    ]);
    expect(compose.name).not.toBe(singleCompose.name);
    for (const name of ['pushgateway', 'grafana']) expect(compose.services[name], name).toEqual(singleCompose.services[name]);
  });

  it('runs postgres:16 on a named volume with a pg_isready healthcheck and the password from .env', () => {
    const pg = compose.services.postgres!;
    expect(pg.image).toBe('postgres:16');
    expect(pg.healthcheck?.test?.join(' ')).toMatch(/pg_isready/);
    const data = mountsOf(pg)['/var/lib/postgresql/data']!;
    expect(Object.keys(compose.volumes)).toContain(data);
    expect(pg.environment?.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD(:\?[^}]*)?\}$/);
  });

  it('migrates once PostgreSQL is healthy, and starts the replicas once migrate succeeded', () => {
    const migrate = compose.services.migrate!;
    expect(migrate.command).toEqual(['migrate']);
    expect(migrate.restart).toBe('no');
    expect(migrate.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' } });
    expect(replicas).toEqual(['ballast-a', 'ballast-b']);
    for (const name of replicas) {
      const svc = compose.services[name]!;
      expect(svc.command, name).toEqual(['daemon']);
      expect(svc.depends_on, name).toMatchObject({ migrate: { condition: 'service_completed_successfully' } });
      expect(svc.image, name).toBe(migrate.image);
    }
  });

  it('gives every Ballast container the HA config, the key, its instance label and the store URL built from .env', () => {
    const instances = new Set<string>();
    for (const name of [...replicas, 'migrate']) {
      const svc = compose.services[name]!;
      const mounts = mountsOf(svc);
      expect(mounts[CONFIG_FILE], name).toBe('./container/ballast-ha.yaml');
      expect(svc.environment?.BALLAST_CONFIG, name).toBe(CONFIG_FILE);
      expect(svc.environment?.CREDENTIALS_DIRECTORY, name).toBe('/run/secrets');
      expect([...(svc.secrets ?? [])].sort(), name).toEqual(credentialRefs(haText).active.sort());
      expect(svc.read_only, name).toBe(true);
      expect(svc.environment?.BALLAST_INSTANCE, name).toMatch(/^[A-Za-z0-9._:-]{1,100}$/);
      instances.add(svc.environment!.BALLAST_INSTANCE!);
      // The URL points at the postgres service's database and user, the password substituted from .env.
      const url = new URL(svc.environment!.BALLAST_STORE_URL!.replace(/\$\{POSTGRES_PASSWORD(:\?[^}]*)?\}/, 'pw'));
      const pgEnv = compose.services.postgres!.environment!;
      expect(isPostgresUrl(url.href), name).toBe(true);
      expect([url.hostname, url.username, url.password, url.pathname], name).toEqual([
        'postgres',
        pgEnv.POSTGRES_USER,
        'pw',
        `/${pgEnv.POSTGRES_DB}`,
      ]);
    }
    expect(instances.size).toBe(replicas.length + 1);
    for (const name of replicas) {
      expect(compose.services[name]!.expose, name).toEqual([String(ha.metrics.port)]);
      expect(compose.services[name]!.ports, name).toBeUndefined();
    }
  });

  it('mounts files that exist, or secrets the operator supplies and git ignores', () => {
    expect(composeMountProblems(compose)).toEqual([]);
  });

  it('scrapes every replica and the Pushgateway in prometheus-ha.yml, which Prometheus mounts with its rules', () => {
    for (const name of replicas) expect(targets, name).toContain(`${name}:${ha.metrics.port}`);
    expect(targets).toContain('pushgateway:9091');
    expect(prom.rule_files).toEqual(['alerts.yml']);
    const promSvc = compose.services.prometheus!;
    expect(mountsOf(promSvc)['/etc/prometheus/prometheus.yml']).toBe('./prometheus/prometheus-ha.yml');
    for (const rule of prom.rule_files ?? []) expect(promSvc.volumes).toContain(`./prometheus/${rule}:/etc/prometheus/${rule}:ro`);
  });

  it('passes promtool check config', () => {
    const out = execFileSync('promtool', ['check', 'config', 'deploy/prometheus/prometheus-ha.yml'], { cwd: ROOT, encoding: 'utf8' });
    expect(out).toContain('SUCCESS');
    expect(out).toContain('deploy/prometheus/prometheus-ha.yml is valid prometheus config file syntax');
  });
});
