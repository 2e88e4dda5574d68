/**
 * `ballast demo` as a newcomer runs it, and config errors as an operator meets them.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.ts';
import { tempDir } from './helpers/sandboxBallast.ts';

const tmp = tempDir('ballast-demo-');
afterAll(() => tmp.cleanup());

describe('ballast demo', () => {
  it('closes the sandbox deficit and leaves the successful transfer in the SQLite file', async () => {
    const store = path.join(tmp.dir, 'demo.db');
    const r = await runCli(['demo', '--json', '--store', store]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      outcome: string;
      before: { chain: string; amount: string }[];
      after: { chain: string; amount: string }[];
    };
    expect(out.outcome).toBe('ok');
    const bal = (rows: { chain: string; amount: string }[], chain: string) => BigInt(rows.find((x) => x.chain === chain)!.amount);
    expect(bal(out.after, 'beta') - bal(out.before, 'beta') > 19_000_000_000n).toBe(true);
    expect(bal(out.before, 'alpha') - bal(out.after, 'alpha')).toBe(20_000_000_000n);

    const db = new Database(store, { readonly: true });
    try {
      const transfer = db.prepare('SELECT id, status FROM transfers').all() as { id: number; status: string }[];
      expect(transfer).toEqual([{ id: transfer[0]!.id, status: 'success' }]);
      const hashes = db.prepare('SELECT tx_hash FROM transfer_txs WHERE transfer_id = ?').all(transfer[0]!.id) as { tx_hash: string }[];
      expect(hashes).toHaveLength(2);
      for (const h of hashes) expect(h.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    } finally {
      db.close();
    }
  });

  it('prints the before/after table for people', async () => {
    const r = await runCli(['demo', '--store', path.join(tmp.dir, 'demo2.db')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/before.*after/s);
    expect(r.stdout).toContain('USDC alpha → beta');
    expect(r.stdout).toContain('success');
  });
});

describe('config errors', () => {
  it('exits 2 naming the YAML path of an unknown chain', async () => {
    const file = path.join(tmp.dir, 'bad.yaml');
    writeFileSync(
      file,
      [
        'relay: { baseUrl: "http://127.0.0.1:9" }',
        'wallets:',
        '  treasury: { vm: evm, privateKey: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80" }',
        'chains:',
        '  alpha: { chainId: 31001, rpcUrl: "http://127.0.0.1:9" }',
        'assets:',
        '  USDC:',
        '    - { chain: alpha, currency: "0x5FbDB2315678afecb367f032d93F642f64180aa3", wallet: treasury, min: "1", target: "2", max: "3" }',
        '    - { chain: arbtrum, currency: "0x5FbDB2315678afecb367f032d93F642f64180aa3", wallet: treasury, min: "1", target: "2", max: "3" }',
        'policy: { minTransfer: "1", maxTransfer: "10", maxFees: { totalBps: 30 } }',
      ].join('\n'),
    );
    const r = await runCli(['run', '--once', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('assets.USDC[1].chain');
    expect(r.stderr).toContain('arbtrum');
    expect(r.stderr).not.toContain('ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
  });

  it('exits 2 when a referenced environment variable is missing', async () => {
    const r = await runCli(['plan', '--config', path.resolve('config/demo.yaml')], { env: { SANDBOX_API_URL: '' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/SANDBOX_TREASURY_KEY/);
  });
});
