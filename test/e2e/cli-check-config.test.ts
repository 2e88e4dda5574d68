/**
 * The commands that must leave no trace where there is nothing to work on: `check-config` validates a config with
 * no network reachable and without opening a store (exit 0 on a good config, 2 with the loader's field-naming
 * lines on a broken one); `plan` on a store that does not exist yet creates no file; and a store Ballast creates
 * (here by `migrate`) is private to its owner (mode 0600, its WAL files too).
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, runCliInProcess } from './helpers/cli.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ballast-check-config-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Anvil's first dev key and its address: public test material. */
const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/** A loopback port nothing listens on: any call to the API or an RPC is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port; // listening on TCP
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Writes a config into a fresh directory (with its key file, mode 0600) and returns both. */
async function configDir(name: string, edit: (yaml: string) => string = (y) => y): Promise<{ dir: string; config: string }> {
  const dir = path.join(tmp, name);
  const port = await closedPort();
  const keyFile = path.join(dir, 'treasury.key');
  const yaml = `relay:
  baseUrl: http://127.0.0.1:${port}
wallets:
  treasury: {vm: evm, keyFile: ./treasury.key, address: "${ADDRESS}"}
chains:
  alpha: {chainId: 31001, rpcUrl: "http://127.0.0.1:${port}"}
  beta: {chainId: 31002, rpcUrl: "\${BETA_RPC}"}
assets:
  USDC:
    - {chain: alpha, currency: "0x2E983A1Ba5e8b38AAAeC4B440B9dDcFBf72E15d1", wallet: treasury, min: "100", target: "200", max: "300", decimals: 6}
    - {chain: beta, currency: "0x2E983A1Ba5e8b38AAAeC4B440B9dDcFBf72E15d1", wallet: treasury, min: "100", target: "200", max: "300", decimals: 6}
policy:
  minTransfer: "10"
  maxTransfer: "1000"
  slippageBps: 50
  maxFees: {totalBps: 30}
store: ./data/ballast.db
`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  writeFileSync(keyFile, `${KEY}\n`);
  chmodSync(keyFile, 0o600);
  const config = path.join(dir, 'ballast.yaml');
  writeFileSync(config, edit(yaml));
  return { dir, config };
}

const ENV = { BETA_RPC: 'http://127.0.0.1:9/rpc' };

describe('ballast check-config', () => {
  it('accepts a valid config (exit 0) with no network, opening and creating no store', async () => {
    const { dir, config } = await configDir('good');
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
    const { dir, config } = await configDir(
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
    const { dir, config } = await configDir('plan');
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
