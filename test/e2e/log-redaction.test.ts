/**
 * No secret reaches the logs: a real `ballast run --once` (and a `plan`, in the pretty format) at trace level on
 * the sandbox (EVM chains, Solana, Bitcoin), with an API key the sandbox requires, every private key in use and
 * credentials in the RPC, Esplora and Relay URLs. Every line of stderr is searched for every form of every
 * secret: EVM key hex (with and without 0x, either case), the Solana secret key (base58, JSON byte array, hex,
 * base64, the 32-byte seed), the Bitcoin WIF and its raw key, the API key and the URL credentials.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createBase58check, base58 } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { sandboxEnv } from '../../packages/ballast/src/cli/sandboxEnv.ts';
import { runCli, runCliInProcess } from './helpers/cli.ts';
import { demoConfigFor } from './helpers/demoConfig.ts';
import { sandboxPerTest, tempDir } from './helpers/sandboxBallast.ts';

const tmp = tempDir('ballast-log-redaction-');
afterAll(() => tmp.cleanup());
const sandboxes = sandboxPerTest();

const API_KEY = 'relay-log-test-key-7c1e4a90b2d3';
const RPC_TOKEN = 'rpc-token-5e8f1d2c9a7b';
const ESPLORA_PASSWORD = 'esplora-pass-3b6d9f0a1c';
const RELAY_PASSWORD = 'relay-pass-8a2c4e6f0b';

/** Every text form a secret of 32 or 64 bytes may take in a log line. */
function byteForms(bytes: Uint8Array): string[] {
  const hex = Buffer.from(bytes).toString('hex');
  return [
    hex,
    hex.toUpperCase(),
    `0x${hex}`,
    Buffer.from(bytes).toString('base64'),
    base58.encode(bytes),
    JSON.stringify([...bytes]),
    [...bytes].join(','),
  ];
}

describe('log redaction', () => {
  it('keeps every key, the API key and URL credentials out of trace-level logs', async () => {
    const sandbox = await sandboxes.start({ solana: true, bitcoin: true, bitcoinBlockMs: 300, apiKey: API_KEY });
    const store = path.join(tmp.dir, 'ballast.db');
    const env: Record<string, string> = { ...sandboxEnv(sandbox, store), RELAY_API_KEY: API_KEY };
    env.BALLAST_LOG_FORMAT = '';
    env.BALLAST_LOG_LEVEL = '';

    // The EVM key from a key file, the Solana key as solana-keygen's JSON array file, the WIF from the environment.
    const evmKey = sandbox.accounts.treasury.privateKey;
    const solSecret = sandbox.solana!.treasury.keypair.secretKey;
    const wif = sandbox.bitcoin!.treasury.wif;
    writeFileSync(path.join(tmp.dir, 'evm.key'), `${evmKey}\n`, { mode: 0o600 });
    writeFileSync(path.join(tmp.dir, 'sol.json'), JSON.stringify([...solSecret]), { mode: 0o600 });

    const withAuth = (url: string, user: string, pass: string) => url.replace('http://', `http://${user}:${pass}@`);
    type Section = Record<string, Record<string, unknown>>;
    const doc = demoConfigFor(sandbox) as { relay: Record<string, unknown>; wallets: Section; chains: Section; log?: unknown };
    doc.relay = { ...doc.relay, baseUrl: withAuth(sandbox.apiUrl, 'relay', RELAY_PASSWORD), apiKey: '${RELAY_API_KEY}' };
    doc.wallets.treasury = { vm: 'evm', keyFile: './evm.key' };
    doc.wallets.treasury_sol = { vm: 'svm', keyFile: './sol.json' };
    doc.wallets.treasury_btc = { ...doc.wallets.treasury_btc, privateKey: '${SANDBOX_BITCOIN_TREASURY_WIF}' };
    for (const name of ['alpha', 'beta'])
      doc.chains[name] = { ...doc.chains[name], rpcUrl: `\${SANDBOX_${name.toUpperCase()}_RPC}/?apikey=${RPC_TOKEN}` };
    doc.chains.bitcoin = { ...doc.chains.bitcoin, esploraUrl: withAuth(sandbox.bitcoin!.esploraUrl, 'esplora', ESPLORA_PASSWORD) };
    doc.log = { level: 'warn' }; // --log-level trace must win
    const config = path.join(tmp.dir, 'ballast.yaml');
    writeFileSync(config, stringify(doc));

    const wifBytes = createBase58check(sha256).decode(wif); // 0x80|0xef, 32-byte key, 0x01 (compressed)
    const secrets = [
      ...byteForms(Buffer.from(evmKey.slice(2), 'hex')),
      ...byteForms(solSecret),
      ...byteForms(solSecret.slice(0, 32)),
      wif,
      ...byteForms(wifBytes.slice(1, 33)),
      API_KEY,
      RPC_TOKEN,
      ESPLORA_PASSWORD,
      RELAY_PASSWORD,
    ];
    const leaks = (stderr: string) =>
      stderr
        .split('\n')
        .flatMap((line, i) =>
          secrets.filter((s) => line.includes(s)).map((s) => `line ${i + 1} holds ${s.slice(0, 6)}…: ${line.slice(0, 200)}`),
        );

    const run = await runCli(['run', '--once', '--log-level', 'trace', '--config', config], { env, timeoutMs: 150_000 });
    expect(run.code, run.stderr.slice(-3000)).toBe(0);
    expect(run.stdout).toContain('success');
    const lines = run.stderr.split('\n').filter((l) => l.trim() !== '');
    const parsed = lines.map((l) => JSON.parse(l) as { level: string; msg?: string });
    // JSON lines (stderr is a pipe here), and the verbose levels were on: the search covered debug and trace lines.
    expect(parsed.length).toBeGreaterThan(20);
    expect(parsed.some((l) => l.level === 'debug' || l.level === 'trace')).toBe(true);
    expect(leaks(run.stderr)).toEqual([]);

    // pretty format (forced: stderr is not a terminal) through another command, at trace level too: the CLI's main()
    // in this process, everything it writes to stderr captured (the run above is the real process).
    const plan = await runCliInProcess(['plan', '--log-level', 'trace', '--config', config], {
      env: { ...env, BALLAST_LOG_FORMAT: 'pretty' },
    });
    expect(plan.code, plan.stderr.slice(-3000)).toBe(0);
    expect(plan.stderr.split('\n')[0]).not.toMatch(/^\{/); // pino-pretty lines, not JSON
    expect(plan.stderr).toMatch(/DEBUG|TRACE/);
    expect(leaks(plan.stderr)).toEqual([]);
  }, 300_000);
});
