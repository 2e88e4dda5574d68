/**
 * A Relay API that refuses the key (401 `UNAUTHORIZED_QUOTE`, the body a public client quotes for a request
 * without a key) is a configuration error: `run --once`, `plan` and a daemon's first cycle exit 2 with one line
 * naming relay.apiKey and the fix. Runs the real CLI against a tiny HTTP server on 127.0.0.1 (the chain RPC URLs
 * point at the same server: GET /chains is refused before any chain is read).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { baseConfig, ENV, tempDir, type TempDir } from '../unit/config/helpers.ts';
import { runCli } from './helpers/cli.ts';
import { freePort } from './helpers/freePort.ts';

let server: Server;
let url: string;
let tmp: TempDir;
const seen: { path: string; key: string | undefined }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ path: (req.url ?? '').split('?')[0]!, key: req.headers['x-api-key'] as string | undefined });
    req.resume();
    res
      .writeHead(401, { 'content-type': 'application/json' })
      .end(JSON.stringify({ message: 'Please provide an api key', errorCode: 'UNAUTHORIZED_QUOTE' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`; // listening on TCP: an AddressInfo
  tmp = tempDir();
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  tmp.cleanup();
});

async function writeConfig(): Promise<string> {
  const c = baseConfig();
  c.relay.baseUrl = url;
  c.chains.arbitrum.rpcUrl = url;
  c.store = './ballast.db';
  c.schedule = '0 0 1 1 *';
  c.metrics = { listen: `127.0.0.1:${await freePort()}` };
  return tmp.write(c);
}

const env = { ...ENV, BASE_RPC: 'http://127.0.0.1:1/rpc' };
const LINE =
  /^ballast: Relay refused the API key \(401 UNAUTHORIZED_QUOTE on GET \/chains\): set relay\.apiKey to a key from dashboard\.relay\.link/m;

describe('a refused API key', () => {
  it.each([
    ['run --once', ['run', '--once']],
    ['plan', ['plan']],
    ['daemon (first cycle)', ['daemon', '--run-at-start']],
  ])('%s exits 2 with one line naming relay.apiKey', async (_name, args) => {
    const config = await writeConfig();
    seen.length = 0;
    const r = await runCli(['--config', config, '--log-level', 'fatal', ...args], { env, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(LINE);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((s) => s.key === ENV.RELAY_API_KEY)).toBe(true); // the key was sent, and refused
  });
});
