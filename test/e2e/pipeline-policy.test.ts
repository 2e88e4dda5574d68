/**
 * The approval policy end to end on real anvil chains and a PostgreSQL store (docs/approvals.md "The approval
 * policy"; SQLite when `BALLAST_TEST_ENGINES` leaves PostgreSQL out), driven through the CLI as operators and
 * approvers do:
 *
 * 1. Before `ballast policy init` nothing above the threshold moves and no request is recorded.
 * 2. After it, the sign-off flow works on this store: the request, two sign-offs by `ballast approve`, then exactly
 *    the approved amount moves and the request closes `executed`.
 * 3. Whoever edits the config adds an approver of their own and raises the threshold: nothing above the approved
 *    threshold moves, no request is recorded, and the new approver cannot approve the change; with a quorum of the
 *    previous approvers the change takes effect and the transfer moves without sign-offs.
 */
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { sandboxEnv } from '../../packages/ballast/src/cli/sandboxEnv.ts';
import { listApprovalRequests } from '../../packages/ballast/src/store/approvalRequests.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { createDatabase, startPostgres, type PostgresServer } from '../helpers/postgres.ts';
import { storeEngineNames } from '../helpers/storeEngines.ts';
import { runCli, runCliInProcess } from './helpers/cli.ts';
import { keyFile } from './helpers/keyFile.ts';
import { openBallastOnSandbox, tempDir, treasuryNonce } from './helpers/sandboxBallast.ts';
import { freshNeed, NEED, NEED_BALANCES, readTreasury } from './faults/helpers/treasuryNeed.ts';

const tmp = tempDir('ballast-policy-');
let sandbox: Sandbox;
let server: PostgresServer | undefined;
let store: string;
beforeAll(async () => {
  const usePostgres = storeEngineNames().includes('postgres');
  [sandbox, server] = await Promise.all([startSandbox({ balances: NEED_BALANCES }), usePostgres ? startPostgres() : undefined]);
  store = server ? await createDatabase(server.url, 'policy_e2e') : path.join(tmp.dir, 'ballast.db');
}, 120_000);
afterAll(async () => {
  await sandbox?.stop();
  await server?.stop();
  tmp.cleanup();
}, 60_000);

