/**
 * Keys off the host through a JSON-RPC remote signer and Turnkey (docs/keys.md).
 *
 * JSON-RPC: the treasury's EVM key lives only in a
 * separate signer process (anvil, whose `eth_signTransaction` signs for its unlocked dev accounts, as web3signer
 * and Clef do), behind a front that wants a bearer token. The signer process is killed with SIGKILL while the
 * cycle asks it for the deposit's signature (the approve was signed and sent): the cycle ends `error` naming the
 * signer, nothing else is broadcast and no USDC moves; with the signer back, the next cycle moves the need once,
 * never twice.
 *
 * Turnkey: the treasury's key is a wallet account of the sandbox's local Turnkey endpoint (the real `@turnkey/http`
 * client, requests stamped with the API key from the environment). The start check finds the account, the transfer
 * (approve and deposit) is signed there and moves the need once; an activity that needs consensus under the
 * organization's policy is final for the attempt, named, and nothing is broadcast.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hexToBytes } from 'viem';
import { checkRemoteSigners } from '../../packages/ballast/src/app/remoteSigners.ts';
import { startAnvil, type AnvilInstance } from '../../packages/sandbox/src/chains/anvil.ts';
import { startLocalTurnkey, type LocalTurnkey } from '../../packages/sandbox/src/turnkey/turnkeyServer.ts';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { ballastOnSandbox, tempDir, treasuryNonce } from './helpers/sandboxBallast.ts';
import { chainOf, freshNeed, NEED, NEED_BALANCES, readTreasury } from './faults/helpers/treasuryNeed.ts';

const TOKEN = 'jsonrpc-signer-token-0123';
const tmp = tempDir('ballast-rpc-signer-');
let sandbox: Sandbox;
let signer: AnvilInstance;
/** Kill the signer process when it is asked for its n-th transaction signature (counted from arming). */
let killOnSignature: number | undefined;
const methods: string[] = [];
let server: http.Server;
let turnkey: LocalTurnkey;

