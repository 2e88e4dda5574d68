/**
 * Fault injection by operators, the Relay service and time: an operator's speed-up and cancel of a deposit a
 * dead run left written ahead, a request that ends `failure`, an order deadline that expires between the
 * approve and the deposit, and a fill landing between the balance read and the in-flight refresh. Each case
 * starts from a fresh need on one shared sandbox and prints duplicates, lost and the time back in band.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, http, type Hex } from 'viem';
import { sandboxEnv } from '../../../packages/ballast/src/cli/sandboxEnv.ts';
import { armCrashPoints } from '../../../packages/ballast/src/core/crashPoints.ts';
import type { IntentStatus } from '../../../packages/protocol/src/relay/schemas.ts';
import { testStablecoinAbi } from '../../../packages/sandbox/src/contracts/abis.ts';
import { startSandbox, type Sandbox } from '../../../packages/sandbox/src/startSandbox.ts';
import { listUnresolvedFailures } from '../../../packages/ballast/src/store/failures.ts';
import { getTransfer, listRecentTransfers } from '../../../packages/ballast/src/store/transfers.ts';
import { ABSENCE_RECHECK_MS } from '../../../packages/ballast/src/cycle/reconcile.ts';
import { ballastOnSandbox, tempDir, treasuryNonce, usdcBalance } from '../helpers/sandboxBallast.ts';
import { formatSummary, treasuryDeposits, type CaseRow } from './helpers/caseAudit.ts';
import { runOnce, stopChildren } from './helpers/cliChild.ts';
import { expectPaidOnce, measureRecovery, openBallast } from './helpers/faultCase.ts';
import { BETA_START, NEED, NEED_BALANCES, chainOf, freshNeed, inBand, readTreasury } from './helpers/treasuryNeed.ts';

/** Longest a case may take on a busy two-core machine (setup, the fault, the recovery budget, the audit), ms. */
const CASE_TIMEOUT_MS = 180_000;
const tmp = tempDir('ballast-faults-operator-');
const rows: CaseRow[] = [];
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ balances: NEED_BALANCES });
});
afterAll(async () => {
  armCrashPoints(null);
  stopChildren();
  await sandbox?.stop();
  tmp.cleanup();
  console.log(formatSummary('Operator, service and time faults: summary', rows));
});

/** Mints `amount` base units of the sandbox USDC to the treasury on `slug` (its owner is the deployer). */
async function mintToTreasury(slug: 'alpha' | 'beta', amount: bigint): Promise<void> {
  const chain = chainOf(sandbox, slug);
  const minter = createWalletClient({ chain: chain.chain, account: sandbox.accounts.deployer, transport: http(chain.rpcUrl) });
  const hash = await minter.writeContract({
    address: chain.usdc,
    abi: testStablecoinAbi,
    functionName: 'mint',
    args: [sandbox.accounts.treasury.address, amount],
  });
  await chain.publicClient.waitForTransactionReceipt({ hash });
}

/** The signed transaction the store recorded for a step (`request` is `signedTxRecord`'s JSON). */
interface RecordedTx {
  to: Hex;
  data: Hex;
  value: string;
  nonce: number;
  gas: string;
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
}

/**
 * A run killed right after the deposit was written ahead (`tx:written#2`: signed, never broadcast), then the
 * operator uses the deposit's nonce with twice its fees: the same deposit call (`speed-up`) or a 0-value
 * transfer to the treasury itself (`cancel`).
 */
