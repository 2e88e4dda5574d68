/**
 * The commands a script calls answer in JSON with `--json` (`report`, `approve`, `reject`, `resume`, `policy`) on a real SQLite
 * store and an offline config, and every error under `--json` is one object `{error, code, exitCode}` on stdout,
 * whatever raised it (commander, a usage check, a store error, a refused sign-off); without `--json` the same error
 * is one `ballast: …` line on stderr. One case runs the real process; the others call main() in this process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApprovalRequest } from '../../packages/ballast/src/store/approvalRequests.ts';
import { startCycle } from '../../packages/ballast/src/store/cycles.ts';
import { openSqliteStore } from '../../packages/ballast/src/store/openStore.ts';
import { recordPlannedTransfers } from '../../packages/ballast/src/store/plans.ts';
import { recordWalletPause } from '../../packages/ballast/src/store/walletPauses.ts';
import { runCli, runCliInProcess } from './helpers/cli.ts';
import { keyFile } from './helpers/keyFile.ts';
import { offlineConfig } from './helpers/offlineConfig.ts';

const ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'; // the offline config's treasury
const tmp = mkdtempSync(path.join(tmpdir(), 'ballast-script-json-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const aliceKey = generatePrivateKey();
let config = '';
let requestIds: number[] = [];
let pauseId = 0;
let digest = '';

/** The offline config's reference `${BETA_RPC}`: nothing is called. */
const env = { BETA_RPC: 'http://127.0.0.1:9' };
/** `ballast <args> --config <config>` in this process. */
const cli = (...args: string[]) => runCliInProcess([...args, '--config', config], { env });
const json = (stdout: string): Record<string, unknown> => JSON.parse(stdout) as Record<string, unknown>;

beforeAll(async () => {
  const alice = privateKeyToAccount(aliceKey).address;
  ({ config } = await offlineConfig(tmp, 'cfg', (yaml) =>
    yaml.replace(
      '  maxFees: {totalBps: 30}\n',
      `  maxFees: {totalBps: 30}\n  approvals: {aboveUsd: "1", required: 1, approvers: {alice: "${alice}"}}\n`,
    ),
  ));
  const store = path.join(path.dirname(config), 'data/ballast.db');
  const db = openSqliteStore(store);
  try {
    const now = Date.now();
    const cycleId = await startCycle(db, { mode: 'once', startedAtMs: now });
    requestIds = [];
    for (const to of ['beta', 'alpha'] as const) {
      const from = to === 'beta' ? 'alpha' : 'beta';
      const [planId] = await recordPlannedTransfers(db, cycleId, [
        { asset: 'USDC', originChain: from, destinationChain: to, amountIn: 250_000_000n, reason: `${to} below min` },
      ]);
      const request = await createApprovalRequest(db, {
        cycleId,
        planId: planId!,
        asset: 'USDC',
        origin: { chain: from, wallet: 'treasury', currency: '0x2E983A1Ba5e8b38AAAeC4B440B9dDcFBf72E15d1' },
        destination: { chain: to, wallet: 'treasury', currency: '0x2E983A1Ba5e8b38AAAeC4B440B9dDcFBf72E15d1' },
        bound: {
          origin: { chainId: from === 'alpha' ? 31001 : 31002, address: ADDRESS },
          destination: { chainId: to === 'alpha' ? 31001 : 31002, address: ADDRESS },
        },
        amountIn: 250_000_000n,
        amountUsd: '250',
        maxFees: { totalBps: 30 },
        reason: `${to} below min`,
        required: 1,
        createdAtMs: now,
        expiresAtMs: now + 3_600_000,
      });
      requestIds.push(request.id);
    }
    pauseId = await recordWalletPause(db, {
      address: ADDRESS,
      stage: 'quote',
      code: 'BLOCKED_WALLET_ADDRESS',
      detail: 'screened',
      nowMs: now,
    });
  } finally {
    await db.close();
  }
  // The configured approval policy becomes the approved one, as an operator starts.
  const init = await cli('policy', 'init', '--by', 'ops', '--json');
  expect(init.code, init.stderr).toBe(0);
  digest = String(json(init.stdout).digest);
  expect(digest).toMatch(/^0x[0-9a-f]{64}$/);
}, 60_000);

