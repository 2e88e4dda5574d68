/**
 * Refunds that come back by themselves, on each VM (https://docs.relay.link/references/api/api_core_concepts/refunds):
 * Ballast quotes with `refundTo` = its origin wallet; the sandbox's `refund` fault makes the solver return the
 * deposit on the origin chain to that `refundTo` instead of filling; Ballast closes the transfer `refund`, follows
 * the refund to its origin-chain transaction, and stores the refunded amount. The origin wallet's balance rises by
 * exactly that amount after the deposit left it.
 */
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../packages/sandbox/src/startSandbox.ts';
import { getTransfer, listRecentTransfers } from '../../../packages/ballast/src/store/transfers.ts';
import type { TransferRow } from '../../../packages/ballast/src/store/transferRows.ts';
import { sandboxPerTest, tempDir } from '../helpers/sandboxBallast.ts';
import { NON_EVM_CONFIG, oneTransferTreasury } from './treasury.ts';

const sb = sandboxPerTest();
const tmp = tempDir('ballast-nonevm-refunds-');

type Wired = Awaited<ReturnType<typeof oneTransferTreasury>>;

/** Runs cycles until the (only) transfer is final and its refund followed up; returns it. */
async function untilRefundFollowed(t: Wired, tries = 20): Promise<TransferRow> {
  for (let i = 0; i < tries; i++) {
    await t.ballast.runCycle('once');
    const [row] = await listRecentTransfers(t.ballast.db, 1);
    if (row && row.refund !== null) return row;
    if (row && ['success', 'origin_failed'].includes(row.status)) throw new Error(`transfer ended ${row.status}`);
    await new Promise((r) => setTimeout(r, 300));
  }
  const [row] = await listRecentTransfers(t.ballast.db, 1);
  throw new Error(`no refund follow-up after ${tries} cycles: ${row?.status}`);
}

/** The sandbox's GET /requests/v3 record of a request. */
async function record(
  s: Sandbox,
  requestId: string,
): Promise<{ refundTo: unknown; data: { outTxs: { txHash: string; chainId: number }[] } }> {
  const body = (await (await fetch(`${s.apiUrl}/requests/v3?id=${requestId}`)).json()) as {
    requests: { refundTo: unknown; data: { outTxs: { txHash: string; chainId: number }[] } }[];
  };
  return body.requests[0]!;
}

const bitcoinChain = () => {
  const chains = NON_EVM_CONFIG.chains as Record<string, Record<string, unknown>>;
  return { ...chains, bitcoin: { ...chains.bitcoin, inclusionWaitSec: 1 } };
};

describe('a fill forced to fail is refunded to the origin wallet and closed `refund` with the amount', () => {
  it('EVM origin (alpha USDC → Solana): the USDC comes back to the treasury on alpha', async () => {
    const s = await sb.start({ solana: true, bitcoin: true });
    s.setFaults({ refund: true, fillDelayMs: 0 });
    const amount = 1_000_000_000n;
    const t = await oneTransferTreasury(s, tmp.dir, {
      asset: 'USDC',
      from: 'alpha',
      to: 'solana',
      amount,
      tracking: { pollMs: 200, timeoutSec: 15 },
    });
    try {
      const row = await untilRefundFollowed(t);
      expect(row.status).toBe('refund');
      expect(row.user.toLowerCase()).toBe(s.accounts.treasury.address.toLowerCase());
      expect(row.refund).toMatchObject({ amount: row.amountIn, failReason: null });
      const rec = await record(s, row.requestId!);
      expect(String(rec.refundTo).toLowerCase()).toBe(row.user.toLowerCase());
      expect(row.refund!.txHash).toBe(rec.data.outTxs.find((o) => o.chainId === row.originChainId)!.txHash);
      // The deposit left (fromBefore − amountIn) and the refund brought back exactly the stored amount.
      expect((await t.from.balance()) - (t.fromBefore - row.amountIn)).toBe(row.refund!.amount);
      expect(await t.to.balance()).toBe(t.toBefore);
      expect(await t.ballast.metrics.registry.metrics()).toMatch(
        /ballast_refunds_total\{chain="alpha",outcome="refunded",reason="none"\} 1/,
      );
    } finally {
      await t.ballast.close();
    }
  });

  it('Solana origin (USDC → alpha): the USDC comes back to the Solana treasury', async () => {
    const s = await sb.start({ solana: true, bitcoin: true });
    s.setFaults({ refund: true, fillDelayMs: 0 });
    const amount = 100_000_000n;
    const t = await oneTransferTreasury(s, tmp.dir, {
      asset: 'USDC',
      from: 'solana',
      to: 'alpha',
      amount,
      tracking: { pollMs: 200, timeoutSec: 15 },
    });
    try {
      const row = await untilRefundFollowed(t);
      expect(row.status).toBe('refund');
      expect(row.user).toBe(s.solana!.treasury.address);
      expect(row.refund).toMatchObject({ amount: row.amountIn, failReason: null });
      expect((await record(s, row.requestId!)).refundTo).toBe(row.user);
      expect((await t.from.balance()) - (t.fromBefore - row.amountIn)).toBe(row.refund!.amount);
      expect(await t.to.balance()).toBe(t.toBefore);
    } finally {
      await t.ballast.close();
    }
  });

  it('Bitcoin origin (BTC → alpha): the deposit is swept back to the treasury, less the refund fee', async () => {
    const s = await sb.start({ solana: true, bitcoin: true });
    s.setFaults({ refund: true, fillDelayMs: 0 });
    const t = await oneTransferTreasury(s, tmp.dir, {
      asset: 'BTC',
      from: 'bitcoin',
      to: 'alpha',
      amount: 10_000_000n,
      reserve: 100_000n,
      chains: bitcoinChain(),
      tracking: { pollMs: 200, timeoutSec: 15 },
    });
    try {
      const row = await untilRefundFollowed(t, 40);
      expect(row.status).toBe('refund');
      expect(row.user).toBe(s.bitcoin!.treasury.address);
      expect((await record(s, row.requestId!)).refundTo).toBe(row.user);
      const refunded = row.refund!.amount!;
      expect(refunded).toBeGreaterThan(row.amountIn - 10_000n); // the deposit, less a small sweep fee
      expect(refunded).toBeLessThan(row.amountIn);
      // The refund transaction on the Bitcoin node pays the treasury exactly the stored amount.
      const tx = (await (await fetch(`${s.bitcoin!.node.url}/tx/${row.refund!.txHash}`)).json()) as {
        vout: { scriptpubkey_address?: string; value: number }[];
      };
      const paid = tx.vout.filter((o) => o.scriptpubkey_address === row.user).reduce((sum, o) => sum + BigInt(o.value), 0n);
      expect(paid).toBe(refunded);
      // The treasury lost the deposit and its miner fee, and got the refund back.
      const deposit = (await (await fetch(`${s.bitcoin!.node.url}/tx/${row.txs.at(-1)!.txHash}`)).json()) as { fee: number };
      expect((await t.from.balance()) - (t.fromBefore - row.amountIn - BigInt(deposit.fee))).toBe(refunded);
      expect((await getTransfer(t.ballast.db, row.id))!.refund!.failReason).toBeNull();
    } finally {
      await t.ballast.close();
    }
  });
});
