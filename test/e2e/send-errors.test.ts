/**
 * A send whose answer is an error is not a refusal: the node may have taken the transaction (a transport
 * retry answered "already known", a backend behind a load balancer lags on lookups). The transfer stays in
 * flight until reconciliation finds out, and the money is never sent twice.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { DEPOSIT_SEND_ALREADY_KNOWN, startRpcFaultProxy, type RpcFaultProxy } from './helpers/rpcFaultProxy.ts';
import { ballastOnSandbox, tempDir, usdcBalance } from './helpers/sandboxBallast.ts';

const USDC = 1_000_000n;
const tmp = tempDir('ballast-send-errors-');
let sandbox: Sandbox | null = null;
let proxy: RpcFaultProxy | null = null;

afterEach(async () => {
  await proxy?.close();
  await sandbox?.stop();
  proxy = null;
  sandbox = null;
});
afterAll(() => tmp.cleanup());

describe('send errors', () => {
  it('a deposit the node took although its answer was an error is tracked, not paid again', async () => {
    sandbox = await startSandbox({ faults: { fillDelayMs: 0 } });
    const alpha = sandbox.chains.find((c) => c.def.slug === 'alpha')!;
    // The 2nd raw transaction (the deposit, after the approve) reaches anvil, but the answer is "already known";
    // the next lookups of transactions and receipts say "not found", as a lagging backend would.
    proxy = await startRpcFaultProxy(alpha.rpcUrl, [...DEPOSIT_SEND_ALREADY_KNOWN]);
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, {}, { SANDBOX_ALPHA_RPC: proxy.url });
    try {
      const first = await ballast.runCycle('once');
      expect(proxy.applied.map((f) => f.method)).toEqual(['eth_sendRawTransaction']);
      expect(first.attempts.map((a) => a.outcome)).toEqual(['in_flight']);
      const [transfer] = await listRecentTransfers(ballast.db, 10);
      expect(transfer!.status).toBe('broadcast');
      expect(transfer!.error ?? first.attempts[0]!.error).toContain('outcome unknown');
      expect(await usdcBalance(sandbox, 'alpha')).toBe(70_000n * USDC); // the deposit did land

      // The next cycles reconcile from the chain: the deposit is found, tracked to success, nothing is re-sent.
      for (let i = 0; i < 3 && (await listRecentTransfers(ballast.db, 10))[0]!.status !== 'success'; i++) {
        await new Promise((r) => setTimeout(r, 500));
        const next = await ballast.runCycle('once');
        expect(next.plan.transfers).toHaveLength(0);
      }
      const after = await listRecentTransfers(ballast.db, 10);
      expect(after.map((t) => t.status)).toEqual(['success']);
      expect(await usdcBalance(sandbox, 'alpha')).toBe(70_000n * USDC);
    } finally {
      await ballast.close();
    }
  });
});
