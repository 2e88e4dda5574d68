/**
 * `ballast demo` as a newcomer runs it, and config errors as an operator meets them.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, runCliInProcess } from './helpers/cli.ts';
import { tempDir } from './helpers/sandboxBallast.ts';

const tmp = tempDir('ballast-demo-');
afterAll(() => tmp.cleanup());

describe('ballast demo', () => {
  it('rebalances USDC across EVM chains and Solana and BTC from Bitcoin to wrapped BTC, leaving every transfer in the SQLite file', async () => {
    const store = path.join(tmp.dir, 'demo.db');
    const started = Date.now();
    const r = await runCli(['demo', '--json', '--store', store]);
    expect(r.code, r.stderr).toBe(0);
    // How long it took grows with machine load: printed, not asserted (the test timeout bounds it).
    console.log(`ballast demo: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const out = JSON.parse(r.stdout) as {
      outcome: string;
      before: { chain: string; currency: string; amount: string }[];
      after: { chain: string; currency: string; amount: string }[];
    };
    expect(out.outcome).toBe('ok');
    const bal = (rows: typeof out.before, chain: string, i = 0) => BigInt(rows.filter((x) => x.chain === chain)[i]!.amount);
    // USDC: alpha gives 20 000 to beta and 20 000 to Solana (6 decimals on both).
    expect(bal(out.before, 'alpha') - bal(out.after, 'alpha')).toBe(40_000_000_000n);
    expect(bal(out.after, 'beta') - bal(out.before, 'beta') > 19_000_000_000n).toBe(true);
    expect(bal(out.after, 'solana') - bal(out.before, 'solana') > 19_000_000_000n).toBe(true);
    // BTC: Bitcoin gives 0.0498 BTC (plus its miner fee) and alpha's WBTC (the second alpha row) grows.
    expect(bal(out.before, 'bitcoin') - bal(out.after, 'bitcoin') >= 4_980_000n).toBe(true);
    expect(bal(out.after, 'alpha', 1) - bal(out.before, 'alpha', 1) > 4_900_000n).toBe(true);

    const db = new Database(store, { readonly: true });
    try {
      const rows = db.prepare('SELECT id, origin_chain, destination_chain, status FROM transfers ORDER BY id').all() as {
        id: number;
        origin_chain: string;
        destination_chain: string;
        status: string;
      }[];
      expect(rows.map((t) => [t.origin_chain, t.destination_chain, t.status]).sort()).toEqual([
        ['alpha', 'beta', 'success'],
        ['alpha', 'solana', 'success'],
        ['bitcoin', 'alpha', 'success'],
      ]);
      const btc = rows.find((t) => t.origin_chain === 'bitcoin')!;
      const hashes = db.prepare('SELECT tx_hash FROM transfer_txs WHERE transfer_id = ?').all(btc.id) as { tx_hash: string }[];
      expect(hashes).toHaveLength(1);
      expect(hashes[0]!.tx_hash).toMatch(/^[0-9a-f]{64}$/); // a Bitcoin txid
    } finally {
      db.close();
    }
  });

  it('prints the before/after table for people; with --signer kms-local every wallet signs through the local KMS endpoint', async () => {
    const dir = mkdtempSync(path.join(tmp.dir, 'kms-'));
    const r = await runCli(['demo', '--signer', 'kms-local', '--store', path.join(dir, 'demo2.db')]);
    expect(r.code, r.stderr).toBe(0);
    // The config it ran with names KMS keys and addresses only: no key is on the host.
    const config = readFileSync(path.join(dir, 'ballast-demo-kms.yaml'), 'utf8');
    expect(config.match(/kind: awsKms/g)).toHaveLength(3);
    expect(config).not.toMatch(/privateKey|keyFile/);
    expect(r.stdout).toMatch(/before.*after/s);
    expect(r.stdout).toContain('USDC alpha → beta');
    expect(r.stdout).toContain('USDC alpha → solana');
    expect(r.stdout).toContain('BTC bitcoin → alpha');
    expect(r.stdout).toContain('success');
    // The transfer record shows whole units with the symbol, then the exact base units.
    expect(r.stdout).toMatch(/amount in +│ 20000 USDC \(20000000000 base units\)/);
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
    // The CLI's main() in this process (the config error of `run --once` above is the real process's exit 2).
    const r = await runCliInProcess(['plan', '--config', path.resolve('packages/ballast/config/demo.yaml')], {
      env: { SANDBOX_API_URL: '' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/SANDBOX_TREASURY_KEY/);
  });
});
