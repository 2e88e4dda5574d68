/**
 * Who a withdrawal pass looks at (candidates) and when a deposit may be attested (eligibility): only when the
 * service's record describes exactly our deposit.
 */
import { describe, expect, it } from 'vitest';
import type { RequestsResponse } from '../../../packages/protocol/src/relay/schemas.ts';
import type { TransferRow } from '../../../packages/ballast/src/store/transferRows.ts';
import type { WithdrawalRow } from '../../../packages/ballast/src/store/withdrawals.ts';
import { depositedSinceMs, selectCandidates } from '../../../packages/ballast/src/withdraw/candidates.ts';
import { judgeEligibility, type OriginFacts } from '../../../packages/ballast/src/withdraw/eligibility.ts';

const USER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const TOKEN = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const DEPOSIT = `0x${'22'.repeat(32)}`;

function transfer(over: Partial<TransferRow> = {}): TransferRow {
  return {
    id: 1,
    cycleId: 1,
    quoteId: 1,
    asset: 'USDC',
    originChain: 'alpha',
    originChainId: 31001,
    originCurrency: TOKEN,
    destinationChain: 'beta',
    destinationChainId: 31002,
    destinationCurrency: TOKEN,
    user: USER,
    recipient: USER,
    amountIn: 25_000_000n,
    expectedOut: 24_900_000n,
    minOut: 24_800_000n,
    requestId: '0xreq',
    orderId: '0xorder',
    feesUsd: '0.1',
    status: 'deposited',
    relayStatus: 'pending',
    outTxHashes: [],
    error: null,
    createdAtMs: 1_000,
    updatedAtMs: 1_000,
    stalledAtMs: null,
    resolvedAtMs: null,
    resolution: null,
    absenceProof: null,
    refund: null,
    txs: [],
    cancels: [],
    events: [
      { id: 1, fromStatus: null, toStatus: 'prepared', atMs: 1_000, detail: 'created' },
      { id: 2, fromStatus: 'broadcast', toStatus: 'deposited', atMs: 5_000, detail: null },
    ],
    ...over,
  };
}

const origin: OriginFacts = { chain: 'alpha', wallet: 'treasury', chainSlug: 'alpha', key: (v) => v.toLowerCase() };

function record(protocol: unknown, id = '0xreq'): RequestsResponse['requests'] {
  return [{ id, status: 'pending', protocol: protocol as Record<string, unknown> }];
}
const withdrawable = (o: Record<string, unknown> = {}) => ({
  isWithdrawable: true,
  deposit: {
    origin: {
      depositor: USER.toLowerCase(),
      chainId: 31001,
      currency: TOKEN.toLowerCase(),
      amount: '25000000',
      transactionId: DEPOSIT.toUpperCase().replace('0X', '0x'),
      ...o,
    },
  },
});

describe('judgeEligibility', () => {
  it('is eligible when the record describes our deposit, and returns the funds to the depositing wallet', () => {
    const v = judgeEligibility(transfer(), DEPOSIT, record(withdrawable()), origin);
    expect(v).toEqual({
      kind: 'eligible',
      fields: {
        chain: 'alpha',
        chainId: 31001,
        chainSlug: 'alpha',
        wallet: 'treasury',
        owner: USER.toLowerCase(),
        recipient: USER.toLowerCase(),
        currency: TOKEN.toLowerCase(),
        amount: 25_000_000n,
        depositTx: DEPOSIT,
      },
    });
    // chainId as a numeric string or as our protocol slug is accepted.
    expect(judgeEligibility(transfer(), DEPOSIT, record(withdrawable({ chainId: '31001' })), origin).kind).toBe('eligible');
    expect(judgeEligibility(transfer(), DEPOSIT, record(withdrawable({ chainId: 'alpha' })), origin).kind).toBe('eligible');
  });

  it('waits while the service does not call it withdrawable', () => {
    expect(judgeEligibility(transfer(), DEPOSIT, [], origin)).toMatchObject({ kind: 'not_withdrawable' });
    expect(judgeEligibility(transfer(), DEPOSIT, record(withdrawable(), '0xother'), origin)).toMatchObject({ kind: 'not_withdrawable' });
    expect(judgeEligibility(transfer(), DEPOSIT, [{ id: '0xreq', status: 'pending' }], origin)).toMatchObject({ kind: 'not_withdrawable' });
    expect(judgeEligibility(transfer(), DEPOSIT, record({ ...withdrawable(), isWithdrawable: false }), origin)).toMatchObject({
      kind: 'not_withdrawable',
      why: 'protocol.isWithdrawable is false (request status pending)',
    });
  });

  it('refuses a record that describes another deposit, naming each difference', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ depositor: '0x0000000000000000000000000000000000000001' }, 'depositor is 0x0000000000000000000000000000000000000001'],
      [{ transactionId: `0x${'33'.repeat(32)}` }, `transactionId is 0x${'33'.repeat(32)}`],
      [{ chainId: 31002 }, 'chainId is 31002'],
      [{ chainId: 'beta' }, 'chainId is "beta"'],
      [{ currency: '0x0000000000000000000000000000000000000000' }, 'currency is 0x0000000000000000000000000000000000000000'],
      [{ amount: '25000001' }, 'amount is 25000001, we deposited 25000000'],
    ];
    for (const [change, text] of cases) {
      const v = judgeEligibility(transfer(), DEPOSIT, record(withdrawable(change)), origin);
      expect(v.kind, text).toBe('mismatch');
      expect(v.kind === 'mismatch' && v.why, text).toContain(text);
    }
    expect(judgeEligibility(transfer(), DEPOSIT, record({ isWithdrawable: true }), origin)).toMatchObject({ kind: 'mismatch' });
    expect(judgeEligibility(transfer(), DEPOSIT, record({ isWithdrawable: 'yes' }), origin)).toMatchObject({ kind: 'mismatch' });
    expect(judgeEligibility(transfer(), DEPOSIT, record(withdrawable({ amount: '-5' })), origin)).toMatchObject({ kind: 'mismatch' });
  });
});

describe('selectCandidates', () => {
  const w = (transferId: number, state: WithdrawalRow['state']) => ({ transferId, state }) as WithdrawalRow; // only these fields are read

  it('takes unresolved failures at once, deposits unfilled long enough, and resumes withdrawals under way', () => {
    const young = transfer({ id: 2 });
    const old = transfer({ id: 3 });
    const failed = transfer({ id: 4, status: 'failure' });
    const resolved = transfer({ id: 5, status: 'failure', resolvedAtMs: 9, resolution: 'ops' });
    const broadcast = transfer({ id: 6, status: 'broadcast' });
    const underWay = transfer({ id: 7, status: 'success' });
    const done = transfer({ id: 8 });
    const refused = transfer({ id: 9, status: 'failure' });
    const withdrawals = new Map([
      [7, w(7, 'processing')],
      [8, w(8, 'executed')],
      [9, w(9, 'failed')],
    ]);
    const nowMs = 5_000 + 3600_000;
    const picked = selectCandidates(
      [old, failed, young, resolved, broadcast, underWay, done, refused].map((t) =>
        t.id === 2 ? { ...t, events: [{ ...t.events[1]!, atMs: 5_001 }] } : t,
      ),
      withdrawals,
      nowMs,
      3600,
    );
    expect(picked.map((c) => [c.transfer.id, c.why])).toEqual([
      [3, 'unfilled'],
      [4, 'failure'],
      [7, 'resume'],
    ]);
    expect(depositedSinceMs(old)).toBe(5_000);
    expect(depositedSinceMs(transfer({ events: [] }))).toBe(1_000);
  });
});
