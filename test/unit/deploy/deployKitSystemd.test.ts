/**
 * deploy/systemd/ballast.service and deploy/cron/ballast.cron against config/ballast.example.yaml: the store
 * and kill-switch file lie in the unit's writable state directory, the key files the config reads are the
 * credentials the unit loads, ExecStart runs the package's bin with the config the unit names, exit 2 stops the
 * restart loop, and `systemd-analyze verify` accepts the unit. The cron file runs the same bin with the same
 * config and documents every exit code.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { registerRun } from '../../../packages/ballast/src/cli/commands/run.ts';
import { EXIT_ERROR, EXIT_LOCKED, EXIT_OK, EXIT_REFUSED, EXIT_USAGE } from '../../../packages/ballast/src/cli/exitCodes.ts';
import { credentialRefs, loadKitConfig, parseUnit, readRepo, ROOT } from './deployKitFiles.ts';

const UNIT_TEXT = readRepo('deploy/systemd/ballast.service');
const unit = parseUnit(UNIT_TEXT);
const service = unit.sections.Service ?? {};
const one = (key: string): string => {
  const v = service[key];
  if (v?.length !== 1) throw new Error(`[Service] ${key} must be set once, found ${JSON.stringify(v)}`);
  return v[0]!;
};
const EXAMPLE = 'packages/ballast/config/ballast.example.yaml';
const example = loadKitConfig(EXAMPLE);
const exampleText = readRepo(EXAMPLE);
const execStart = one('ExecStart').split(/\s+/);
/** Where the units expect the checkout, and the product's package inside it. */
const CHECKOUT_DIR = '/opt/ballast';
const PACKAGE_DIR = `${CHECKOUT_DIR}/packages/ballast`;

