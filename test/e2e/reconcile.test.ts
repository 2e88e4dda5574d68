/**
 * Transfers left unconfirmed by an interrupted executor are reconciled from the chain by the next cycle,
 * using the transaction hashes written before broadcast: a deposit that did land is tracked to success (and
 * not repeated); a transaction that can never be mined ends `origin_failed` so the funds are planned again.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createWalletClient, erc20Abi, http, keccak256, type Hex } from 'viem';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { signEvmStepItem, signedTxRecord } from '../../packages/ballast/src/chains/evm/signTransaction.ts';
import { EvmTxDataSchema } from '../../packages/protocol/src/relay/schemas.ts';
import { collectExecutableItems } from '../../packages/ballast/src/executor/collectItems.ts';
import { buildQuoteRequest } from '../../packages/ballast/src/cycle/expectations.ts';
import { recordQuote } from '../../packages/ballast/src/store/quotes.ts';
import { startCycle } from '../../packages/ballast/src/store/cycles.ts';
import { addTransferTx, createTransfer, getTransfer, listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import type { Ballast } from '../../packages/ballast/src/app/createBallast.ts';
import { ballastOnSandbox, tempDir, usdcBalance } from './helpers/sandboxBallast.ts';
import { ABSENCE_RECHECK_MS } from '../../packages/ballast/src/cycle/reconcile.ts';
import { startRpcFaultProxy } from './helpers/rpcFaultProxy.ts';

const USDC = 1_000_000n;
const tmp = tempDir('ballast-reconcile-');
afterAll(() => tmp.cleanup());
let sandbox: Sandbox | null = null;
afterEach(async () => {
  await sandbox?.stop();
  sandbox = null;
});

/**
 * Asks the sandbox for the 20000 USDC alpha → beta quote the planner would ask for, signs its items in order and
 * writes the transfer row exactly as the executor does before broadcasting, then stops (the "crash").
 */
async function writeAheadWithoutExecuting(ballast: Ballast, opts: { skipApproval?: boolean } = {}) {
  const ctx = ballast.ctx;
  const report = await ballast.runCycle('plan');
  const planned = report.plan.transfers[0]!;
  const request = buildQuoteRequest(planned, { slippageBps: 50 });
  const { quote, raw } = await ctx.relay.quote(request);
  const cycleId = await startCycle(ctx.db, { mode: 'once', startedAtMs: ctx.now() });
  const quoteId = await recordQuote(ctx.db, {
    cycleId,
    planId: null,
    requestId: quote.requestId ?? null,
    orderId: quote.protocol!.v2!.orderId,
    request,
    raw,
    receivedAtMs: ctx.now(),
  });
  // The test signs as the executor would, with its own client of the same node and the treasury's key.
  const alpha = sandbox!.chains.find((c) => c.def.slug === 'alpha')!.publicClient;
  const account = sandbox!.accounts.treasury;
  const nonce = await alpha.getTransactionCount({ address: account.address, blockTag: 'pending' });
  const items = collectExecutableItems(quote);
  // The approve can be estimated now; the deposit's estimate needs the allowance, so sign it after the approve
  // is mined (as the executor does), but write both before anything else happens.
  // With skipApproval the allowance already covers the payment: like the executor, only the deposit is sent.
  const firstItem = opts.skipApproval ? items[items.length - 1]! : items[0]!;
  const approve = await signEvmStepItem(alpha, account, EvmTxDataSchema.parse(firstItem.item.data), nonce);
  const { transferId } = await createTransfer(ctx.db, {
    cycleId,
    quoteId,
    asset: 'USDC',
    originChain: 'alpha',
    originChainId: 31001,
    originCurrency: planned.from.currency,
    destinationChain: 'beta',
    destinationChainId: 31002,
    destinationCurrency: planned.to.currency,
    user: account.address,
    recipient: planned.to.address,
    amountIn: planned.amountIn,
    expectedOut: BigInt(quote.protocol!.v2!.orderData.output.payments[0]!.expectedAmount),
    minOut: BigInt(quote.protocol!.v2!.orderData.output.payments[0]!.minimumAmount),
    requestId: quote.requestId ?? null,
    orderId: quote.protocol!.v2!.orderId,
    feesUsd: null,
    txs: [
      {
        stepId: firstItem.stepId,
        itemIndex: firstItem.itemIndex,
        chainId: 31001,
        request: signedTxRecord(approve),
        txHash: approve.txHash,
        rawTx: approve.rawTx,
      },
    ],
    nowMs: ctx.now(),
  });
  return { transferId, alpha, account, items, approve, first: approve };
}

