/**
 * Keys off the host (docs/keys.md): the treasury's EVM key lives only in a local AWS KMS endpoint (the sandbox's
 * implementation of the KMS JSON 1.1 protocol), and Ballast signs through the real `@aws-sdk/client-kms` client.
 *
 * - A transfer signed through KMS (approve and deposit) moves the need once; KMS returns high-s signatures about
 *   half of the time, which must be normalized to be valid on chain.
 * - A tampered answer (a signature by another key, a corrupted one) is refused locally and nothing is broadcast; a
 *   refusal by the key's policy is final for the attempt and named; once the service behaves, the next cycle
 *   moves the need once.
 * - A configured address that is not the key's stops the command at start (exit 2, one line).
 */
import { hexToBytes } from 'viem';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startLocalKms, type LocalKms } from '../../packages/sandbox/src/kms/kmsServer.ts';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { sandboxEnv } from '../../packages/ballast/src/cli/sandboxEnv.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { runCli } from './helpers/cli.ts';
import { ballastOnSandbox, tempDir, treasuryNonce } from './helpers/sandboxBallast.ts';
import { freshNeed, NEED, NEED_BALANCES, readTreasury } from './faults/helpers/treasuryNeed.ts';

const tmp = tempDir('ballast-kms-');
let sandbox: Sandbox;
let kms: LocalKms;
const AWS_ENV = { AWS_ACCESS_KEY_ID: 'AKIDLOCALKMS', AWS_SECRET_ACCESS_KEY: 'local-kms-secret', AWS_REGION: 'us-east-1' };

beforeAll(async () => {
  Object.assign(process.env, AWS_ENV); // the SDK's default provider chain reads them
  [sandbox, kms] = await Promise.all([startSandbox({ balances: NEED_BALANCES }), startLocalKms()]);
}, 120_000);
afterAll(async () => {
  await kms?.close();
  await sandbox?.stop();
  tmp.cleanup();
}, 60_000);

/** The treasury wallet with its key in KMS (the sandbox's funded key, imported), at `address`. */
function kmsWallet(keyId: string, address: string) {
  return { treasury: { vm: 'evm', signer: { kind: 'awsKms', keyId, region: kms.region, endpoint: kms.url, timeoutMs: 2000 }, address } };
}

it('signs approve and deposit through KMS; refuses tampered answers and policy refusals before anything is broadcast', async () => {
  const keyId = kms.createKey('ECC_SECG_P256K1', hexToBytes(sandbox.accounts.treasury.privateKey));
  const { ballast } = ballastOnSandbox(sandbox, tmp.dir, { wallets: kmsWallet(keyId, sandbox.accounts.treasury.address) });
  try {
    for (const fault of [{ kind: 'wrongKey' }, { kind: 'corrupt' }, { kind: 'deny', reason: 'kms:Sign denied by key policy' }] as const) {
      await freshNeed(sandbox);
      const nonce = await treasuryNonce(sandbox, 'alpha');
      kms.setFault(keyId, fault);
      const report = await ballast.runCycle('once');
      expect(report.outcome, fault.kind).toBe('error');
      expect(report.attempts.map((a) => a.outcome)).toEqual(['origin_failed']);
      const error = report.attempts[0]!.error ?? '';
      expect(error).toMatch(
        fault.kind === 'deny'
          ? /signer awsKms of wallet treasury: Sign on key .* refused: AccessDeniedException/
          : /signer awsKms of wallet treasury: the signature does not verify/,
      );
      expect(await treasuryNonce(sandbox, 'alpha')).toBe(nonce); // nothing broadcast
    }
    kms.setFault(keyId, undefined);
    const before = await freshNeed(sandbox);
    const signs = kms.signCount(keyId);
    const moved = await ballast.runCycle('once');
    expect(
      moved.attempts.map((a) => a.outcome),
      moved.attempts[0]?.error,
    ).toEqual(['success']);
    expect(kms.signCount(keyId) - signs).toBe(2); // the approve and the deposit
    expect(before.alpha - (await readTreasury(sandbox)).alpha).toBe(NEED);
    const transfers = await listRecentTransfers(ballast.db, 10);
    expect(transfers.filter((t) => t.status === 'success')).toHaveLength(1);
  } finally {
    await ballast.close();
  }
}, 180_000);

it('stops at start when the configured address is not the key the service holds', async () => {
  const keyId = kms.createKey('ECC_SECG_P256K1'); // a fresh key: not the treasury's
  const { ballast, configFile, store } = ballastOnSandbox(sandbox, tmp.dir, {
    wallets: kmsWallet(keyId, sandbox.accounts.treasury.address),
  });
  await ballast.close(); // only its config is used: the command below must refuse to start
  const run = await runCli(['run', '--once', '--config', configFile], { env: { ...sandboxEnv(sandbox, store), ...AWS_ENV } });
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(
    new RegExp(
      `wallets.treasury: the key's address is 0x[0-9a-fA-F]{40}, wallets.treasury.address is ${sandbox.accounts.treasury.address}`,
    ),
  );
  expect(kms.signCount(keyId)).toBe(0);
}, 60_000);