describe('deploy/systemd/ballast.service agrees with config/ballast.example.yaml', () => {
  it('keeps the store and the kill-switch file in the state directory, the only writable path', () => {
    expect(one('ProtectSystem')).toBe('strict');
    const stateDir = `/var/lib/${one('StateDirectory')}`;
    const writable = [stateDir, ...(service.ReadWritePaths ?? []).flatMap((v) => v.split(/\s+/))];
    const isWritable = (file: string) => writable.some((dir) => path.dirname(file) === dir || path.dirname(file).startsWith(`${dir}/`));
    expect(path.dirname(example.store)).toBe(stateDir);
    expect(isWritable(example.store)).toBe(true);
    expect(example.policy.limits?.killSwitchFile).toBeDefined();
    expect(isWritable(example.policy.limits!.killSwitchFile!)).toBe(true);
    expect(one('WorkingDirectory')).toBe(stateDir);
  });

  it('runs the package bin with the config in the configuration directory', () => {
    expect(execStart[0]).toMatch(/^\/usr\/bin\/node$/);
    expect(execStart[1]).toBe(`${PACKAGE_DIR}/${JSON.parse(readRepo('packages/ballast/package.json')).bin.ballast.replace(/^\.\//, '')}`);
    expect(existsSync(path.join(ROOT, path.relative(CHECKOUT_DIR, execStart[1]!)))).toBe(true);
    const config = execStart[execStart.indexOf('--config') + 1];
    expect(config).toBe(`/etc/${one('ConfigurationDirectory')}/ballast.yaml`);
    expect(execStart.at(-1)).toBe('daemon');
  });

  it('loads exactly the credentials the config reads as key files', () => {
    const name = (v: string) => v.split(':')[0]!;
    const refs = credentialRefs(exampleText);
    expect(refs.active.length).toBeGreaterThan(0);
    expect((service.LoadCredential ?? []).map(name).sort()).toEqual([...refs.active].sort());
    expect((unit.commented.LoadCredential ?? []).map(name).sort()).toEqual([...refs.commented].sort());
    // The loaded example reads the key through ${CREDENTIALS_DIRECTORY}, which systemd sets for the service.
    const doc = parseDocument(exampleText).toJS() as { wallets: Record<string, { keyFile?: string; privateKey?: string }> };
    for (const wallet of Object.values(doc.wallets)) {
      expect(wallet.privateKey).toBeUndefined();
      expect(wallet.keyFile).toMatch(/^\$\{CREDENTIALS_DIRECTORY\}\//);
    }
    expect(example.wallets.treasury?.address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
  });

  it('stops restarting on exit 2 (config, key file or store) and runs unprivileged and hardened', () => {
    expect(one('Restart')).toBe('on-failure');
    expect(one('RestartPreventExitStatus').split(/\s+/)).toContain(String(EXIT_USAGE));
    expect(one('User')).not.toMatch(/^(root|0)$/);
    expect(one('NoNewPrivileges')).toBe('yes');
    expect(one('ProtectHome')).toBe('yes');
    expect(one('PrivateTmp')).toBe('yes');
    expect(one('CapabilityBoundingSet')).toBe('');
    expect(one('EnvironmentFile')).toBe(`/etc/${one('ConfigurationDirectory')}/ballast.env`);
  });
});

describe('systemd-analyze verify', () => {
  const tmp = mkdtempSync(path.join(tmpdir(), 'ballast-unit-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  /** The unit with its absolute paths pointed at this machine's node and this checkout's bin. */
  const localUnit = (text: string) =>
    text
      .replace(
        `ExecStart=/usr/bin/node ${PACKAGE_DIR}/bin/ballast.mjs`,
        `ExecStart=${process.execPath} ${path.join(ROOT, path.relative(CHECKOUT_DIR, PACKAGE_DIR), 'bin/ballast.mjs')}`,
      )
      .replace(`Documentation=file://${CHECKOUT_DIR}/README.md`, `Documentation=file://${path.join(ROOT, 'README.md')}`);

  const verify = (text: string) => {
    const file = path.join(tmp, 'ballast.service');
    writeFileSync(file, text);
    const r = spawnSync('/usr/bin/systemd-analyze', ['verify', file], { encoding: 'utf8' });
    // Only what concerns this unit (the host's own units may draw warnings of their own).
    const about = `${r.stdout}${r.stderr}`.split('\n').filter((l) => l.includes('ballast'));
    return { status: r.status, about };
  };

  it('accepts the unit without a warning', () => {
    const local = localUnit(UNIT_TEXT);
    expect(local).toContain(`ExecStart=${process.execPath}`);
    expect(verify(local)).toEqual({ status: 0, about: [] });
  });

  it('reports a misspelt key and a missing binary (the check can fail)', () => {
    const local = localUnit(UNIT_TEXT);
    expect(verify(local.replace('RestartPreventExitStatus=', 'RestartPreventExitStatuss=')).about.join('\n')).toMatch(/Unknown key/);
    expect(verify(local.replace(`ExecStart=${process.execPath}`, 'ExecStart=/nonexistent/node')).status).not.toBe(0);
  });
});

describe('deploy/cron/ballast.cron', () => {
  const text = readRepo('deploy/cron/ballast.cron');
  const lines = text.split('\n');
  const jobs = (all: string[]) => all.filter((l) => /^#?\S+ \S+ \S+ \S+ \S+ ballast /.test(l) && !l.startsWith('# '));

  it("runs `run --once` of the package bin with the unit's config as the ballast user", () => {
    const active = jobs(lines.filter((l) => !l.startsWith('#')));
    expect(active).toHaveLength(1);
    expect(active[0]).toContain(`/usr/bin/node ${PACKAGE_DIR}/bin/ballast.mjs run --once`);
    expect(active[0]).not.toContain('%'); // cron turns % into a newline
    expect(lines).toContain(`BALLAST_CONFIG=${execStart[execStart.indexOf('--config') + 1]}`);
    // Keys are read in place: the directory systemd loads them from.
    const sources = (service.LoadCredential ?? []).map((v) => path.dirname(v.split(':')[1]!));
    expect(lines).toContain(`CREDENTIALS_DIRECTORY=${sources[0]}`);
    expect(text).toContain(`. ${one('EnvironmentFile')}`);
  });

  it('shows the Pushgateway variant, with a flag `run` has', () => {
    const variants = jobs(lines.filter((l) => l.startsWith('#*')));
    expect(variants.some((l) => l.includes('run --once --json --pushgateway http://127.0.0.1:9091'))).toBe(true);
    const program = new Command('ballast');
    registerRun(program, () => {});
    const run = program.commands.find((c) => c.name() === 'run')!;
    expect(run.options.map((o) => o.long)).toEqual(expect.arrayContaining(['--once', '--json', '--pushgateway']));
  });

  it('documents every exit code of the CLI', () => {
    const codes = readFileSync(path.join(ROOT, 'packages/ballast/src/cli/exitCodes.ts'), 'utf8');
    const all = [...codes.matchAll(/export const EXIT_\w+ = (\d+);/g)].map((m) => Number(m[1]));
    expect(all.sort()).toEqual([EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_REFUSED, EXIT_LOCKED].sort());
    for (const code of all) expect(text).toMatch(new RegExp(`^#\\s+${code}\\s+\\S`, 'm'));
  });
});
