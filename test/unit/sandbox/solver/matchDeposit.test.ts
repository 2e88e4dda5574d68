import { describe, expect, it } from 'vitest';
import { RequestStore, type ObservedDeposit } from '../../../../packages/sandbox/src/api/requestStore.ts';
import { matchDeposit } from '../../../../packages/sandbox/src/solver/matchDeposit.ts';
import { SerialQueue } from '../../../../packages/sandbox/src/solver/serialQueue.ts';
import { build, NOW_SEC, USDC, USER } from '../quote/fixtures.ts';

async function setup() {
  const store = new RequestStore();
  const { order } = await build();
  const record = store.addQuote(order, 1_000);
  const deposit: ObservedDeposit = {
    chainId: 31001,
    txHash: `0x${'12'.repeat(32)}`,
    logIndex: 0,
    blockNumber: 5n,
    blockTimestamp: NOW_SEC + 10,
    from: USER,
    currency: USDC,
    amount: order.amountIn,
    id: order.orderId,
  };
  return { store, order, record, deposit };
}

describe('matchDeposit', () => {
  it('fills an exact deposit for a waiting order', async () => {
    const { record, deposit, store } = await setup();
    expect(matchDeposit(deposit, store.byOrderId(deposit.id))).toEqual({ kind: 'fill', record });
  });

  it.each([
    ['WRONG_CHAIN', 'DEPOSIT_CHAIN_MISMATCH', { chainId: 31002 }],
    ['WRONG_DEPOSITOR', 'UNKNOWN', { from: '0x1111111111111111111111111111111111111111' }],
    ['WRONG_CURRENCY', 'INCORRECT_DEPOSIT_CURRENCY', { currency: '0x0000000000000000000000000000000000000000' }],
    ['WRONG_AMOUNT', 'DEPOSITED_AMOUNT_TOO_LOW_TO_FILL', { amount: 999_999_999n }],
    ['WRONG_AMOUNT', 'DEPOSITED_AMOUNT_TOO_LOW_TO_FILL', { amount: 1n }],
    ['WRONG_AMOUNT', 'UNKNOWN', { amount: 1_000_000_001n }],
  ] as const)(
    'leaves a %s deposit unfilled (published failReason %s) without handing out the order record',
    async (reason, failReason, patch) => {
      const { order, deposit, store } = await setup();
      const d = { ...deposit, ...patch };
      const decision = matchDeposit(d, store.byOrderId(d.id));
      expect(decision).toEqual({ kind: 'unfilled', reason, failReason, claimed: order });
      expect(decision).not.toHaveProperty('record');
    },
  );

  it('judges expiry by the block timestamp of the deposit, not by when it is indexed', async () => {
    const { record, deposit, order } = await setup();
    expect(matchDeposit({ ...deposit, blockTimestamp: order.deadlineSec }, record)).toEqual({ kind: 'fill', record });
    expect(matchDeposit({ ...deposit, blockTimestamp: order.deadlineSec + 1 }, record)).toMatchObject({
      kind: 'unfilled',
      reason: 'ORDER_EXPIRED',
      failReason: 'ORDER_EXPIRED',
    });
  });

  it('leaves unknown ids and second deposits unfilled', async () => {
    const { record, deposit, store } = await setup();
    expect(matchDeposit({ ...deposit, id: `0x${'77'.repeat(32)}` }, undefined)).toEqual({
      kind: 'unfilled',
      reason: 'UNKNOWN_ORDER',
      failReason: 'UNKNOWN',
      claimed: null,
    });
    store.advance(record, 'pending', { inTxHashes: [deposit.txHash] }, 2_000);
    expect(matchDeposit(deposit, record)).toMatchObject({ kind: 'unfilled', reason: 'DOUBLE_SPEND', failReason: 'DOUBLE_SPEND' });
  });

  it("a stranger's deposit under the victim's order id gets its own record; the order still fills", async () => {
    const { record, deposit, store } = await setup();
    const stranger = {
      ...deposit,
      from: '0x2222222222222222222222222222222222222222' as const,
      amount: 1n,
      txHash: `0x${'34'.repeat(32)}` as const,
    };
    expect(matchDeposit(stranger, store.byOrderId(stranger.id)).kind).toBe('unfilled');
    const own = store.addUnmatchedDeposit(`0x${'56'.repeat(32)}`, stranger, 2_000);
    expect(own.requestId).not.toBe(record.requestId);
    expect(store.byOrderId(deposit.id)).toBe(record); // the order id still names the victim's request
    expect(record.status).toBe('waiting');
    expect(matchDeposit(deposit, store.byOrderId(deposit.id))).toEqual({ kind: 'fill', record });
  });
});

describe('RequestStore transitions', () => {
  it('only moves forward and never leaves a terminal status', async () => {
    const { record, store } = await setup();
    const seen: string[] = [];
    store.onChange((r) => seen.push(r.status));
    expect(store.advance(record, 'pending', {}, 2_000)).toBe(true);
    expect(store.advance(record, 'waiting', {}, 3_000)).toBe(false);
    expect(store.advance(record, 'pending', {}, 3_000)).toBe(false);
    expect(store.advance(record, 'delayed', {}, 3_500)).toBe(true);
    expect(store.advance(record, 'pending', {}, 3_600)).toBe(false); // delayed sits after pending
    expect(store.advance(record, 'submitted', { txHashes: [`0x${'ee'.repeat(32)}`] }, 4_000)).toBe(true);
    expect(store.advance(record, 'delayed', {}, 4_500)).toBe(false); // and before submitted
    expect(store.advance(record, 'success', {}, 5_000)).toBe(true);
    expect(store.advance(record, 'refund', {}, 6_000)).toBe(false);
    expect(record.status).toBe('success');
    expect(record.updatedAtMs).toBe(5_000);
    expect(seen).toEqual(['pending', 'delayed', 'submitted', 'success']);
  });
});

describe('SerialQueue', () => {
  it('runs tasks of one key one at a time in order, even after a failure', async () => {
    const q = new SerialQueue();
    const log: string[] = [];
    const task =
      (name: string, ms: number, fail = false) =>
      async () => {
        log.push(`start ${name}`);
        await new Promise((r) => setTimeout(r, ms));
        log.push(`end ${name}`);
        if (fail) throw new Error(name);
        return name;
      };
    const a = q.run(1, task('a', 20, true));
    const b = q.run(1, task('b', 1));
    const c = q.run(2, task('c', 1));
    await expect(a).rejects.toThrow('a');
    expect(await b).toBe('b');
    expect(await c).toBe('c');
    expect(log.indexOf('end a')).toBeLessThan(log.indexOf('start b'));
    expect(log.indexOf('start c')).toBeLessThan(log.indexOf('end a'));
  });
});