async function operatorReplacesDeposit(kind: 'speed-up' | 'cancel', now?: () => number) {
  const start = await freshNeed(sandbox);
  const { ballast, configFile, store } = ballastOnSandbox(sandbox, tmp.dir, {}, {}, now ? { now } : {});
  try {
    const killed = await runOnce(configFile, { ...sandboxEnv(sandbox, store), BALLAST_CRASH_AT: 'tx:written#2' });
    expect(killed.signal).toBe('SIGKILL');
    const [written] = await listRecentTransfers(ballast.db, 5);
    const deposit = written!.txs.find((t) => t.stepId === 'deposit')!;
    expect(deposit.status).toBe('signed');
    const d = deposit.request as RecordedTx; // written by the executor from signedTxRecord
    const alpha = chainOf(sandbox, 'alpha');
    const treasury = sandbox.accounts.treasury;
    const raw = await treasury.signTransaction({
      type: 'eip1559',
      chainId: alpha.def.chainId,
      nonce: d.nonce,
      maxFeePerGas: BigInt(d.maxFeePerGas) * 2n,
      maxPriorityFeePerGas: BigInt(d.maxPriorityFeePerGas) * 2n,
      ...(kind === 'speed-up'
        ? { to: d.to, data: d.data, value: BigInt(d.value), gas: BigInt(d.gas) }
        : { to: treasury.address, value: 0n, gas: 21_000n }),
    });
    const hash = await alpha.publicClient.sendRawTransaction({ serializedTransaction: raw });
    expect((await alpha.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(hash).not.toBe(deposit.txHash);
    return { start, ballast, killed, written: written!, operatorHash: hash };
  } catch (error) {
    await ballast.close();
    throw error;
  }
}

describe('operator, service and time faults', () => {
  it(
    'operator speed-up: the replacement deposit is found by its order id and tracked, not paid again',
    async () => {
      const { start, ballast, killed, written, operatorHash } = await operatorReplacesDeposit('speed-up');
      try {
        const m = await measureRecovery(sandbox, {
          fault: 'operator speed-up',
          faultAtMs: killed.exitedAtMs,
          db: ballast.db,
          start,
          step: () => ballast.runCycle('once'),
        });
        rows.push(m.row);
        const paid = expectPaidOnce(m);
        expect(paid.id).toBe(written.id);
        expect(m.audit.deposits[0]!.txHash).toBe(operatorHash);
        expect(paid.txs.map((t) => t.stepId)).toEqual(['approve', 'deposit', 'deposit:replacement']);
        expect(paid.txs.at(-1)!.txHash).toBe(operatorHash);
      } finally {
        await ballast.close();
      }
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'operator cancel: the transfer fails only once no deposit is proven, then the need is paid once',
    async () => {
      // The recovery's clock moves ABSENCE_RECHECK_MS ahead once the first proof of absence is recorded, instead of
      // cycling for 15 s: the next cycle takes the second proof (a later cycle, at least that long after the first).
      let skewMs = 0;
      const { start, ballast, killed, written } = await operatorReplacesDeposit('cancel', () => Date.now() + skewMs);
      try {
        const after: { status: string | undefined; proof: boolean }[] = []; // the cancelled transfer after each cycle
        const m = await measureRecovery(sandbox, {
          fault: 'operator cancel',
          faultAtMs: killed.exitedAtMs,
          db: ballast.db,
          start,
          step: async () => {
            await ballast.runCycle('once');
            const row = await getTransfer(ballast.db, written.id);
            after.push({ status: row?.status, proof: Boolean(row?.absenceProof) });
            if (row?.absenceProof && skewMs === 0) skewMs = ABSENCE_RECHECK_MS;
          },
        });
        // The first recovery cycle proved the deposit absent once and failed nothing.
        expect(after[0]).toEqual({ status: written.status, proof: true });
        rows.push(m.row);
        const paid = expectPaidOnce(m);
        const cancelled = m.audit.transfers.find((t) => t.id === written.id)!;
        expect(cancelled.status).toBe('origin_failed');
        expect(cancelled.error).toContain('nonce was used by another transaction');
        expect(cancelled.error).toMatch(
          new RegExp(
            `no deposit for order ${written.orderId} on chain up to block [0-9]+ \\(as at block [0-9]+ before\\) and none known to the Relay request`,
          ),
        );
        // The approve of the cancelled transfer left the allowance; the new transfer only deposits.
        expect(paid.id).not.toBe(written.id);
        expect(paid.txs.map((t) => t.stepId)).toEqual(['deposit']);
      } finally {
        await ballast.close();
      }
    },
    CASE_TIMEOUT_MS,
  );

  it(
    '`failure`: the deposit stays parked, the route is paused, no second deposit although funds allow (not back in band by design)',
    async () => {
      const start = await freshNeed(sandbox);
      sandbox.setFaults({ failure: true, fillDelayMs: 0 });
      const { ballast } = ballastOnSandbox(sandbox, tmp.dir);
      try {
        const faultAtMs = Date.now();
        const first = await ballast.runCycle('once');
        expect(first.attempts.map((a) => a.outcome)).toEqual(['failure']);
        // Income on alpha: funds would allow paying beta's need a second time; the paused route must prevent it.
        await mintToTreasury('alpha', NEED);
        const nonce = await treasuryNonce(sandbox, 'alpha');
        const reports: Awaited<ReturnType<typeof ballast.runCycle>>[] = [];
        const m = await measureRecovery(sandbox, {
          fault: 'failure',
          faultAtMs,
          db: ballast.db,
          start,
          step: async () => void reports.push(await ballast.runCycle('once')),
          done: () => true,
          minSteps: 2,
          note: 'route paused by design; the deposit waits in the depository for the operator',
        });
        rows.push(m.row);
        expect(m.row.lost).toBe(0n);
        expect(m.row.duplicates).toBe(0);
        expect(m.audit.deposits).toHaveLength(1);
        expect(m.audit.transfers.map((t) => t.status)).toEqual(['failure']);
        expect((await listUnresolvedFailures(ballast.db)).map((t) => t.orderId?.toLowerCase())).toEqual([m.audit.deposits[0]!.orderId]);
        for (const r of reports) {
          expect(r.plan.transfers).toEqual([]);
          expect(r.plan.decisions.filter((d) => d.kind === 'route_paused')).toHaveLength(1);
        }
        expect(await treasuryNonce(sandbox, 'alpha')).toBe(nonce); // nothing signed while paused
        expect(await ballast.metrics.registry.metrics()).toMatch(/ballast_routes_paused 1/);
        expect(inBand(await readTreasury(sandbox))).toBe(false); // beta still short: it waits for the operator
        expect(m.row.backInBandSec).toBeNull();
      } finally {
        sandbox.resetFaults();
        await ballast.close();
      }
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'expired deadline between items: the deposit is not signed after the approve; the next cycle re-quotes and pays once',
    async () => {
      const start = await freshNeed(sandbox);
      sandbox.setFaults({ quoteDeadlineSec: 200 });
      const { configFile, store, ballast: plain } = ballastOnSandbox(sandbox, tmp.dir);
      await plain.close();
      // Ballast's clock: real time, plus 250 s once the approve is confirmed (a confirmation that took longer
      // than the order had left), so the order's 200 s deadline has passed when the deposit is due.
      let skewMs = 0;
      const ballast = openBallast(configFile, sandboxEnv(sandbox, store), { now: () => Date.now() + skewMs });
      armCrashPoints((point, hit) => {
        if (point === 'tx:confirmed' && hit === 1) skewMs = 250_000;
      });
      try {
        const faultAtMs = Date.now();
        const first = await ballast.runCycle('once');
        armCrashPoints(null);
        expect(skewMs).toBe(250_000);
        expect(first.attempts.map((a) => a.outcome)).toEqual(['origin_failed']);
        const [expired] = await listRecentTransfers(ballast.db, 5);
        expect(expired!.error).toMatch(/deposit not signed: the order deadline \d+ is -\d+ s away/);
        expect(expired!.txs.map((t) => [t.stepId, t.status])).toEqual([['approve', 'confirmed']]);
        expect(await treasuryDeposits(sandbox, start.alphaBlock)).toEqual([]);
        sandbox.setFaults({ quoteDeadlineSec: 600 }); // quotes with the usual ten minutes again
        const m = await measureRecovery(sandbox, {
          fault: 'expired deadline between items',
          faultAtMs,
          db: ballast.db,
          start,
          step: () => ballast.runCycle('once'),
        });
        rows.push(m.row);
        const paid = expectPaidOnce(m);
        expect(paid.id).not.toBe(expired!.id);
        expect(paid.txs.map((t) => t.stepId)).toEqual(['deposit']); // the allowance from the first approve is used
      } finally {
        armCrashPoints(null);
        sandbox.resetFaults();
        await ballast.close();
      }
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'fill between the two reads: a fill after the balance read and before the refresh is counted once',
    async () => {
      const start = await freshNeed(sandbox);
      sandbox.setFaults({ fillDelayMs: 5_000 });
      const { ballast, configFile, store } = ballastOnSandbox(sandbox, tmp.dir);
      try {
        // The run dies once the deposit is confirmed, before it tracks the (slow) fill.
        const killed = await runOnce(configFile, { ...sandboxEnv(sandbox, store), BALLAST_CRASH_AT: 'transfer:deposited' });
        expect(killed.signal).toBe('SIGKILL');
        // The next cycle's first status read waits for the fill to be mined, then answers with the fresh status.
        const relay = ballast.ctx.relay;
        const realGetStatus = relay.getStatus.bind(relay);
        let filledAt: bigint | null = null;
        relay.getStatus = async (requestId: string, checkEndpoint?: string): Promise<IntentStatus> => {
          if (filledAt === null) {
            for (let i = 0; i < 400 && filledAt === null; i++) {
              const beta = await usdcBalance(sandbox, 'beta');
              if (beta > BETA_START) filledAt = beta;
              else await new Promise((r) => setTimeout(r, 50));
            }
            for (let i = 0; i < 200; i++) {
              const fresh = await realGetStatus(requestId, checkEndpoint);
              if (fresh.status === 'success') return fresh;
              await new Promise((r) => setTimeout(r, 50));
            }
          }
          return realGetStatus(requestId, checkEndpoint);
        };
        const reports: Awaited<ReturnType<typeof ballast.runCycle>>[] = [];
        const m = await measureRecovery(sandbox, {
          fault: 'fill between the two reads',
          faultAtMs: killed.exitedAtMs,
          db: ballast.db,
          start,
          step: async () => void reports.push(await ballast.runCycle('once')),
        });
        rows.push(m.row);
        expectPaidOnce(m);
        // The scenario happened: the first recovery read beta before the fill, and the fill then closed it.
        expect(filledAt).not.toBeNull();
        const second = reports[0]!;
        expect(second.balances.find((b) => b.chain === 'beta')!.amount).toBe(BETA_START);
        expect(second.plan.transfers).toEqual([]);
        expect(second.attempts).toEqual([]);
        expect(m.audit.transfers.map((t) => t.status)).toEqual(['success']);
      } finally {
        sandbox.resetFaults();
        await ballast.close();
      }
    },
    CASE_TIMEOUT_MS,
  );
});
