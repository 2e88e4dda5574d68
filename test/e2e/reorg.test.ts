/**
 * A reorg that removes a confirmed deposit before it is final (`chains.<name>.confirmations`): the next cycle
 * notices the receipt is gone, takes the transfer back to `broadcast` and sends the exact recorded transactions
 * again, so the deposit lands once and the transfer is neither stranded nor paid twice.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import { findDepositsForOrder } from '../../packages/ballast/src/chains/evm/findDeposits.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { ballastOnSandbox, sandboxPerTest, tempDir, usdcBalance } from './helpers/sandboxBallast.ts';
import { anvilReorg as reorg } from './helpers/anvilReorg.ts';
import { trackingClock } from './trackingClock.ts';

const USDC = 1_000_000n;
const tmp = tempDir('ballast-reorg-');
afterAll(() => tmp.cleanup());
const sandboxes = sandboxPerTest();

describe('reorg of a confirmed deposit', () => {
  it('sends the recorded transactions again: one deposit on chain, transfer back to deposited, origin debited once', async () => {
    const sandbox = await sandboxes.start({ faults: { neverFill: true } });
    const alpha = sandbox.chains.find((c) => c.def.slug === 'alpha')!;
    const clock = trackingClock();
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, { tracking: { pollMs: 200, timeoutSec: 10 } }, {}, { now: clock.now });
    sandboxes.closeAfter(() => ballast.close());
    const startBlock = await alpha.publicClient.getBlockNumber();

    // The fill never comes: cycle 1 stops tracking at its first status read (the clock moves past its 10 s).
    void clock.timeOutAtNextStatusRead(ballast.relay, 10_000);
    const first = await ballast.runCycle('once');
    expect(clock.aheadMs).toBe(10_000);
    expect(first.attempts.map((a) => a.outcome)).toEqual(['in_flight']);
    const [transfer] = await listRecentTransfers(ballast.db, 5);
    expect(transfer!.status).toBe('deposited');
    const orderId = transfer!.orderId as Hex;
    expect(await findDepositsForOrder(alpha.publicClient, alpha.depository, orderId, 0n)).toHaveLength(1);
    expect(await usdcBalance(sandbox, 'alpha')).toBe(70_000n * USDC);

    const depth = Number((await alpha.publicClient.getBlockNumber()) - startBlock);
    expect(depth).toBeGreaterThan(0);
    expect(depth).toBeLessThan(12); // within the default confirmations: not final yet
    await reorg(alpha.rpcUrl, depth);
    expect(await findDepositsForOrder(alpha.publicClient, alpha.depository, orderId, 0n)).toHaveLength(0);
    expect(await usdcBalance(sandbox, 'alpha')).toBe(90_000n * USDC);

    const second = await ballast.runCycle('once');
    expect(second.attempts).toEqual([]); // the transfer is still credited: nothing new is planned
    const deposits = await findDepositsForOrder(alpha.publicClient, alpha.depository, orderId, 0n);
    expect(deposits).toHaveLength(1);
    expect(deposits[0]!.amount).toBe(transfer!.amountIn);
    expect(await usdcBalance(sandbox, 'alpha')).toBe(70_000n * USDC);
    const after = await listRecentTransfers(ballast.db, 5);
    expect(after).toHaveLength(1);
    expect(after[0]!.status).toBe('deposited');
    expect(after[0]!.events.map((e) => e.toStatus)).toEqual(['prepared', 'broadcast', 'deposited', 'broadcast', 'deposited']);
    expect(after[0]!.txs.map((t) => t.txHash)).toEqual(transfer!.txs.map((t) => t.txHash)); // the same signed bytes
    expect(deposits[0]!.txHash).toBe(transfer!.txs.at(-1)!.txHash);
    expect(await ballast.metrics.registry.metrics()).toMatch(/ballast_origin_reorgs_total\{chain="alpha"\} [1-9]/);

    const third = await ballast.runCycle('once');
    expect(third.attempts).toEqual([]);
    expect(await findDepositsForOrder(alpha.publicClient, alpha.depository, orderId, 0n)).toHaveLength(1);
  });

  it('leaves a transaction as recorded once it is deeper than chains.<name>.confirmations', async () => {
    const sandbox = await sandboxes.start({ faults: { neverFill: true } });
    const alpha = sandbox.chains.find((c) => c.def.slug === 'alpha')!;
    const clock = trackingClock();
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, { tracking: { pollMs: 200, timeoutSec: 10 } }, {}, { now: clock.now });
    sandboxes.closeAfter(() => ballast.close());
    void clock.timeOutAtNextStatusRead(ballast.relay, 10_000);
    await ballast.runCycle('once');
    expect(clock.aheadMs).toBe(10_000);
    const [transfer] = await listRecentTransfers(ballast.db, 5);
    expect(transfer!.status).toBe('deposited');
    await fetch(alpha.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: ['0xc'] }),
    });
    await ballast.runCycle('once');
    const [after] = await listRecentTransfers(ballast.db, 5);
    expect(after!.status).toBe('deposited');
    expect(after!.events).toHaveLength(transfer!.events.length);
    expect(await ballast.metrics.registry.metrics()).not.toMatch(/ballast_origin_reorgs_total\{chain="alpha"\} [1-9]/);
  });
});