it('changes only with a quorum of the previous approvers; sign-offs move exactly the approved amount', async () => {
  const bobSeed = ed25519.utils.randomSecretKey();
  const bobPublic = ed25519.getPublicKey(bobSeed);
  const [aliceKey, malloryKey] = [generatePrivateKey(), generatePrivateKey()];
  const keys = {
    alice: keyFile(tmp.dir, 'alice.key', aliceKey),
    bob: keyFile(tmp.dir, 'bob.json', JSON.stringify([...bobSeed, ...bobPublic])),
    mallory: keyFile(tmp.dir, 'mallory.key', malloryKey),
  };
  const mallory = privateKeyToAccount(malloryKey).address;
  const approvers = { alice: privateKeyToAccount(aliceKey).address, bob: base58.encode(bobPublic) };
  const approvals = { aboveUsd: '1', required: 2, approvers, expiresAfterSec: 3600 };
  const open = (policy: Record<string, unknown>) => openBallastOnSandbox(sandbox, tmp.dir, store, { policy: { approvals: policy } });
  const env = sandboxEnv(sandbox, store);
  const cliWith =
    (configFile: string) =>
    (...args: string[]) =>
      runCli([...args, '--config', configFile], { env, timeoutMs: 60_000 });
  // The refused approver runs as a real process (exit 3); the other commands call the same main() in this process.
  const hereWith =
    (configFile: string) =>
    (...args: string[]) =>
      runCliInProcess([...args, '--config', configFile], { env });
  await freshNeed(sandbox);

  // 1. Not bootstrapped: the transfer waits with the line that says how; nothing is recorded or signed.
  const a = await open(approvals);
  const cliHere = hereWith(a.configFile);
  const nonce0 = await treasuryNonce(sandbox, 'alpha');
  const waiting = await a.ballast.runCycle('once');
  expect(waiting.attempts.map((t) => t.outcome)).toEqual(['awaiting_approval']);
  expect(waiting.attempts[0]!.error).toMatch(/no approval policy has been approved yet.*ballast policy init/);
  expect(await listApprovalRequests(a.ballast.db, { all: true })).toEqual([]);
  expect(await treasuryNonce(sandbox, 'alpha')).toBe(nonce0);

  // 2. Bootstrapped; the request, two sign-offs through the CLI, then exactly the approved amount moves.
  const init = await cliHere('policy', 'init', '--by', 'ops');
  expect(init.code, init.stderr).toBe(0);
  const first = /approval policy (0x[0-9a-f]{64}) recorded/.exec(init.stdout)![1]!;
  expect((await cliHere('policy', 'init')).code).toBe(3); // once only
  expect((await a.ballast.runCycle('once')).attempts.map((t) => t.outcome)).toEqual(['awaiting_approval']);
  const [request] = await listApprovalRequests(a.ballast.db);
  for (const who of ['alice', 'bob'] as const) {
    const signed = await cliHere('approve', String(request!.id), '--key-file', keys[who]);
    expect(signed.code, signed.stderr).toBe(0);
  }
  const before = await readTreasury(sandbox);
  const moved = await a.ballast.runCycle('once');
  expect(moved.attempts.map((t) => t.outcome)).toEqual(['success']);
  expect(before.alpha - (await readTreasury(sandbox)).alpha).toBe(request!.amountIn);
  const [transfer] = await listRecentTransfers(a.ballast.db, 10);
  expect((await listApprovalRequests(a.ballast.db, { all: true }))[0]).toMatchObject({ status: 'executed', transferId: transfer!.id });
  await a.ballast.close();

  // 3. The config names mallory an approver and raises the threshold: nothing moves above the approved one.
  await freshNeed(sandbox);
  const changed = { ...approvals, aboveUsd: '100000000', required: 1, approvers: { ...approvers, mallory: mallory } };
  const b = await open(changed);
  const cliB = cliWith(b.configFile);
  const cliBHere = hereWith(b.configFile);
  const nonce1 = await treasuryNonce(sandbox, 'alpha');
  const held = await b.ballast.runCycle('once');
  expect(held.attempts.map((t) => t.outcome)).toEqual(['awaiting_approval']);
  expect(held.attempts[0]!.error).toContain(`approved policy ${first} applies`);
  expect(b.logLines.join('')).toContain("the config's approval policy is not the approved one");
  expect((await listApprovalRequests(b.ballast.db)).length).toBe(0);
  expect(await treasuryNonce(sandbox, 'alpha')).toBe(nonce1);

  const proposed = await cliBHere('policy', 'propose', '--by', 'mallory');
  expect(proposed.code, proposed.stderr).toBe(0);
  expect(proposed.stdout).toContain(`approver added: mallory ${mallory}`);
  expect(proposed.stdout).toContain('aboveUsd: "1" → "100000000"');
  const digest = /proposal (0x[0-9a-f]{64}) recorded: replaces (0x[0-9a-f]{64})/.exec(proposed.stdout)!;
  expect(digest[2]).toBe(first);
  const byMallory = await cliB('policy', 'approve', digest[1]!, '--key-file', keys.mallory);
  expect(byMallory.code).toBe(3);
  expect(byMallory.stderr).toMatch(/refused: unknown_approver/);
  const byAlice = await cliBHere('policy', 'approve', digest[1]!, '--key-file', keys.alice);
  expect(byAlice.stdout).toContain('(1 of 2: alice)');
  expect((await b.ballast.runCycle('once')).attempts.map((t) => t.outcome)).toEqual(['awaiting_approval']);
  expect(await treasuryNonce(sandbox, 'alpha')).toBe(nonce1);

  // With bob's signature the quorum of the previous approvers is reached: the change applies.
  const byBob = await cliBHere('policy', 'approve', digest[1]!, '--key-file', keys.bob);
  expect(byBob.stdout).toContain('(2 of 2: alice, bob); approved');
  const status = await cliBHere('policy', 'status');
  expect(status.stdout).toContain(`approved policy: ${digest[1]} (#2, approved by alice, bob`);
  expect(status.stdout).toContain('config: the approved policy');
  const start = await readTreasury(sandbox);
  const free = await b.ballast.runCycle('once');
  expect(free.attempts.map((t) => t.outcome)).toEqual(['success']);
  expect(start.alpha - (await readTreasury(sandbox)).alpha).toBe(NEED);
  expect((await listApprovalRequests(b.ballast.db)).length).toBe(0);
  await b.ballast.close();
}, 180_000);
