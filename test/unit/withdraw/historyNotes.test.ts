/**
 * The notes `ballast history` prints for transfers that need an operator's eye: stalled (and why), a Bitcoin deposit
 * being cancelled, failed (and whether the
 * route is paused), refunded, withdrawn, and a withdrawal under way or given up, each with its reason, and the
 * remainder still open of one that came back short.
 */
import { describe, expect, it } from 'vitest';
import { transferNotes } from '../../../packages/ballast/src/cli/historyNotes.ts';
import type { TransferRow } from '../../../packages/ballast/src/store/transferRows.ts';
import type { WithdrawalRow } from '../../../packages/ballast/src/store/withdrawals.ts';

function row(over: Partial<TransferRow>): TransferRow {
  return {
    id: 1,
    cycleId: 1,
    quoteId: 1,
    asset: 'USDC',
    originChain: 'alpha',
    originChainId: 31001,
    originCurrency: '0xa',
    destinationChain: 'beta',
    destinationChainId: 31002,
    destinationCurrency: '0xb',
    user: '0xu',
    recipient: '0xu',
    amountIn: 1n,
    expectedOut: 1n,
    minOut: 1n,
    requestId: '0xr',
    orderId: '0xo',
    feesUsd: null,
    status: 'deposited',
    relayStatus: null,
    outTxHashes: [],
    error: null,
    createdAtMs: 0,
    updatedAtMs: 0,
    stalledAtMs: null,
    resolvedAtMs: null,
    resolution: null,
    absenceProof: null,
    refund: null,
    txs: [],
    cancels: [],
    events: [],
    ...over,
  };
}
const event = (fromStatus: TransferRow['status'] | null, toStatus: TransferRow['status'], detail: string) => ({
  id: 1,
  fromStatus,
  toStatus,
  atMs: 5,
  detail,
});

describe('transferNotes', () => {
  it('says why a transfer is stalled, failed, refunded or withdrawn', () => {
    expect(transferNotes(row({}), undefined)).toEqual([]);
    expect(transferNotes(row({ stalledAtMs: 0 }), undefined)).toEqual(['stalled since 1970-01-01T00:00:00.000Z']);
    const atCap = row({
      status: 'broadcast',
      stalledAtMs: 0,
      events: [
        event('broadcast', 'broadcast', 'stalled: broadcast for over 1800 s'),
        event('broadcast', 'broadcast', 'stalled: a cancel must pay at least 10110 sat (BIP-125)'),
      ],
      cancels: [{ txHash: 'c1', status: 'sent' } as TransferRow['cancels'][number]], // the fields the note reads
    });
    expect(transferNotes(atCap, undefined)).toEqual([
      'stalled since 1970-01-01T00:00:00.000Z: a cancel must pay at least 10110 sat (BIP-125)',
      'deposit cancelled: 1 cancel(s) signed, the last c1 (sent)',
    ]);
    const failed = row({ status: 'failure', events: [event('deposited', 'failure', 'closed; failReason SOLVER_CAPACITY_EXCEEDED')] });
    expect(transferNotes(failed, undefined)).toEqual([
      'failed: closed; failReason SOLVER_CAPACITY_EXCEEDED',
      'deposit still in the depository; route paused until resolved',
    ]);
    expect(transferNotes({ ...failed, resolvedAtMs: 9, resolution: 'withdrawn: job j, transaction 0xt' }, undefined)[1]).toBe(
      'resolved: withdrawn: job j, transaction 0xt',
    );
    expect(transferNotes(row({ status: 'refund', events: [event('deposited', 'refund', 'refunded on origin')] }), undefined)).toEqual([
      'refunded: refunded on origin',
      'refund not followed up yet (amount unknown)',
    ]);
    expect(transferNotes(row({ status: 'withdrawn', resolution: 'withdrawn: job j, transaction 0xt' }), undefined)).toEqual([
      'withdrawn: job j, transaction 0xt',
    ]);
    expect(transferNotes(row({ status: 'origin_failed', error: 'deposit reverted' }), undefined)).toEqual([
      'origin failed: deposit reverted',
    ]);
  });

  it('adds a withdrawal under way or given up, with its job and reason', () => {
    const w = { state: 'processing', jobId: 'job-1', jobStatus: 'attesting', reason: null } as WithdrawalRow; // the fields the note reads
    expect(transferNotes(row({ stalledAtMs: 0 }), w)).toEqual([
      'stalled since 1970-01-01T00:00:00.000Z',
      'withdrawal processing (job job-1 attesting)',
    ]);
    const gaveUp = { state: 'failed', jobId: null, jobStatus: null, reason: 'WITHDRAWAL_GAVE_UP: job x failed' } as WithdrawalRow; // as above
    expect(transferNotes(row({}), gaveUp)).toEqual(['withdrawal failed: WITHDRAWAL_GAVE_UP: job x failed']);
    expect(transferNotes(row({ status: 'withdrawn', resolution: 'withdrawn: r' }), { state: 'executed' } as WithdrawalRow)).toEqual([
      'withdrawn: r',
    ]); // as above
  });

  it('shows the remainder still open of a withdrawal that came back short, and none once all is back', () => {
    const short = {
      state: 'attested',
      jobId: null,
      jobStatus: null,
      reason: 'short return: 25 of 100 still open',
      amount: 100n,
      receivedAmount: 75n,
    } as WithdrawalRow; // the fields the notes read
    expect(transferNotes(row({}), short)).toEqual([
      'withdrawal attested: short return: 25 of 100 still open',
      'withdrawal came back short: 75 of 100 back, 25 still open in the hub',
    ]);
    // With the input's decimals, whole units with the symbol, as history shows amounts.
    expect(transferNotes(row({}), short, 2)[1]).toBe(
      `withdrawal came back short: 0.75 ${row({}).asset} of 1 ${row({}).asset} back, 0.25 ${row({}).asset} still open in the hub`,
    );
    expect(transferNotes(row({}), { ...short, receivedAmount: 0n })).toEqual(['withdrawal attested: short return: 25 of 100 still open']);
    expect(
      transferNotes(row({ status: 'withdrawn', resolution: 'withdrawn: r' }), { ...short, state: 'executed', receivedAmount: 100n }),
    ).toEqual(['withdrawn: r']);
  });
});