/** The treasury approves alpha's depository for `amount` USDC itself, so a transfer needs no approval. */
async function approveDepository(s: Sandbox, amount: bigint): Promise<void> {
  const chain = s.chains.find((c) => c.def.slug === 'alpha')!;
  const owner = createWalletClient({ chain: chain.chain, account: s.accounts.treasury, transport: http(chain.rpcUrl) });
  const approved = await owner.writeContract({
    address: chain.usdc,
    abi: erc20Abi,
    functionName: 'approve',
    args: [chain.depository, amount],
  });
  await chain.publicClient.waitForTransactionReceipt({ hash: approved });
}

describe('reconciliation of interrupted transfers', () => {
  it('tracks a deposit that landed after the executor stopped, and does not repeat it', async () => {
    sandbox = await startSandbox({});
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir);
    try {
      const w = await writeAheadWithoutExecuting(ballast);
      // The transactions reach the chain, but the process "died" before recording anything more.
      await w.alpha.sendRawTransaction({ serializedTransaction: w.approve.rawTx });
      await w.alpha.waitForTransactionReceipt({ hash: w.approve.txHash });
      const deposit = await signEvmStepItem(w.alpha, w.account, EvmTxDataSchema.parse(w.items[1]!.item.data), w.approve.nonce + 1);
      await addTransferTx(ballast.db, w.transferId, {
        stepId: 'deposit',
        itemIndex: 0,
        chainId: 31001,
        request: signedTxRecord(deposit),
        txHash: deposit.txHash,
        rawTx: deposit.rawTx,
        nowMs: Date.now(),
      });
      await w.alpha.sendRawTransaction({ serializedTransaction: deposit.rawTx });
      await w.alpha.waitForTransactionReceipt({ hash: deposit.txHash });
      expect((await getTransfer(ballast.db, w.transferId))!.status).toBe('prepared');

      // Wait for the solver's fill, then the next cycle reconciles, sees success, and plans nothing new.
      for (let i = 0; i < 60 && (await usdcBalance(sandbox, 'beta')) === 10_000n * USDC; i++) await new Promise((r) => setTimeout(r, 250));
      const report = await ballast.runCycle('once');
      expect(report.plan.transfers).toHaveLength(0);
      const transfer = (await getTransfer(ballast.db, w.transferId))!;
      expect(transfer.status).toBe('success');
      expect(transfer.events.map((e) => e.toStatus)).toEqual(['prepared', 'broadcast', 'deposited', 'success']);
      expect(transfer.txs.map((t) => t.status)).toEqual(['confirmed', 'confirmed']);
      expect(await listRecentTransfers(ballast.db, 10)).toHaveLength(1);
    } finally {
      await ballast.close();
    }
  });

  it('fails a transaction whose nonce another transaction used, and plans the move again', async () => {
    sandbox = await startSandbox({});
    let skewMs = 0;
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, {}, {}, { now: () => Date.now() + skewMs });
    try {
      const w = await writeAheadWithoutExecuting(ballast);
      // The signed approve is never sent; the wallet's nonce is used by another transaction instead.
      const hash = await w.alpha.sendRawTransaction({
        serializedTransaction: await w.account.signTransaction!({
          chainId: 31001,
          to: w.account.address,
          value: 0n,
          nonce: w.approve.nonce,
          gas: 21_000n,
          maxFeePerGas: w.approve.maxFeePerGas,
          maxPriorityFeePerGas: w.approve.maxPriorityFeePerGas,
          type: 'eip1559',
        }),
      });
      await w.alpha.waitForTransactionReceipt({ hash: hash as Hex });

      // A first proof of absence is only noted: one node answer (perhaps from a lagging backend) fails nothing.
      const noted = await ballast.runCycle('once');
      expect(noted.attempts).toEqual([]);
      const first = (await getTransfer(ballast.db, w.transferId))!;
      expect(first.status).toBe('prepared');
      expect(first.events.at(-1)?.detail).toMatch(/^no deposit for the order up to block [0-9]+: .*checked again before failing$/);
      skewMs = ABSENCE_RECHECK_MS + 1_000;
      const report = await ballast.runCycle('once');
      const stuck = (await getTransfer(ballast.db, w.transferId))!;
      expect(stuck.status).toBe('origin_failed');
      expect(stuck.error).toContain('nonce was used by another transaction');
      // With the stuck transfer closed, the same cycle plans and completes the move.
      expect(report.attempts.map((a) => a.outcome)).toEqual(['success']);
      expect(await usdcBalance(sandbox, 'beta')).toBeGreaterThan(29_000n * USDC);
    } finally {
      await ballast.close();
    }
  });

  it('fails a signed transaction never sent once the order deadline has passed', async () => {
    sandbox = await startSandbox({ faults: { quoteDeadlineSec: 2 } });
    let skewMs = 0;
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, {}, {}, { now: () => Date.now() + skewMs });
    try {
      const w = await writeAheadWithoutExecuting(ballast);
      const first = await ballast.runCycle('plan'); // deadline not passed yet: still in flight, nothing planned
      expect(first.plan.transfers).toHaveLength(0);
      expect((await getTransfer(ballast.db, w.transferId))!.status).toBe('prepared');
      // The order deadline passes on Ballast's clock (the transaction was never sent: only Ballast judges it).
      skewMs = 3_000;
      sandbox.setFaults({ quoteDeadlineSec: 600 });
      expect((await ballast.runCycle('once')).attempts).toEqual([]); // first proof of absence: noted only
      expect((await getTransfer(ballast.db, w.transferId))!.status).toBe('prepared');
      skewMs += ABSENCE_RECHECK_MS + 1_000;
      const report = await ballast.runCycle('once');
      expect((await getTransfer(ballast.db, w.transferId))!.status).toBe('origin_failed');
      expect(report.attempts.map((a) => a.outcome)).toEqual(['success']);
    } finally {
      await ballast.close();
    }
  });

  it('tracks a deposit sent without an approval (the allowance already covered it) and does not pay again', async () => {
    sandbox = await startSandbox({});
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir);
    try {
      await approveDepository(sandbox, 20_000n * USDC);
      const w = await writeAheadWithoutExecuting(ballast, { skipApproval: true });
      await w.alpha.sendRawTransaction({ serializedTransaction: w.first.rawTx });
      await w.alpha.waitForTransactionReceipt({ hash: w.first.txHash });
      for (let i = 0; i < 60 && (await usdcBalance(sandbox, 'beta')) === 10_000n * USDC; i++) await new Promise((r) => setTimeout(r, 250));

      const report = await ballast.runCycle('once');
      expect(report.plan.transfers).toHaveLength(0);
      const transfer = (await getTransfer(ballast.db, w.transferId))!;
      expect(transfer.status).toBe('success');
      expect(transfer.txs.map((t) => [t.stepId, t.status])).toEqual([['deposit', 'confirmed']]);
      expect(await listRecentTransfers(ballast.db, 10)).toHaveLength(1);
      expect(await usdcBalance(sandbox, 'alpha')).toBe(70_000n * USDC);
    } finally {
      await ballast.close();
    }
  });

  it("takes an operator's speed-up of our deposit (same nonce, higher fee) for our deposit, not for another transaction", async () => {
    sandbox = await startSandbox({});
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir);
    try {
      await approveDepository(sandbox, 20_000n * USDC);
      const w = await writeAheadWithoutExecuting(ballast, { skipApproval: true });
      // The recorded deposit is never sent; the operator sends the same call with the same nonce and a higher fee.
      const d = w.first;
      const sped = await w.account.signTransaction!({
        type: 'eip1559',
        chainId: 31001,
        to: d.to,
        data: d.data,
        value: d.value,
        nonce: d.nonce,
        gas: d.gas,
        maxFeePerGas: d.maxFeePerGas * 2n,
        maxPriorityFeePerGas: d.maxPriorityFeePerGas * 2n,
      });
      const spedHash = await w.alpha.sendRawTransaction({ serializedTransaction: sped });
      await w.alpha.waitForTransactionReceipt({ hash: spedHash });
      expect(spedHash).not.toBe(d.txHash);
      for (let i = 0; i < 60 && (await usdcBalance(sandbox, 'beta')) === 10_000n * USDC; i++) await new Promise((r) => setTimeout(r, 250));

      const report = await ballast.runCycle('once');
      expect(report.plan.transfers).toHaveLength(0);
      const transfer = (await getTransfer(ballast.db, w.transferId))!;
      expect(transfer.status).toBe('success');
      expect(transfer.txs.map((t) => [t.stepId, t.txHash])).toEqual([
        ['deposit', d.txHash],
        ['deposit:replacement', spedHash],
      ]);
      expect(await listRecentTransfers(ballast.db, 10)).toHaveLength(1);
      expect(await usdcBalance(sandbox, 'alpha')).toBe(70_000n * USDC);
    } finally {
      await ballast.close();
    }
  });

  it('leaves a transfer in flight while the node answers lookups with errors, then tracks its deposit', async () => {
    sandbox = await startSandbox({});
    const alphaRpc = sandbox.chains.find((c) => c.def.slug === 'alpha')!.rpcUrl;
    // Every receipt and transaction lookup of the first cycle fails like a load-balanced node still indexing.
    const indexing = { code: -32603, message: 'transaction indexing is in progress' };
    const faults = [1, 2, 3, 4, 5, 6].flatMap((nth) => [
      { method: 'eth_getTransactionReceipt', nth, action: 'error' as const, error: indexing },
      { method: 'eth_getTransactionByHash', nth, action: 'error' as const, error: indexing },
    ]);
    const proxy = await startRpcFaultProxy(alphaRpc, faults);
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, {}, { SANDBOX_ALPHA_RPC: proxy.url });
    try {
      const w = await writeAheadWithoutExecuting(ballast);
      const direct = sandbox.chains.find((c) => c.def.slug === 'alpha')!.publicClient; // the test's own calls bypass the proxy
      await direct.sendRawTransaction({ serializedTransaction: w.approve.rawTx });
      await direct.waitForTransactionReceipt({ hash: w.approve.txHash });
      const deposit = await signEvmStepItem(direct, w.account, EvmTxDataSchema.parse(w.items[1]!.item.data), w.approve.nonce + 1);
      await addTransferTx(ballast.db, w.transferId, {
        stepId: 'deposit',
        itemIndex: 0,
        chainId: 31001,
        request: signedTxRecord(deposit),
        txHash: deposit.txHash,
        rawTx: deposit.rawTx,
        nowMs: Date.now(),
      });
      await direct.sendRawTransaction({ serializedTransaction: deposit.rawTx });
      await direct.waitForTransactionReceipt({ hash: deposit.txHash });

      const first = await ballast.runCycle('once');
      expect(proxy.applied.length).toBeGreaterThan(0);
      expect((await getTransfer(ballast.db, w.transferId))!.status).toBe('prepared'); // no decision on errors
      expect(first.plan.transfers).toHaveLength(0); // still credited: nothing is paid again

      for (let i = 0; i < 60 && (await usdcBalance(sandbox, 'beta')) === 10_000n * USDC; i++) await new Promise((r) => setTimeout(r, 250));
      for (let i = 0; i < 4 && (await getTransfer(ballast.db, w.transferId))!.status !== 'success'; i++) await ballast.runCycle('once');
      expect((await getTransfer(ballast.db, w.transferId))!.status).toBe('success');
      expect(await listRecentTransfers(ballast.db, 10)).toHaveLength(1);
      expect(await usdcBalance(sandbox, 'alpha')).toBe(70_000n * USDC);
    } finally {
      await ballast.close();
      await proxy.close();
    }
  });

  it('sends a deposit written ahead but never broadcast again, exactly as signed, and tracks it to success', async () => {
    sandbox = await startSandbox({ faults: { fillDelayMs: 0 } });
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir);
    try {
      await approveDepository(sandbox, 20_000n * USDC);
      // The "crash": the deposit row is written ahead, the process dies before the broadcast.
      const w = await writeAheadWithoutExecuting(ballast, { skipApproval: true });
      expect(await usdcBalance(sandbox, 'alpha')).toBe(90_000n * USDC);

      const report = await ballast.runCycle('once');
      expect(report.plan.transfers).toHaveLength(0); // still credited while it is sent again
      for (let i = 0; i < 40 && (await getTransfer(ballast.db, w.transferId))!.status !== 'success'; i++) {
        await new Promise((r) => setTimeout(r, 250));
        await ballast.runCycle('once');
      }
      const transfer = (await getTransfer(ballast.db, w.transferId))!;
      expect(transfer.status).toBe('success');
      expect(transfer.txs.map((t) => [t.txHash, t.status])).toEqual([[w.first.txHash, 'confirmed']]);
      expect(await listRecentTransfers(ballast.db, 10)).toHaveLength(1);
      expect(await usdcBalance(sandbox, 'alpha')).toBe(70_000n * USDC);
      expect(await usdcBalance(sandbox, 'beta')).toBeGreaterThanOrEqual(29_900n * USDC);
    } finally {
      await ballast.close();
    }
  });

  it('sends an approve again past the deadline while a speed-up of the deposit waits behind its nonce, and tracks that deposit instead of failing the transfer', async () => {
    sandbox = await startSandbox({ faults: { quoteDeadlineSec: 2 } });
    let skewMs = 0;
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, {}, {}, { now: () => Date.now() + skewMs });
    try {
      // The approve is recorded but the node never got it (a reorg took it and the node lost its pool); the
      // deposit signed after it at the next nonce, and then the operator's speed-up of it, wait behind the gap.
      const w = await writeAheadWithoutExecuting(ballast);
      const item = EvmTxDataSchema.parse(w.items[1]!.item.data);
      const signDeposit = async (feeFactor: bigint) => {
        const fields = {
          chainId: 31001,
          from: w.account.address,
          to: item.to as Hex,
          data: item.data as Hex,
          value: BigInt(item.value),
          nonce: w.approve.nonce + 1,
          gas: 300_000n, // set here: the node cannot estimate a deposit before its approve is mined
          maxFeePerGas: w.approve.maxFeePerGas * feeFactor,
          maxPriorityFeePerGas: w.approve.maxPriorityFeePerGas * feeFactor,
        };
        const rawTx = await w.account.signTransaction!({ type: 'eip1559', ...fields });
        return { ...fields, rawTx, txHash: keccak256(rawTx) };
      };
      const deposit = await signDeposit(1n);
      await addTransferTx(ballast.db, w.transferId, {
        stepId: 'deposit',
        itemIndex: 0,
        chainId: 31001,
        request: signedTxRecord(deposit),
        txHash: deposit.txHash,
        rawTx: deposit.rawTx,
        nowMs: Date.now(),
      });
      await w.alpha.sendRawTransaction({ serializedTransaction: deposit.rawTx });
      const sped = await signDeposit(2n);
      await w.alpha.sendRawTransaction({ serializedTransaction: sped.rawTx });
      await new Promise((r) => setTimeout(r, 3_000)); // the order deadline passes
      sandbox.setFaults({ quoteDeadlineSec: 600 });
      expect(await usdcBalance(sandbox, 'alpha')).toBe(90_000n * USDC); // nothing mined yet

      for (let i = 0; i < 4 && ['prepared', 'broadcast'].includes((await getTransfer(ballast.db, w.transferId))!.status); i++) {
        await ballast.runCycle('once');
        skewMs += ABSENCE_RECHECK_MS + 1_000;
      }
      const transfer = (await getTransfer(ballast.db, w.transferId))!;
      // Mined after its deadline, the deposit is not filled by the sandbox's solver: tracked, and still credited.
      expect(transfer.status).toBe('deposited');
      expect(transfer.txs.map((t) => [t.stepId, t.txHash, t.status])).toEqual([
        ['approve', w.approve.txHash, 'confirmed'],
        ['deposit', deposit.txHash, 'signed'], // replaced before it was mined: stays as written ahead
        ['deposit:replacement', sped.txHash, 'confirmed'],
      ]);
      // The order was paid once, by the speed-up; no other transfer was planned while it was in flight.
      expect(await listRecentTransfers(ballast.db, 10)).toHaveLength(1);
      expect(await usdcBalance(sandbox, 'alpha')).toBe(70_000n * USDC);
    } finally {
      await ballast.close();
    }
  });
});
