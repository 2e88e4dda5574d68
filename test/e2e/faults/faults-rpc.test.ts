/**
 * Fault injection on the origin chain's RPC and blocks: lookup errors, a lagging backend, a send retried after
 * a timeout, and a reorg of a confirmed deposit. Each case starts from a fresh need on one shared sandbox,
 * injects its fault, recovers with `run --once` cycles, and prints duplicates, lost and the time back in band
 * (all duplicates and lost must be 0 and the treasury back in band; the time is printed, not asserted).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import { sandboxEnv } from '../../../packages/ballast/src/cli/sandboxEnv.ts';
import { startSandbox, type Sandbox } from '../../../packages/sandbox/src/startSandbox.ts';
import { listRecentTransfers } from '../../../packages/ballast/src/store/transfers.ts';
import { DEPOSIT_SEND_ALREADY_KNOWN, startRpcFaultProxy, type RpcFault, type RpcFaultProxy } from '../helpers/rpcFaultProxy.ts';
import { ballastOnSandbox, tempDir, usdcBalance } from '../helpers/sandboxBallast.ts';
import { formatSummary, treasuryDeposits, type CaseRow } from './helpers/caseAudit.ts';
import { runOnce, stopChildren } from './helpers/cliChild.ts';
import { expectPaidOnce, measureRecovery, openBallast, type MeasuredCase } from './helpers/faultCase.ts';
import { anvilReorg as reorg } from '../helpers/anvilReorg.ts';
import { BETA_START, NEED_BALANCES, chainOf, freshNeed } from './helpers/treasuryNeed.ts';

/** Longest a case may take on a busy two-core machine (setup, the fault, the recovery budget, the audit), ms. */
const CASE_TIMEOUT_MS = 180_000;
const tmp = tempDir('ballast-faults-rpc-');
const rows: CaseRow[] = [];
let sandbox: Sandbox;
let proxy: RpcFaultProxy | null = null;

beforeAll(async () => {
  sandbox = await startSandbox({ balances: NEED_BALANCES });
});
afterAll(async () => {
  stopChildren();
  await proxy?.close();
  await sandbox?.stop();
  tmp.cleanup();
  console.log(formatSummary('RPC and chain faults: summary', rows));
});

/** The same fault on calls `from`..`to` (1-based) of each method. */
function onCalls(methods: string[], from: number, to: number, action: RpcFault['action'], error?: RpcFault['error']): RpcFault[] {
  const out: RpcFault[] = [];
  for (let nth = from; nth <= to; nth++) for (const method of methods) out.push({ method, nth, action, ...(error ? { error } : {}) });
  return out;
}