beforeAll(async () => {
  [sandbox, turnkey] = await Promise.all([startSandbox({ balances: NEED_BALANCES }), startLocalTurnkey()]);
  signer = await startAnvil({ chainId: chainOf(sandbox, 'alpha').def.chainId });
  server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      void (async () => {
        if (req.headers.authorization !== `Bearer ${TOKEN}`) return void res.writeHead(401).end();
        const { method } = JSON.parse(text) as { method: string };
        methods.push(method);
        if (method === 'eth_signTransaction' && killOnSignature !== undefined && --killOnSignature === 0) {
          process.kill(signer.pid, 'SIGKILL'); // the signer dies holding the request
          killOnSignature = undefined;
        }
        const answer = await fetch(signer.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
        res.writeHead(200, { 'content-type': 'application/json' }).end(await answer.text());
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
}, 120_000);
afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await turnkey?.close();
  await signer?.stop();
  await sandbox?.stop();
  tmp.cleanup();
}, 60_000);

it('a signer killed mid-cycle leaves nothing half-sent; the next cycle moves the need once', async () => {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const wallets = {
    treasury: {
      vm: 'evm',
      signer: { kind: 'remote', url, token: '${SIGNER_TOKEN}', timeoutMs: 1000 },
      address: sandbox.accounts.treasury.address,
    },
  };
  const { ballast } = ballastOnSandbox(sandbox, tmp.dir, { wallets }, { SIGNER_TOKEN: TOKEN });
  try {
    const before = await freshNeed(sandbox);
    const nonce = await treasuryNonce(sandbox, 'alpha');
    killOnSignature = 2; // the approve is signed and sent; the deposit's signature never comes back
    const report = await ballast.runCycle('once');
    expect(report.outcome).toBe('error');
    expect(report.attempts.map((a) => a.outcome)).toEqual(['origin_failed']);
    expect(report.attempts[0]!.error).toMatch(
      /^signing deposit failed: signer remote of wallet treasury: eth_signTransaction at http:\/\/127\.0\.0\.1:\d+ failed/,
    );
    expect(methods.filter((m) => m === 'eth_signTransaction')).toHaveLength(3); // approve, deposit, the deposit asked once more
    expect(await treasuryNonce(sandbox, 'alpha')).toBe(nonce + 1); // the approve only
    expect(await readTreasury(sandbox)).toEqual({ alpha: before.alpha, beta: before.beta });

    const failedAgain = await ballast.runCycle('once'); // the signer is still down
    expect(failedAgain.attempts.map((a) => a.outcome)).toEqual(['origin_failed']);
    expect(await treasuryNonce(sandbox, 'alpha')).toBe(nonce + 1);

    signer = await startAnvil({ chainId: chainOf(sandbox, 'alpha').def.chainId }); // the signer is back
    const moved = await ballast.runCycle('once');
    expect(
      moved.attempts.map((a) => a.outcome),
      moved.attempts[0]?.error,
    ).toEqual(['success']);
    const after = await readTreasury(sandbox);
    expect(before.alpha - after.alpha).toBe(NEED); // once, never twice
    const transfers = await listRecentTransfers(ballast.db, 10);
    // newest first: the deposit of the failed attempts was never signed, so never recorded or sent
    expect(transfers.map((t) => [t.status, t.txs.map((x) => `${x.stepId}:${x.status}`)])).toEqual([
      ['success', ['deposit:confirmed']],
      ['origin_failed', []],
      ['origin_failed', ['approve:confirmed']],
    ]);
  } finally {
    await ballast.close();
  }
}, 180_000);

it('a Turnkey wallet account signs the transfer; an activity that needs consensus is final for the attempt', async () => {
  turnkey.createPrivateKey('CURVE_SECP256K1', hexToBytes(sandbox.accounts.treasury.privateKey));
  const address = sandbox.accounts.treasury.address;
  const signerConfig = {
    kind: 'turnkey',
    organizationId: turnkey.organizationId,
    signWith: address,
    apiPublicKey: '${TURNKEY_API_PUBLIC_KEY}',
    apiPrivateKey: '${TURNKEY_API_PRIVATE_KEY}',
    baseUrl: turnkey.url,
    timeoutMs: 2000,
  };
  const env = { TURNKEY_API_PUBLIC_KEY: turnkey.apiKey.publicKey, TURNKEY_API_PRIVATE_KEY: turnkey.apiKey.privateKey };
  const { ballast, config } = ballastOnSandbox(
    sandbox,
    tmp.dir,
    { wallets: { treasury: { vm: 'evm', signer: signerConfig, address } } },
    env,
  );
  try {
    await checkRemoteSigners(config); // the account's public key is the configured address

    await freshNeed(sandbox);
    const nonce = await treasuryNonce(sandbox, 'alpha');
    turnkey.setFault({ kind: 'consensusNeeded' });
    const held = await ballast.runCycle('once');
    expect(held.attempts.map((a) => a.outcome)).toEqual(['origin_failed']);
    expect(held.attempts[0]!.error).toMatch(/signer turnkey of wallet treasury: .*ACTIVITY_STATUS_CONSENSUS_NEEDED/);
    expect(await treasuryNonce(sandbox, 'alpha')).toBe(nonce);

    turnkey.setFault(undefined);
    const before = await readTreasury(sandbox);
    const signs = turnkey.signCount(address);
    const moved = await ballast.runCycle('once');
    expect(
      moved.attempts.map((a) => a.outcome),
      moved.attempts[0]?.error,
    ).toEqual(['success']);
    expect(turnkey.signCount(address) - signs).toBe(2); // the approve and the deposit
    expect(before.alpha - (await readTreasury(sandbox)).alpha).toBe(NEED);
  } finally {
    await ballast.close();
  }
}, 180_000);
