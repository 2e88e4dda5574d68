/**
 * How Solana and Bitcoin deposits live through several cycles of Ballast's real pipeline on the sandbox:
 * - a Bitcoin deposit sits in the mempool (the request `pending`) until mined, and becomes `success` only under
 *   the confirmations policy: one block, two for a high-value transfer;
 * - a Solana deposit whose send was lost and whose blockhash then expired is proven unable to land (no deposit for
 *   its order, twice, 15 s apart) before its funds are planned again: one deposit in total, never two.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ABSENCE_RECHECK_MS } from '../../../packages/ballast/src/cycle/reconcile.ts';
import type { Sandbox } from '../../../packages/sandbox/src/startSandbox.ts';
import { getTransfer, listRecentTransfers } from '../../../packages/ballast/src/store/transfers.ts';
import { sandboxPerTest, tempDir } from '../helpers/sandboxBallast.ts';
import { NON_EVM_CONFIG, oneTransferTreasury } from './treasury.ts';

const sb = sandboxPerTest();
const tmp = tempDir('ballast-nonevm-life-');
afterAll(() => tmp.cleanup());

async function relayStatus(s: Sandbox, requestId: string): Promise<string> {
  const body = (await (await fetch(`${s.apiUrl}/intents/status/v3?requestId=${requestId}`)).json()) as { status: string };
  return body.status;
}

/** Runs cycles (each reads the request's status once) until the transfer is final, at most `tries` of them. */
async function cyclesUntilFinal(
  t: { ballast: { runCycle(mode: 'once'): Promise<unknown>; db: Parameters<typeof getTransfer>[0] } },
  id: number,
  tries = 10,
): Promise<string> {
  for (let i = 0; i < tries; i++) {
    await t.ballast.runCycle('once');
    const status = (await getTransfer(t.ballast.db, id))!.status;
    if (['success', 'failure', 'refund', 'origin_failed'].includes(status)) return status;
    await new Promise((r) => setTimeout(r, 300));
  }
  return (await getTransfer(t.ballast.db, id))!.status;
}

const bitcoinChain = (extra: Record<string, unknown>) => {
  const chains = NON_EVM_CONFIG.chains as Record<string, Record<string, unknown>>;
  return { ...chains, bitcoin: { ...chains.bitcoin, inclusionWaitSec: 1, ...extra } };
};

describe('a Bitcoin deposit and the confirmations policy', () => {
  it('stays pending in the mempool, and succeeds after one block', async () => {
    const s = await sb.start({ solana: true, bitcoin: true, bitcoinBlockMs: 0 });
    const t = await oneTransferTreasury(s, tmp.dir, {
      asset: 'BTC',
      from: 'bitcoin',
      to: 'alpha',
      amount: 10_000_000n,
      reserve: 100_000n,
      chains: bitcoinChain({}),
      tracking: { pollMs: 200, timeoutSec: 10 },
    });
    try {
      const first = await t.ballast.runCycle('once');
      expect(first.attempts[0]!.outcome).toBe('in_flight');
      const [row] = await listRecentTransfers(t.ballast.db, 1);
      expect(row!.status).toBe('broadcast'); // sent, in the mempool, not mined
      expect(s.bitcoin!.node.mempoolTxids()).toContain(row!.txs[0]!.txHash);
      expect(await relayStatus(s, row!.requestId!)).toBe('pending'); // the service sees it at mempool time
      const again = await t.ballast.runCycle('once'); // nothing new is planned while it is in flight
      expect(again.plan.transfers).toEqual([]);
      expect(s.bitcoin!.node.mempoolTxids()).toEqual([row!.txs[0]!.txHash]);

      s.bitcoin!.node.mine(1);
      expect(await cyclesUntilFinal(t, row!.id)).toBe('success');
      const done = (await getTransfer(t.ballast.db, row!.id))!;
      expect((await t.to.balance()) - t.toBefore >= done.minOut).toBe(true);
    } finally {
      await t.ballast.close();
    }
  });

  it('waits for a second block when the transfer is high value', async () => {
    const s = await sb.start({ solana: true, bitcoin: true, bitcoinBlockMs: 0, bitcoinHighValueSats: 5_000_000n });
    const t = await oneTransferTreasury(s, tmp.dir, {
      asset: 'BTC',
      from: 'bitcoin',
      to: 'alpha',
      amount: 10_000_000n,
      reserve: 100_000n,
      chains: bitcoinChain({ highValueSats: '5000000', highValueConfirmations: 2 }),
      tracking: { pollMs: 200, timeoutSec: 10 },
    });
    try {
      await t.ballast.runCycle('once');
      const [row] = await listRecentTransfers(t.ballast.db, 1);
      s.bitcoin!.node.mine(1);
      // Mined once: tracked, never filled, however many cycles look (the fill needs a second block).
      expect(await cyclesUntilFinal(t, row!.id, 4)).toBe('deposited');
      expect(await relayStatus(s, row!.requestId!)).not.toBe('success');
      s.bitcoin!.node.mine(1);
      expect(await cyclesUntilFinal(t, row!.id)).toBe('success');
    } finally {
      await t.ballast.close();
    }
  });
});

describe('a Solana deposit whose blockhash expired', () => {
  it('is proven unable to land before its funds move again: one deposit, never two', async () => {
    const s = await sb.start({ solana: true, bitcoin: true, bitcoinBlockMs: 0 });
    const node = s.solana!.node;
    let clock = Date.now();
    const t = await oneTransferTreasury(
      s,
      tmp.dir,
      { asset: 'USDC', from: 'solana', to: 'alpha', amount: 1_000_000_000n, tracking: { pollMs: 200, timeoutSec: 10 } },
      { now: () => clock },
    );
    try {
      node.dropNextSends(1); // the node answers the signature but the transaction never lands
      const cycle = t.ballast.runCycle('once');
      // Once the deposit was sent, its blockhash expires (as 150 blocks would do on a cluster).
      for (let i = 0; i < 100 && (await listRecentTransfers(t.ballast.db, 1))[0]?.status !== 'broadcast'; i++)
        await new Promise((r) => setTimeout(r, 50));
      node.expireBlockhashes();
      const first = await cycle;
      expect(first.attempts[0]!.outcome).toBe('in_flight');
      const [lost] = await listRecentTransfers(t.ballast.db, 1);
      expect(lost!.status).toBe('broadcast');

      // First proof of absence: recorded, nothing re-planned yet.
      const second = await t.ballast.runCycle('once');
      expect(second.plan.transfers).toEqual([]);
      expect((await getTransfer(t.ballast.db, lost!.id))!.status).toBe('broadcast');

      // A second proof, 15 s later, fails the transfer; the same cycle plans the move again and it goes through.
      clock += ABSENCE_RECHECK_MS + 1_000;
      const third = await t.ballast.runCycle('once');
      expect((await getTransfer(t.ballast.db, lost!.id))!.status).toBe('origin_failed');
      expect(third.attempts[0]!.outcome, third.attempts[0]!.error).toBe('success');

      const ours = node.listDeposits().filter((d) => d.event.depositor === s.solana!.treasury.address);
      expect(ours).toHaveLength(1); // exactly one deposit landed for the two quotes
      expect(t.fromBefore - (await t.from.balance())).toBe(1_000_000_000n); // the treasury paid once
    } finally {
      await t.ballast.close();
    }
  });
});
