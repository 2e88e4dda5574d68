/**
 * The commands that must leave no trace where there is nothing to work on: `check-config` validates a config with
 * no network reachable and without opening a store (exit 0 on a good config, 2 with the loader's field-naming
 * lines on a broken one); `plan` on a store that does not exist yet creates no file; and a store Ballast creates
 * (here by `migrate`) is private to its owner (mode 0600, its WAL files too).
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, runCliInProcess } from './helpers/cli.ts';
import { offlineConfig } from './helpers/offlineConfig.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ballast-check-config-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const ENV = { BETA_RPC: 'http://127.0.0.1:9/rpc' }; // its port is closed too

describe('ballast check-config', () => {
  it('accepts a valid config (exit 0) with no network, opening and creating no store', async () => {
    const { dir, config } = await offlineConfig(tmp, 'good');
    const r = await runCli(['check-config', '--config', config], { env: ENV });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `${config}: valid (1 wallet, 2 chains, 2 holdings of 1 asset; store ${path.join(dir, 'data/ballast.db')}, not opened)`,
    );
    expect(readdirSync(dir).sort()).toEqual(['ballast.yaml', 'treasury.key']);

    const json = await runCliInProcess(['check-config', '--config', config, '--json'], { env: ENV });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ ok: true, file: config, warnings: [] });
  });

  it('refuses a broken config (exit 2) with one line per problem naming its field, as loading does', async () => {
    const { dir, config } = await offlineConfig(
      tmp,
      'broken',
      (y) =>
        y
          .replace('{chain: alpha, currency: "0x2E983A1Ba5e8b38AAAeC4B440B9dDcFBf72E15d1"', '{chain: alpha, currency: "0x1234"') // not an address
          .replace(
            '{chain: beta, currency: "0x2E983A1Ba5e8b38AAAeC4B440B9dDcFBf72E15d1", wallet: treasury',
            '{chain: beta, currency: "0x2E983A1Ba5e8b38AAAeC4B440B9dDcFBf72E15d1", wallet: tresury',
          ), // no such wallet
    );
    chmodSync(path.join(dir, 'treasury.key'), 0o644); // readable by everyone
    const r = await runCliInProcess(['check-config', '--config', config], { env: {} }); // BETA_RPC unset
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^ballast: invalid configuration .*ballast\.yaml \(\d+ problems\):/);
    expect(r.stderr).toMatch(/^ {2}assets\.USDC\[1\]\.wallet: .*tresury/m);
    expect(r.stderr).toMatch(/^ {2}assets\.USDC\[0\]\.currency: /m);
    expect(r.stderr).toMatch(/^ {2}wallets\.treasury\.keyFile: .*chmod 600/m);
    expect(r.stderr).toMatch(/^ {2}chains\.beta\.rpcUrl: .*BETA_RPC/m);
    // The same lines as any command that loads the config (here `plan`, which stops at loading).
    const plan = await runCliInProcess(['plan', '--config', config], { env: {} });
    expect(plan.code).toBe(2);
    expect(plan.stderr).toBe(r.stderr);

    const json = await runCliInProcess(['check-config', '--config', config, '--json'], { env: {} });
    expect(json.code).toBe(2);
    const body = JSON.parse(json.stdout) as { ok: boolean; issues: { path: string; message: string }[] };
    expect(body.ok).toBe(false);
    expect(body.issues.map((i) => i.path)).toEqual(
      expect.arrayContaining(['assets.USDC[1].wallet', 'assets.USDC[0].currency', 'wallets.treasury.keyFile', 'chains.beta.rpcUrl']),
    );
    expect(readdirSync(dir).sort()).toEqual(['ballast.yaml', 'treasury.key']);
  });
});

describe('the store file', () => {
  it('is not created by plan when it does not exist (the plan is made without history)', async () => {
    const { dir, config } = await offlineConfig(tmp, 'plan');
    const r = await runCliInProcess(['plan', '--config', config], { env: ENV });
    expect(r.code).toBe(1); // the Relay API is unreachable
    expect(r.stderr).toContain('does not exist yet; planning without history');
    expect(readdirSync(dir).sort()).toEqual(['ballast.yaml', 'treasury.key']);
  });

  it('is created with mode 0600, and so are its WAL files', async () => {
    const store = path.join(tmp, 'created', 'ballast.db');
    const r = await runCliInProcess(['migrate', '--store', store]);
    expect(r.code, r.stderr).toBe(0);
    expect(statSync(store).mode & 0o777).toBe(0o600);
    for (const f of readdirSync(path.dirname(store))) expect(statSync(path.join(path.dirname(store), f)).mode & 0o777, f).toBe(0o600);
  });
});
