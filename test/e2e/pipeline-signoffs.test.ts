/**
 * Approval requests end to end on real anvil chains (docs/approvals.md): a transfer above
 * `policy.approvals.aboveUsd` is recorded as awaiting approval and nothing is signed; one sign-off of two does
 * nothing; a forged signature and a key that is no approver's are refused by `ballast approve` and not stored;
 * sign-offs on a request that has since expired do nothing (it closes `expired` and a new request is recorded);
 * the second valid sign-off lets the next cycle move exactly the approved amount, and the request closes
 * `executed` with the transfer's id. A notification receiver (a real HTTP server) sees each request's `needed` and
 * its final outcome (`expired`, `executed`) once, signed.
 */
import { afterAll, afterEach, beforeEach, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import type { Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { getApprovalRequest, listApprovalRequests, recordSignOff } from '../../packages/ballast/src/store/approvalRequests.ts';
import { policyContentOf, policyText } from '../../packages/ballast/src/approvals/policyDoc.ts';
import { initPolicy } from '../../packages/ballast/src/store/approvalPolicies.ts';
import { signWithKey } from '../../packages/ballast/src/cli/approvalKey.ts';
import { sandboxEnv } from '../../packages/ballast/src/cli/sandboxEnv.ts';
import { flushNotifications } from '../../packages/ballast/src/notify/dispatcher.ts';
import { runCli, runCliInProcess } from './helpers/cli.ts';
import { keyFile } from './helpers/keyFile.ts';
import { closeReceivers, receiver, signedWith } from './helpers/notifyReceiver.ts';
import { ballastOnSandbox, sandboxPerTest, tempDir, treasuryNonce, usdcBalance } from './helpers/sandboxBallast.ts';

const sandboxes = sandboxPerTest();
let sandbox: Sandbox;
const tmp = tempDir('ballast-signoffs-');
beforeEach(async () => {
  sandbox = await sandboxes.start({});
});
afterAll(() => tmp.cleanup());
afterEach(closeReceivers);

const SECRET = 'e2e-signoffs-notify-secret-0123';

const HOUR_MS = 3_600_000;

it('waits for two valid, live sign-offs, then moves exactly the approved amount', async () => {
  const aliceKey = generatePrivateKey(); // EVM approver
  const bobSeed = ed25519.utils.randomSecretKey(); // Solana-style approver
  const bobPublic = ed25519.getPublicKey(bobSeed);
  const bobKeypair = JSON.stringify([...bobSeed, ...bobPublic]);
  const approvers = { alice: privateKeyToAccount(aliceKey).address, bob: base58.encode(bobPublic) };
  let offsetMs = 0;
  const hook = await receiver('ok');
  const { ballast, configFile, store } = ballastOnSandbox(
    sandbox,
    tmp.dir,
    {
      assets: {
        USDC: [
          { chain: 'alpha', currency: '${SANDBOX_USDC}', wallet: 'treasury', min: '40000', target: '50000', max: '60000' },
          { chain: 'beta', currency: '${SANDBOX_USDC}', wallet: 'treasury', min: '20000', target: '30000', max: '45000' },
        ],
      },
      policy: { approvals: { aboveUsd: '1', required: 2, approvers, expiresAfterSec: 3600 } },
      notify: { sinks: { ops: { kind: 'webhook', url: hook.url, secret: '${NOTIFY_SECRET}' } } },
    },
    { NOTIFY_SECRET: SECRET },
    { now: () => Date.now() + offsetMs },
  );
  sandboxes.closeAfter(() => ballast.close());
  const env = { ...sandboxEnv(sandbox, store), NOTIFY_SECRET: SECRET };
  // The forged sign-off runs `ballast approve` as a real process (exit 3); the other sign-offs, the reads and the late
  // reject call the same main() in this process.
  const cli = (...args: string[]) => runCli([...args, '--config', configFile], { env });
  const cliHere = (...args: string[]) => runCliInProcess([...args, '--config', configFile], { env });
  const nonce = () => treasuryNonce(sandbox, 'alpha');
  const nonceBefore = await nonce();
  // The configured approval policy is the approved one, as `ballast policy init` records it (test/e2e/pipeline-policy.test.ts).
  await initPolicy(ballast.db, { text: policyText(policyContentOf(ballast.ctx.config)!, null), by: 'ops', nowMs: Date.now() });

  // 1. A cycle two hours ago: the transfer is recorded as awaiting approval; nothing is signed; the cycle is ok.
  offsetMs = -2 * HOUR_MS;
  const first = await ballast.runCycle('once');
  expect(first.outcome).toBe('ok');
  expect(first.attempts.map((a) => a.outcome)).toEqual(['awaiting_approval']);
  const [stale] = await listApprovalRequests(ballast.db);
  expect(stale).toMatchObject({ status: 'pending', asset: 'USDC', amountIn: first.attempts[0]!.planned.amountIn, required: 2 });
  expect(stale!.expiresAtMs - stale!.createdAtMs).toBe(HOUR_MS);
  // Both approvers signed it while it was live; it expired an hour ago: those sign-offs do nothing now.
  for (const [approver, key] of [
    ['alice', aliceKey],
    ['bob', bobKeypair],
  ] as const) {
    const { signature } = await signWithKey(key, stale!.message);
    const result = await recordSignOff(ballast.db, {
      requestId: stale!.id,
      approver,
      signature,
      required: 2,
      nowMs: stale!.createdAtMs + 60_000,
    });
    expect(result.ok).toBe(true);
  }
  expect((await getApprovalRequest(ballast.db, stale!.id))!.status).toBe('approved');
  offsetMs = 0;
  const second = await ballast.runCycle('once');
  expect(second.attempts.map((a) => a.outcome)).toEqual(['awaiting_approval']);
  expect(await nonce()).toBe(nonceBefore);
  expect((await getApprovalRequest(ballast.db, stale!.id))!).toMatchObject({ status: 'expired', transferId: null });
  const [request] = await listApprovalRequests(ballast.db);
  expect(request!.id).not.toBe(stale!.id);
  expect(request!.status).toBe('pending');

  // `approvals show` prints exactly the text to sign.
  const shown = await cliHere('approvals', 'show', String(request!.id));
  expect(shown.code).toBe(0);
  expect(shown.stdout.trim()).toBe(request!.message);

  // 2. One sign-off of two does nothing.
  const alice = await cliHere('approve', String(request!.id), '--key-file', keyFile(tmp.dir, 'alice.key', aliceKey));
  expect(alice.stdout).toContain('sign-off by alice recorded (1 of 2');
  expect(alice.code).toBe(0);
  const third = await ballast.runCycle('once');
  expect(third.attempts.map((a) => a.outcome)).toEqual(['awaiting_approval']);
  expect(await nonce()).toBe(nonceBefore);

  // 3. A forged signature in bob's name, and a key that is no approver's, are refused and not stored.
  const forged = await signWithKey(JSON.stringify([...ed25519.utils.randomSecretKey(), ...new Uint8Array(32)]), request!.message);
  const forgery = await cli('approve', String(request!.id), '--signature', forged.signature, '--approver', 'bob');
  expect(forgery.code).toBe(3);
  expect(forgery.stderr).toMatch(/refused: wrong_key/);
  const stranger = await cliHere('approve', String(request!.id), '--key-file', keyFile(tmp.dir, 'stranger.key', generatePrivateKey()));
  expect(stranger.code).toBe(3);
  expect(stranger.stderr).toMatch(/refused: unknown_approver/);
  expect((await getApprovalRequest(ballast.db, request!.id))!.signOffs.map((s) => s.approver)).toEqual(['alice']);
  const again = await ballast.runCycle('once');
  expect(again.attempts.map((a) => a.outcome)).toEqual(['awaiting_approval']);
  expect(await nonce()).toBe(nonceBefore);

  // 4. Bob's valid sign-off reaches the quorum: the next cycle moves exactly the approved amount.
  const bob = await cliHere('approve', String(request!.id), '--key-file', keyFile(tmp.dir, 'bob.json', bobKeypair));
  expect(bob.code).toBe(0);
  expect(bob.stdout).toContain('(2 of 2: alice, bob); approved');
  const alphaBefore = await usdcBalance(sandbox, 'alpha');
  const moved = await ballast.runCycle('once');
  expect(moved.outcome).toBe('ok');
  expect(moved.attempts.map((a) => a.outcome)).toEqual(['success']);
  const [transfer] = await listRecentTransfers(ballast.db, 10);
  expect(transfer!.amountIn).toBe(request!.amountIn);
  expect(alphaBefore - (await usdcBalance(sandbox, 'alpha'))).toBe(request!.amountIn);
  const executed = await getApprovalRequest(ballast.db, request!.id);
  expect(executed).toMatchObject({ status: 'executed', transferId: transfer!.id });

  // A closed request can be neither signed nor rejected any more.
  const late = await cliHere('reject', String(request!.id), '--reason', 'too late', '--approver', 'alice');
  expect(late.code).toBe(3);
  expect(late.stderr).toMatch(/refused: not_pending: approval request \d+ is already executed/);

  // History notes who approved the transfer; the report lists both requests and how each closed.
  const history = await cliHere('history', '--json');
  expect(history.code).toBe(0);
  const [item] = JSON.parse(history.stdout) as { id: number; notes: string[] }[];
  expect(item!.id).toBe(transfer!.id);
  expect(item!.notes).toContainEqual(expect.stringMatching(new RegExp(`^approved by alice \\S+, bob \\S+ \\(request ${request!.id}\\)$`)));
  const report = await cliHere('report', '--since', '1d');
  expect(report.code).toBe(0);
  expect(report.stdout).toContain('approval requests: 2');
  expect(report.stdout).toMatch(
    new RegExp(`  ${request!.id} USDC alpha → beta .*signed by alice .*, bob .*; executed at .*: transfer ${transfer!.id}`),
  );

  // The list shows who approved what and when.
  const listed = await cliHere('approvals', 'list', '--all', '--json');
  expect(listed.code).toBe(0);
  const rows = JSON.parse(listed.stdout) as { id: number; status: string; signOffs: { approver: string }[] }[];
  expect(rows.map((r) => [r.id, r.status, r.signOffs.map((s) => s.approver)])).toEqual([
    [request!.id, 'executed', ['alice', 'bob']],
    [stale!.id, 'expired', ['alice', 'bob']],
  ]);

  // The receiver saw each request's `needed` and its final outcome once (and the quorum `ballast approve` reached), signed.
  await flushNotifications(ballast.notifyDispatch!, 10_000);
  const events = hook.got.map(({ headers, body }) => {
    expect(signedWith(SECRET, { headers, body })).toBe(true);
    const parsed = JSON.parse(body) as { event: string; payload: { requestId: number } };
    return `${parsed.event} ${parsed.payload.requestId}`;
  });
  expect(events.sort()).toEqual(
    [
      `approval_needed ${stale!.id}`,
      `approval_expired ${stale!.id}`, // its sign-offs were stored directly above, not through `ballast approve`
      `approval_needed ${request!.id}`,
      `approval_granted ${request!.id}`,
      `approval_executed ${request!.id}`,
    ].sort(),
  );
}, 120_000);