describe('--json on the commands a script calls', () => {
  it('approve, reject, resume and report print one JSON document', async () => {
    const signed = await cli('approve', String(requestIds[0]), '--key-file', keyFile(tmp, 'alice.key', aliceKey), '--json');
    expect(signed.code, signed.stderr).toBe(0);
    expect(json(signed.stdout)).toEqual({ requestId: requestIds[0], approver: 'alice', approvers: ['alice'], required: 1, approved: true });

    const rejected = await cli('reject', String(requestIds[1]), '--reason', 'not this week', '--approver', 'alice', '--json');
    expect(rejected.code, rejected.stderr).toBe(0);
    expect(json(rejected.stdout)).toEqual({ requestId: requestIds[1], status: 'rejected', by: 'alice', reason: 'not this week' });

    const resumed = await cli('resume', '--wallet', 'treasury', '--note', 'cleared by Relay support', '--json');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(json(resumed.stdout)).toEqual({ wallet: 'treasury', walletPausesLifted: [pauseId] });

    const proposed = await cli('policy', 'propose', '--json');
    expect(proposed.code, proposed.stderr).toBe(0);
    expect(json(proposed.stdout)).toEqual({ digest: null, created: false, replaces: digest, changes: [] }); // the config is the approved policy

    const report = await cli('report', '--since', '1d', '--json');
    expect(report.code, report.stderr).toBe(0);
    const body = json(report.stdout) as { since: string; routes: unknown[]; approvals: { id: number; status: string; amountIn: string }[] };
    expect(Date.now() - Date.parse(body.since)).toBeGreaterThanOrEqual(86_400_000);
    expect(body.routes).toEqual([]);
    expect(body.approvals.map((a) => [a.id, a.status, a.amountIn])).toEqual([
      [requestIds[0], 'approved', '250000000'],
      [requestIds[1], 'rejected', '250000000'],
    ]);
  });

  it('prints every error as one JSON object on stdout under --json, and as one line on stderr without it', async () => {
    // A refused sign-off (the request is closed): exit 3.
    const refused = await cli('reject', String(requestIds[1]), '--reason', 'again', '--json');
    expect(refused.code).toBe(3);
    expect(json(refused.stdout)).toMatchObject({ code: 'REFUSED', exitCode: 3 });
    expect(String(json(refused.stdout).error)).toMatch(/^refused: not_pending: /);
    expect(refused.stderr).toBe('');
    // A store error keeps its own code.
    const missing = await cli('resume', '--transfer', '99', '--note', 'x', '--json');
    expect(missing.code).toBe(1);
    expect(json(missing.stdout)).toMatchObject({ code: 'STORE_NOT_FOUND', exitCode: 1 });
    // A usage error of the command, and one commander finds.
    const both = await cli('report', '--csv', '--json');
    expect(json(both.stdout)).toEqual({ error: 'give one of --csv and --json', code: 'USAGE', exitCode: 2 });
    const unknown = await cli('report', '--json', '--sinse', '1d');
    expect(unknown.code).toBe(2);
    expect(json(unknown.stdout)).toMatchObject({ code: 'commander.unknownOption', exitCode: 2 });
    expect(String(json(unknown.stdout).error)).toContain("unknown option '--sinse'");
    expect(unknown.stderr).toBe('');
    // The same refusal without --json: one line on stderr, nothing on stdout.
    const plain = await cli('reject', String(requestIds[1]), '--reason', 'again');
    expect(plain.code).toBe(3);
    expect(plain.stdout).toBe('');
    expect(plain.stderr).toMatch(/^ballast: refused: not_pending: .*\n$/);
  });

  it('does the same in a real process: an unknown command under --json', async () => {
    const r = await runCli(['plna', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({
      error: "unknown command 'plna'\n(Did you mean plan?)",
      code: 'commander.unknownCommand',
      exitCode: 2,
    });
    expect(r.stderr).toBe('');
  });
});
