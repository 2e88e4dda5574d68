/**
 * Relay address screening against the sandbox (https://docs.relay.link/security/transaction-screening):
 * - quote time: a wallet on the sandbox blocklist gets 400 BLOCKED_WALLET_ADDRESS; nothing is signed, the quote is
 *   asked once, every route of the wallet is paused (metric and decision), until `ballast resume --wallet`;
 * - fill time: the request fails with failReason BLOCKED_WALLET; the transfer's history says the deposit is in
 *   compliance review, the wallet is paused, and `ballast resume --transfer` lifts both pauses.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../../packages/ballast/src/cli/sandboxEnv.ts';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { runCli, runCliInProcess } from './helpers/cli.ts';
import { ballastOnSandbox, tempDir, treasuryNonce } from './helpers/sandboxBallast.ts';

const tmp = tempDir('ballast-screening-');
let sandbox: Sandbox | null = null;

afterEach(async () => {
  await sandbox?.stop();
  sandbox = null;
});
afterAll(() => tmp.cleanup());

describe('address screening', () => {
  it('a quote refused with BLOCKED_WALLET_ADDRESS pauses every route of the wallet until `ballast resume --wallet`', async () => {
    sandbox = await startSandbox({ faults: { fillDelayMs: 0 } });
    const { ballast, configFile, store } = ballastOnSandbox(sandbox, tmp.dir);
    try {
      const treasury = ballast.ctx.wallets.get('treasury')!; // the demo config's wallet
      sandbox.setFaults({ blockedWallets: [treasury.address.toLowerCase()] });
      const nonce = await treasuryNonce(sandbox, 'alpha');
      const quotesBefore = await quoteRequests(ballast);

      const first = await ballast.runCycle('once');
      expect(first.attempts.map((a) => a.outcome)).toEqual(['quote_error']);
      expect(first.attempts[0]!.error).toContain('refused by Relay address screening (BLOCKED_WALLET_ADDRESS');
      expect(first.attempts[0]!.error).toContain('every route of wallet(s) treasury is paused');
      expect((await quoteRequests(ballast)) - quotesBefore).toBe(1); // final: asked once, never retried

      const second = await ballast.runCycle('once');
      expect(second.plan.transfers).toHaveLength(0);
      const paused = second.plan.decisions.filter((d) => d.kind === 'route_paused');
      expect(paused.length).toBeGreaterThan(0);
      expect(paused[0]!.detail).toContain('wallet treasury is paused by Relay address screening');
      expect((await quoteRequests(ballast)) - quotesBefore).toBe(1); // the paused wallet is not quoted again
      expect(await treasuryNonce(sandbox, 'alpha')).toBe(nonce);
      const metrics = await ballast.metrics.registry.metrics();
      expect(metrics).toMatch(/ballast_wallet_screening_paused\{wallet="treasury"\} 1/);
      expect(metrics).toMatch(/ballast_wallet_screening_blocks_total\{wallet="treasury",stage="quote"\} 1/);

      const env = sandboxEnv(sandbox, store);
      const resumed = await runCli(['resume', '--config', configFile, '--wallet', 'treasury', '--note', 'cleared by Relay support'], {
        env,
      });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stdout).toContain('wallet treasury: 1 screening pause(s) resolved');
      sandbox.setFaults({ blockedWallets: [] });
      const after = await ballast.runCycle('once');
      expect(after.plan.decisions.some((d) => d.kind === 'route_paused')).toBe(false);
      expect(after.attempts.map((a) => a.outcome)).toEqual(['success']);
      expect(await ballast.metrics.registry.metrics()).not.toMatch(/ballast_wallet_screening_paused\{/);
    } finally {
      await ballast.close();
    }
  });

  it('a fill blocked with failReason BLOCKED_WALLET says the funds are in compliance review and pauses the wallet', async () => {
    sandbox = await startSandbox({ faults: { failure: true, failReason: 'BLOCKED_WALLET', fillDelayMs: 0 } });
    const { ballast, configFile, store } = ballastOnSandbox(sandbox, tmp.dir);
    try {
      const first = await ballast.runCycle('once');
      expect(first.attempts.map((a) => a.outcome)).toEqual(['failure']);
      const [failed] = await listRecentTransfers(ballast.db, 10);
      expect(failed!.status).toBe('failure');
      expect(failed!.events.at(-1)!.detail).toContain('held for Relay compliance review');

      const second = await ballast.runCycle('once');
      expect(second.plan.transfers).toHaveLength(0);
      expect(await ballast.metrics.registry.metrics()).toMatch(/ballast_wallet_screening_paused\{wallet="treasury"\} 1/);

      const env = sandboxEnv(sandbox, store);
      const resumed = await runCliInProcess(
        // main(), in process; the wallet's resume above is a real process
        ['resume', '--config', configFile, '--transfer', String(failed!.id), '--note', 'settled with Relay support'],
        { env },
      );
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stdout).toContain('pause(s) lifted');
      sandbox.setFaults({ failure: false });
      const after = await ballast.runCycle('once');
      expect(after.plan.decisions.some((d) => d.kind === 'route_paused')).toBe(false);
      expect(after.attempts.map((a) => a.outcome)).toEqual(['success']);
    } finally {
      await ballast.close();
    }
  });
});

/** POST /quote/v2 requests Ballast sent so far (its own HTTP metric). */
async function quoteRequests(ballast: {
  metrics: { relayHttpRequestsTotal: { get(): Promise<{ values: { labels: Record<string, unknown>; value: number }[] }> } };
}): Promise<number> {
  const m = await ballast.metrics.relayHttpRequestsTotal.get();
  return m.values.filter((v) => v.labels.endpoint === 'POST /quote/v2').reduce((s, v) => s + v.value, 0);
}
