/**
 * The main job end to end on real anvil chains: a deficit on beta is closed from alpha's surplus, the transfer
 * is recorded with its transactions and state history, and a slow fill is never repeated by the next cycle.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { exitCodeForReport } from '../../packages/ballast/src/cycle/runCycle.ts';
import { ballastOnSandbox, tempDir, usdcBalance } from './helpers/sandboxBallast.ts';
import { trackingClock } from './trackingClock.ts';

const USDC = 1_000_000n; // 6 decimals
const tmp = tempDir('ballast-transfer-');
let sandbox: Sandbox | null = null;

afterEach(async () => {
  await sandbox?.stop();
  sandbox = null;
});
afterAll(() => tmp.cleanup());

describe('rebalancing cycle', () => {
  it('closes a deficit from a surplus and records the transfer with its tx hashes', async () => {
    sandbox = await startSandbox({});
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir);
    try {
      const alphaBefore = await usdcBalance(sandbox, 'alpha');
      const betaBefore = await usdcBalance(sandbox, 'beta');
      expect([alphaBefore, betaBefore]).toEqual([90_000n * USDC, 10_000n * USDC]);

      // The API starts with a burst of 429s: the client backs off (retry-after: 1) and the cycle still completes.
      sandbox.setFaults({ httpErrors: { status: 429, count: 2 } });
      const report = await ballast.runCycle('once');
      expect(report.outcome).toBe('ok');
      expect(report.plan.transfers).toHaveLength(1);
      const attempt = report.attempts[0]!;
      expect(attempt.outcome).toBe('success');
      expect(attempt.planned.amountIn).toBe(20_000n * USDC); // beta up to its 30000 target

      const alphaAfter = await usdcBalance(sandbox, 'alpha');
      const betaAfter = await usdcBalance(sandbox, 'beta');
      expect(alphaBefore - alphaAfter).toBe(20_000n * USDC);
      const minOut = BigInt(attempt.quote!.protocol!.v2!.orderData.output.payments[0]!.minimumAmount);
      expect(betaAfter - betaBefore >= minOut).toBe(true);
      expect(minOut >= attempt.minOutRequired!).toBe(true);

      const [transfer, ...others] = await listRecentTransfers(ballast.db, 10);
      expect(others).toHaveLength(0);
      expect(transfer!.status).toBe('success');
      expect(transfer!.relayStatus).toBe('success');
      expect(transfer!.amountIn).toBe(20_000n * USDC);
      expect(transfer!.txs.map((t) => t.stepId)).toEqual(['approve', 'deposit']);
      expect(transfer!.outTxHashes.length).toBeGreaterThan(0);
      const alpha = sandbox.chains.find((c) => c.def.slug === 'alpha')!;
      for (const tx of transfer!.txs) {
        const receipt = await alpha.publicClient.getTransactionReceipt({ hash: tx.txHash as `0x${string}` });
        expect(receipt.status).toBe('success');
        expect(receipt.from.toLowerCase()).toBe(sandbox.accounts.treasury.address.toLowerCase());
      }
      const beta = sandbox.chains.find((c) => c.def.slug === 'beta')!;
      const fill = await beta.publicClient.getTransactionReceipt({ hash: transfer!.outTxHashes[0] as `0x${string}` });
      expect(fill.status).toBe('success');
      expect(transfer!.events.map((e) => e.toStatus)).toEqual(['prepared', 'broadcast', 'deposited', 'success']);

      const metrics = await ballast.metrics.registry.metrics();
      expect(metrics).toMatch(/ballast_transfers_total\{[^}]*outcome="success"[^}]*\} 1/);
      expect(metrics).toMatch(/ballast_cycles_total\{outcome="ok"\} 1/);
      expect(metrics).toMatch(/ballast_relay_http_requests_total\{[^}]*status="429"[^}]*\} 2/);

      // The next cycle finds beta in band: nothing to move, nothing signed.
      const second = await ballast.runCycle('once');
      expect(second.outcome).toBe('ok');
      expect(second.plan.transfers).toHaveLength(0);
      expect(await listRecentTransfers(ballast.db, 10)).toHaveLength(1);
    } finally {
      await ballast.close();
    }
  });

  it('records a refunded transfer, gets the deposit back, and exits with an error', async () => {
    sandbox = await startSandbox({ faults: { refund: true } });
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir);
    try {
      const alphaBefore = await usdcBalance(sandbox, 'alpha');
      const report = await ballast.runCycle('once');
      expect(report.outcome).toBe('error');
      expect(report.attempts[0]!.outcome).toBe('refund');
      const [transfer] = await listRecentTransfers(ballast.db, 10);
      expect(transfer!.status).toBe('refund');
      expect(transfer!.events.map((e) => e.toStatus)).toEqual(['prepared', 'broadcast', 'deposited', 'refund']);
      // the reason the status gave is kept in the history (failReason UNKNOWN: the sandbox's default)
      expect(transfer!.events.at(-1)!.detail).toContain('failReason UNKNOWN');
      expect(await usdcBalance(sandbox, 'alpha')).toBe(alphaBefore); // the solver returned the deposit
      expect(await usdcBalance(sandbox, 'beta')).toBe(10_000n * USDC);
    } finally {
      await ballast.close();
    }
  });

  it('moves a native ETH surplus with depositNative, within the asset’s own transfer limits', async () => {
    sandbox = await startSandbox({
      balances: {
        alpha: { treasury: { usdc: '50000', eth: '50' }, solver: { usdc: '1000000', eth: '100' } },
        beta: { treasury: { usdc: '30000', eth: '5' }, solver: { usdc: '1000000', eth: '100' } },
      },
    });
    const zero = '0x0000000000000000000000000000000000000000';
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, {
      assets: {
        ETH: [
          { chain: 'alpha', currency: zero, wallet: 'treasury', min: '10', target: '20', max: '30' },
          { chain: 'beta', currency: zero, wallet: 'treasury', min: '10', target: '20', max: '30' },
        ],
      },
      policy: { transferLimits: { ETH: { minTransfer: '0.1', maxTransfer: '100' } } },
    });
    const ether = 10n ** 18n;
    const alpha = sandbox.chains.find((c) => c.def.slug === 'alpha')!;
    const beta = sandbox.chains.find((c) => c.def.slug === 'beta')!;
    const treasury = sandbox.accounts.treasury.address;
    try {
      const report = await ballast.runCycle('once');
      expect(report.outcome).toBe('ok');
      const attempt = report.attempts[0]!;
      expect(attempt.planned.amountIn).toBe(13n * ether); // beta 5 → its refill point, min + 40 % of the band: 18
      expect(attempt.outcome).toBe('success');
      const [transfer] = await listRecentTransfers(ballast.db, 10);
      expect(transfer!.txs.map((t) => t.stepId)).toEqual(['deposit']); // no approval for native value
      const deposit = await alpha.publicClient.getTransaction({ hash: transfer!.txs[0]!.txHash as `0x${string}` });
      expect(deposit.value).toBe(13n * ether);
      expect(deposit.input.slice(0, 10)).toBe('0x49290c1c'); // depositNative
      const betaBalance = await beta.publicClient.getBalance({ address: treasury });
      expect(betaBalance - 5n * ether >= transfer!.minOut).toBe(true);
      expect((await alpha.publicClient.getBalance({ address: treasury })) < 37n * ether).toBe(true); // 13 ETH + gas left
    } finally {
      await ballast.close();
    }
  });

  it('sends the API key as x-api-key and keeps it out of the store and the logs', async () => {
    const key = 'sk-sandbox-4f1c9e';
    sandbox = await startSandbox({ apiKey: key });
    const wrong = ballastOnSandbox(sandbox, tmp.dir, { relay: { apiKey: '${RELAY_API_KEY}' } }, { RELAY_API_KEY: 'sk-wrong' });
    try {
      const refused = await wrong.ballast.runCycle('once');
      expect(refused.attempts[0]!.outcome).toBe('quote_error');
      expect(refused.attempts[0]!.error).toContain('RELAY_HTTP_401');
      expect(exitCodeForReport(refused)).toBe(2); // a configuration error: fix relay.apiKey
    } finally {
      await wrong.ballast.close();
    }
    const right = ballastOnSandbox(sandbox, tmp.dir, { relay: { apiKey: '${RELAY_API_KEY}' } }, { RELAY_API_KEY: key });
    try {
      const report = await right.ballast.runCycle('once');
      expect(report.attempts[0]!.outcome).toBe('success');
      const dump = (await right.ballast.db.all<object>('SELECT request_json, raw_json FROM quotes')).map((r) => JSON.stringify(r)).join('');
      expect(dump.length).toBeGreaterThan(1000);
      expect(dump).not.toContain(key);
      expect(right.logLines.join('').length).toBeGreaterThan(100);
      expect(right.logLines.join('')).not.toContain(key);
    } finally {
      await right.ballast.close();
    }
  });

  it("fits a transfer to the solver's liquidity on its destination (GET /chains/liquidity) instead of sending what it would refund", async () => {
    sandbox = await startSandbox({
      balances: {
        alpha: { treasury: { usdc: '90000', eth: '10' }, solver: { usdc: '1000000', eth: '100' } },
        beta: { treasury: { usdc: '10000', eth: '10' }, solver: { usdc: '12000', eth: '100' } }, // the need is 40000
      },
    });
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir);
    try {
      const report = await ballast.runCycle('once');
      expect(
        report.attempts.map((a) => a.outcome),
        report.attempts[0]?.error,
      ).toEqual(['success']);
      expect(report.plan.transfers.map((t) => t.amountIn)).toEqual([12_000n * USDC]);
      expect(report.plan.decisions.find((d) => d.kind === 'solver_liquidity')?.detail).toMatch(/solver holds 12000 USDC on beta/);
      expect(await usdcBalance(sandbox, 'alpha')).toBe(78_000n * USDC); // what the solver could fill, once
      const rows = await ballast.db.all<{ kind: string }>("SELECT kind FROM plan_decisions WHERE kind = 'solver_liquidity'");
      expect(rows).toHaveLength(1);
    } finally {
      await ballast.close();
    }
  });

  it('does not repeat a transfer whose fill is slow; the next cycle closes it', async () => {
    // Tracking gives up at its first status read (the clock moves past its 10 s); the fill lands 5 s after the
    // deposit, leaving cycle 2 a wide window to see it pending.
    sandbox = await startSandbox({ faults: { fillDelayMs: 5_000 } });
    const clock = trackingClock();
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, { tracking: { pollMs: 200, timeoutSec: 10 } }, {}, { now: clock.now });
    try {
      void clock.timeOutAtNextStatusRead(ballast.relay, 10_000);
      const first = await ballast.runCycle('once');
      expect(clock.aheadMs).toBe(10_000);
      expect(first.attempts[0]!.outcome).toBe('in_flight');
      expect((await listRecentTransfers(ballast.db, 10)).map((t) => t.status)).toEqual(['deposited']);

      const second = await ballast.runCycle('once');
      expect(second.outcome).toBe('ok');
      expect(second.plan.transfers).toHaveLength(0);
      expect(second.plan.decisions.map((d) => d.kind)).toContain('in_flight_credited');
      expect(await listRecentTransfers(ballast.db, 10)).toHaveLength(1);

      // Wait until the sandbox reports the delayed fill final (the balance moves a little before the status
      // does), then a cycle closes the transfer and still plans nothing.
      const requestId = (await listRecentTransfers(ballast.db, 1))[0]!.requestId!;
      const status = async () =>
        ((await (await fetch(`${sandbox!.apiUrl}/intents/status/v3?requestId=${requestId}`)).json()) as { status: string }).status;
      for (let i = 0; i < 160 && (await status()) !== 'success'; i++) await new Promise((r) => setTimeout(r, 250));
      expect(await status()).toBe('success');
      const third = await ballast.runCycle('once');
      expect(third.plan.transfers).toHaveLength(0);
      const transfers = await listRecentTransfers(ballast.db, 10);
      expect(transfers).toHaveLength(1);
      expect(transfers[0]!.status).toBe('success');
    } finally {
      await ballast.close();
    }
  });
});