describe('RPC and chain faults', () => {
  it(
    'lookup errors during the approve: receipts and transactions answered with errors are never read as "not found"',
    async () => {
      const start = await freshNeed(sandbox);
      const alpha = chainOf(sandbox, 'alpha');
      const indexing = { code: -32603, message: 'transaction indexing is in progress' };
      proxy = await startRpcFaultProxy(
        alpha.rpcUrl,
        onCalls(['eth_getTransactionReceipt', 'eth_getTransactionByHash'], 1, 12, 'error', indexing),
      );
      const { ballast } = ballastOnSandbox(sandbox, tmp.dir, {}, { SANDBOX_ALPHA_RPC: proxy.url });
      try {
        const faultAtMs = Date.now();
        const first = await ballast.runCycle('once');
        expect(proxy.applied.length).toBeGreaterThan(0);
        // The approve went out but its receipt could not be read: the transfer stays in flight, undecided.
        expect(first.attempts.map((a) => a.outcome)).toEqual(['in_flight']);
        expect((await listRecentTransfers(ballast.db, 5)).map((t) => t.status)).toEqual(['broadcast']);
        const m = await measureRecovery(sandbox, {
          fault: 'lookup errors during the approve',
          faultAtMs,
          db: ballast.db,
          start,
          step: () => ballast.runCycle('once'),
        });
        rows.push(m.row);
        expectPaidOnce(m);
      } finally {
        await ballast.close();
        await proxy.close();
        proxy = null;
      }
    },
    CASE_TIMEOUT_MS,
  );

  /**
   * The run dies right after the deposit was sent and recorded `sent` (its receipt never read); the deposit is
   * mined and filled while the recovery runs talk to a node that misbehaves on lookups (`faults`).
   */
  async function crashThenFlakyLookups(fault: string, faults: RpcFault[]): Promise<MeasuredCase> {
    const start = await freshNeed(sandbox);
    const { ballast: direct, configFile, store } = ballastOnSandbox(sandbox, tmp.dir);
    await direct.close();
    const env = sandboxEnv(sandbox, store);
    const killed = await runOnce(configFile, { ...env, BALLAST_CRASH_AT: 'tx:recorded-sent#2' });
    expect(killed.signal).toBe('SIGKILL');
    // The next cron run comes after the fill has landed (the deposit was mined before the kill).
    for (let i = 0; i < 200 && (await usdcBalance(sandbox, 'beta')) === BETA_START; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await usdcBalance(sandbox, 'beta')).toBeGreaterThan(BETA_START);
    proxy = await startRpcFaultProxy(chainOf(sandbox, 'alpha').rpcUrl, faults);
    const ballast = openBallast(configFile, { ...env, SANDBOX_ALPHA_RPC: proxy.url });
    try {
      const m = await measureRecovery(sandbox, {
        fault,
        faultAtMs: killed.exitedAtMs,
        db: ballast.db,
        start,
        step: () => ballast.runCycle('once'),
      });
      rows.push(m.row);
      expect(proxy.applied.length).toBeGreaterThan(0);
      return m;
    } finally {
      await ballast.close();
      await proxy.close();
      proxy = null;
    }
  }

  it(
    'lookup errors after a crash: a deposit that cannot be looked up is neither paid again nor moved back',
    async () => {
      const indexing = { code: -32603, message: 'transaction indexing is in progress' };
      const m = await crashThenFlakyLookups(
        'lookup errors after the deposit',
        onCalls(['eth_getTransactionReceipt', 'eth_getTransactionByHash'], 1, 12, 'error', indexing),
      );
      expectPaidOnce(m);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'lagging backend: "not found" answers after a crash are not read as a reorg or a drop, nothing is paid again',
    async () => {
      const m = await crashThenFlakyLookups(
        'lagging backend',
        onCalls(['eth_getTransactionReceipt', 'eth_getTransactionByHash', 'eth_getLogs'], 1, 6, 'not-found'),
      );
      expectPaidOnce(m);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'send retried after timeout: a deposit the node took although the answer was "already known" is tracked, not re-sent',
    async () => {
      const start = await freshNeed(sandbox);
      const alpha = chainOf(sandbox, 'alpha');
      proxy = await startRpcFaultProxy(alpha.rpcUrl, [...DEPOSIT_SEND_ALREADY_KNOWN]);
      const { ballast } = ballastOnSandbox(sandbox, tmp.dir, {}, { SANDBOX_ALPHA_RPC: proxy.url });
      try {
        const faultAtMs = Date.now();
        const first = await ballast.runCycle('once');
        expect(proxy.applied.map((f) => f.method)).toEqual(['eth_sendRawTransaction']);
        expect(first.attempts.map((a) => a.outcome)).toEqual(['in_flight']);
        expect(first.attempts[0]!.error).toContain('outcome unknown');
        const m = await measureRecovery(sandbox, {
          fault: 'send retried after timeout',
          faultAtMs,
          db: ballast.db,
          start,
          step: () => ballast.runCycle('once'),
        });
        rows.push(m.row);
        expectPaidOnce(m);
        expect(proxy.calls.get('eth_sendRawTransaction')).toBeLessThanOrEqual(3); // approve, deposit, at most one identical re-send
      } finally {
        await ballast.close();
        await proxy.close();
        proxy = null;
      }
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'reorg of a confirmed deposit: the recorded transactions are sent again, one deposit, one fill',
    async () => {
      const start = await freshNeed(sandbox);
      const alpha = chainOf(sandbox, 'alpha');
      sandbox.setFaults({ fillDelayMs: 5_000 }); // the fill comes after the reorg
      const { ballast, configFile, store } = ballastOnSandbox(sandbox, tmp.dir);
      try {
        // The run dies after the deposit is confirmed, before it tracks the fill.
        const killed = await runOnce(configFile, { ...sandboxEnv(sandbox, store), BALLAST_CRASH_AT: 'transfer:deposited' });
        expect(killed.signal).toBe('SIGKILL');
        const [deposited] = await listRecentTransfers(ballast.db, 5);
        expect(deposited!.status).toBe('deposited');
        const depth = Number((await alpha.publicClient.getBlockNumber({ cacheTime: 0 })) - start.alphaBlock);
        expect(depth).toBeGreaterThanOrEqual(2); // the approve and the deposit
        expect(depth).toBeLessThan(12); // within the default confirmations
        await reorg(alpha.rpcUrl, depth);
        const faultAtMs = Date.now();
        expect(await treasuryDeposits(sandbox, start.alphaBlock)).toEqual([]);

        const m = await measureRecovery(sandbox, {
          fault: 'reorg of a confirmed deposit',
          faultAtMs,
          db: ballast.db,
          start,
          step: () => ballast.runCycle('once'),
        });
        rows.push(m.row);
        expectPaidOnce(m);
        const [after] = await listRecentTransfers(ballast.db, 5);
        expect(after!.id).toBe(deposited!.id);
        expect(after!.events.map((e) => e.toStatus)).toEqual(['prepared', 'broadcast', 'deposited', 'broadcast', 'deposited', 'success']);
        expect(m.audit.deposits[0]!.txHash).toBe(deposited!.txs.at(-1)!.txHash as Hex); // the same signed bytes
      } finally {
        sandbox.resetFaults();
        await ballast.close();
      }
    },
    CASE_TIMEOUT_MS,
  );
});
