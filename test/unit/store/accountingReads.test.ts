/**
 * What `ballast export` reads, on SQLite and PostgreSQL: finished transfers with activity in the period (a close, a
 * refund follow-up or a withdrawal's end at or after its start, created before its end), in-flight ones left out,
 * each with its deposit transaction, ledger entry, withdrawal and stored quote; more transfers than one page of
 * reads holds.
 */
import { beforeEach, expect, it } from 'vitest';
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import { listTransferFacts } from '../../../packages/ballast/src/store/accountingReads.ts';
import { startCycle } from '../../../packages/ballast/src/store/cycles.ts';
import { insertLedgerEntry } from '../../../packages/ballast/src/store/ledger.ts';
import { recordQuote } from '../../../packages/ballast/src/store/quotes.ts';
import { recordRefund } from '../../../packages/ballast/src/store/refunds.ts';
import { createTransfer, markTxConfirmed, transitionTransfer, type TransferStatus } from '../../../packages/ballast/src/store/transfers.ts';
import { createWithdrawal, failWithdrawal } from '../../../packages/ballast/src/store/withdrawals.ts';
import { describeEachEngine } from '../../helpers/storeEngines.ts';
import { ledger } from '../accounting/fixtures.ts';
import { newTransfer } from './helpers.ts';

const QUOTE = { steps: [], details: { currencyIn: { amount: '100000000' }, currencyOut: { amount: '99000000' } } };

describeEachEngine('accounting reads', (engine) => {
  let db: StoreDb;
  let cycleId: number;
  let n = 0;
  beforeEach(async () => {
    db = await engine.open();
    cycleId = await startCycle(db, { mode: 'once', startedAtMs: 1_000 });
  });

  /** A transfer created at `createdAtMs`, deposited and moved to `status` at `closedAtMs` (a ledger entry for it when final). */
  async function transferClosed(status: TransferStatus, createdAtMs: number, closedAtMs: number): Promise<number> {
    n += 1;
    const quoteId = await recordQuote(db, {
      cycleId,
      planId: null,
      requestId: null,
      orderId: null,
      request: {},
      raw: QUOTE,
      receivedAtMs: createdAtMs,
    });
    const { transferId, txIds } = await createTransfer(
      db,
      await newTransfer(db, { cycleId, quoteId, requestId: `0x${n.toString(16).padStart(64, '0')}`, nowMs: createdAtMs }),
    );
    await markTxConfirmed(db, txIds[1]!, { status: 'confirmed', blockNumber: 5, nowMs: createdAtMs + 10 });
    await transitionTransfer(db, transferId, 'prepared', 'broadcast', { nowMs: createdAtMs + 10 });
    await transitionTransfer(db, transferId, 'broadcast', 'deposited', { nowMs: createdAtMs + 20 });
    if (status !== 'deposited') await transitionTransfer(db, transferId, 'deposited', status, { nowMs: closedAtMs });
    if (status === 'success' || status === 'failure' || status === 'refund') {
      await insertLedgerEntry(db, ledger({ transferId, status, settledAtMs: closedAtMs }), closedAtMs);
    }
    return transferId;
  }

  it('reads the finished transfers with activity in the period, each with its deposit, ledger entry and quote', async () => {
    const before = await transferClosed('success', 1_000, 5_000); // closed before the period
    const inside = await transferClosed('success', 1_000, 15_000);
    const refunded = await transferClosed('refund', 1_000, 5_000); // closed before, refund followed up inside
    await recordRefund(db, refunded, { amount: 99_000_000n, txHash: '0xrefund', failReason: null, nowMs: 12_000 });
    const failed = await transferClosed('failure', 1_000, 5_000); // closed before, its withdrawal ended inside
    const wId = await createWithdrawal(db, {
      transferId: failed,
      requestId: '0xreq',
      chain: 'base',
      chainId: 8453,
      chainSlug: 'base',
      wallet: 'treasury',
      owner: '0xo',
      recipient: '0xo',
      currency: '0xc',
      amount: 100_000_000n,
      depositTx: `0x${'22'.repeat(32)}`,
      nowMs: 6_000,
    });
    await failWithdrawal(db, wId, { reason: 'WITHDRAWAL_GAVE_UP: test', nowMs: 13_000 });
    await transferClosed('deposited', 1_000, 11_000); // in flight
    await transferClosed('success', 21_000, 22_000); // created after the period

    const facts = await listTransferFacts(db, 10_000, 20_000);
    expect(facts.map((f) => f.transfer.id)).toEqual([inside, refunded, failed]);
    expect(facts.map((f) => f.transfer.id)).not.toContain(before);
    const [f, r, w] = facts;
    expect(f!.depositTx).toMatchObject({ stepId: 'deposit', status: 'confirmed', txHash: `0x${'22'.repeat(32)}` });
    expect(f!.ledger).toMatchObject({ transferId: inside, status: 'success', receivedOut: 99_000_000n, gasPaid: 123_456_789_000_000n });
    expect(f!.ledger!.fees).toEqual({ execution: 200_000n, swap: 0n, platform: 600_000n, app: 200_000n });
    expect(f!.quoteRaw).toEqual(QUOTE);
    expect(f!.withdrawal).toBeNull();
    expect(r!.transfer.refund).toMatchObject({ amount: 99_000_000n, txHash: '0xrefund', checkedAtMs: 12_000 });
    expect(w!.withdrawal).toMatchObject({ id: wId, state: 'failed', finishedAtMs: 13_000 });
  });

  it('reads past one page of transfers (500 per query)', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 503; i++) ids.push(await transferClosed('success', 1_000, 15_000));
    const facts = await listTransferFacts(db, 10_000, 20_000);
    expect(facts.map((f) => f.transfer.id)).toEqual(ids);
    expect(facts.every((f) => f.ledger !== null && f.quoteRaw !== null)).toBe(true);
  }, 120_000);
});
