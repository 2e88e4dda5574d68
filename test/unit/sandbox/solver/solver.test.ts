import { pino } from 'pino';
import type { Address, Hex } from 'viem';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FaultState } from '../../../../packages/sandbox/src/api/faultState.ts';
import { requestJson } from '../../../../packages/sandbox/src/api/records.ts';
import { RequestStore, type RequestRecord } from '../../../../packages/sandbox/src/api/requestStore.ts';
import type { SandboxState } from '../../../../packages/sandbox/src/api/state.ts';
import type { SandboxFaults } from '../../../../packages/sandbox/src/faults.ts';
import type { QuotedOrder } from '../../../../packages/sandbox/src/quote/buildQuote.ts';
import { DEFAULT_SANDBOX_PRICING } from '../../../../packages/sandbox/src/quote/fees.ts';
import { startSolver, type Solver } from '../../../../packages/sandbox/src/solver/solver.ts';
import { build, DEPOSITORY_ALPHA, DEPOSITORY_BETA, NOW_SEC, PRICES, SOLVER, TABLE, USDC, USER, usdcRequest } from '../quote/fixtures.ts';
import { fakeChain, type FakeChain } from './fakeChain.ts';

const STRANGER: Address = '0x2222222222222222222222222222222222222222';
const CTX = { chains: TABLE, prices: PRICES };
const REFUND_TO: Address = '0x3333333333333333333333333333333333333333';

let solver: Solver | undefined;
afterEach(async () => {
  await solver?.stop();
  solver = undefined;
});

interface Rig {
  state: SandboxState;
  alpha: FakeChain;
  beta: FakeChain;
  order: QuotedOrder;
  record: RequestRecord;
  statuses: string[];
}

/** A solver over fake alpha/beta chains with one waiting 1000 USDC alpha → beta quote. */
async function rig(faults: Partial<SandboxFaults> = {}, nowMs = NOW_SEC * 1000): Promise<Rig> {
  const state: SandboxState = {
    chains: TABLE,
    prices: PRICES,
    pricing: DEFAULT_SANDBOX_PRICING,
    solver: SOLVER,
    apiKey: undefined,
    faults: new FaultState({ fillDelayMs: 0, ...faults }),
    requests: new RequestStore(),
    io: { feeData: async () => ({ maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }), balanceOf: async () => 0n },
    indexer: null,
    logger: pino({ level: 'silent' }),
    nowMs: () => nowMs,
  };
  const { order } = await build(usdcRequest({ refundTo: REFUND_TO }));
  const record = state.requests.addQuote(order, nowMs);
  const statuses: string[] = [];
  state.requests.onChange((r) => {
    if (r === record) statuses.push(r.status);
  });
  const alpha = fakeChain(31001, DEPOSITORY_ALPHA);
  const beta = fakeChain(31002, DEPOSITORY_BETA);
  solver = await startSolver({ state, chains: [alpha.chain, beta.chain], pollMs: 10, receiptTimeoutMs: 50 });
  return { state, alpha, beta, order, record, statuses };
}

async function until(what: string, cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const genuine = (r: Rig) => ({ from: USER, token: USDC, amount: r.order.amountIn, id: r.order.orderId });
const ownRecords = (r: Rig) => r.state.requests.all().filter((x) => x !== r.record);

describe('solver: deposits that do not pay their order exactly', () => {
  it("a stranger's 1-unit deposit under the victim's order id stays in the depository on its own record; the victim's deposit then fills", async () => {
    const r = await rig();
    const strangerTx = r.alpha.depositErc20({ from: STRANGER, token: USDC, amount: 1n, id: r.order.orderId }, NOW_SEC);
    await until('the stranger deposit record', () => ownRecords(r).some((x) => x.status === 'failure'));
    const [own] = ownRecords(r);
    expect(own!.requestId).not.toBe(r.record.requestId);
    expect(own!.failReason).toBe('UNKNOWN'); // another depositor: no published reason says it
    expect(own!.inTxHashes).toEqual([strangerTx]);
    expect(requestJson(own!, CTX).protocol).toMatchObject({
      isWithdrawable: true,
      deposit: {
        origin: {
          depositor: STRANGER,
          chainId: 31001,
          amount: '1',
          transactionId: strangerTx,
          depository: DEPOSITORY_ALPHA,
          onchainId: r.order.orderId,
        },
      },
    });
    expect(requestJson(own!, CTX).data).toMatchObject({
      failReason: 'UNKNOWN',
      refundFailReason: null,
      inTxs: [{ txHash: strangerTx, chainId: 31001 }],
    });
    expect(r.alpha.sent).toEqual([]); // nothing returned automatically
    expect(r.record.status).toBe('waiting');

    const victimTx = r.alpha.depositErc20(genuine(r), NOW_SEC);
    await until('the fill', () => r.record.status === 'success');
    expect(r.record.inTxHashes).toEqual([victimTx]);
    expect(r.beta.sent).toHaveLength(1);
    expect(r.beta.sent[0]).toMatchObject({ to: USDC, functionName: 'transfer', args: [r.order.recipient, r.order.expectedOut] });
    expect(r.record.filledAmount).toBe(r.order.expectedOut);
  });

  it('an unknown order id and a second deposit each end failure, withdrawable, with their reason', async () => {
    const r = await rig();
    r.alpha.depositErc20({ ...genuine(r), id: `0x${'77'.repeat(32)}` }, NOW_SEC);
    r.alpha.depositErc20(genuine(r), NOW_SEC);
    await until('the fill', () => r.record.status === 'success');
    r.alpha.depositErc20(genuine(r), NOW_SEC);
    await until('two unfilled records', () => ownRecords(r).filter((x) => x.status === 'failure').length === 2);
    expect(
      ownRecords(r)
        .map((x) => x.failReason)
        .sort(),
    ).toEqual(['DOUBLE_SPEND', 'UNKNOWN']);
    expect(ownRecords(r).every((x) => requestJson(x, CTX).protocol.isWithdrawable)).toBe(true);
    expect(r.beta.sent).toHaveLength(1); // filled once
    expect(r.alpha.sent).toEqual([]);
  });

  it("under the refund fault a mismatched deposit is returned to the named order's refund recipient", async () => {
    const r = await rig({ refund: true });
    r.alpha.depositErc20({ ...genuine(r), amount: 5n }, NOW_SEC);
    await until('the refund', () => ownRecords(r).some((x) => x.status === 'refund'));
    expect(r.alpha.sent).toHaveLength(1);
    expect(r.alpha.sent[0]).toMatchObject({
      to: DEPOSITORY_ALPHA,
      functionName: 'withdrawErc20',
      args: [USDC, REFUND_TO, 5n, r.order.orderId],
    });
    expect(ownRecords(r)[0]!.failReason).toBe('DEPOSITED_AMOUNT_TOO_LOW_TO_FILL');
    const view = requestJson(ownRecords(r)[0]!, CTX);
    expect(view.data.outTxs).toEqual([
      expect.objectContaining({ txHash: r.alpha.sent[0]!.hash, chainId: 31001, status: 'success', fee: '42000', type: 'onchain' }),
    ]);
    expect(view.protocol.settlement.destination).toEqual({
      fills: [],
      refunds: [{ chainId: 31001, transactionId: r.alpha.sent[0]!.hash }],
    });
    expect(r.record.status).toBe('waiting');
  });

  it('judges the deadline by the deposit block timestamp: a deposit mined in time fills although indexed later', async () => {
    const late = (NOW_SEC + 3_600) * 1000; // wall clock well past the 600 s deadline
    const r = await rig({}, late);
    r.alpha.depositErc20(genuine(r), r.order.deadlineSec);
    await until('the fill', () => r.record.status === 'success');
    r.alpha.depositErc20({ ...genuine(r), id: r.order.orderId }, r.order.deadlineSec + 1);
    await until('the expired deposit record', () => ownRecords(r).some((x) => x.failReason === 'ORDER_EXPIRED'));
  });
});

describe('solver: fills', () => {
  it("fillAmount 'minimum' pays exactly minimumAmount", async () => {
    const r = await rig({ fillAmount: 'minimum' });
    r.alpha.depositErc20(genuine(r), NOW_SEC);
    await until('the fill', () => r.record.status === 'success');
    expect(r.beta.sent[0]!.args).toEqual([r.order.recipient, r.order.minimumOut]);
    expect(r.record.filledAmount).toBe(r.order.minimumOut);
    expect(r.order.minimumOut).toBeLessThan(r.order.expectedOut);
  });

  it('receipt errors after the broadcast keep the request submitted until the receipt arrives', async () => {
    const r = await rig();
    r.beta.receiptPlan.push('error', 'error', 'error');
    r.alpha.depositErc20(genuine(r), NOW_SEC);
    await until('two failed receipt waits', () => r.beta.receiptWaits >= 2);
    expect(r.record.status).toBe('submitted');
    await until('the fill', () => r.record.status === 'success');
    expect(r.statuses).toEqual(['pending', 'submitted', 'success']);
    expect(r.beta.receiptWaits).toBe(4);
    expect(r.beta.sent).toHaveLength(1); // never re-sent
  });

  it('only a mined reverted receipt fails the fill', async () => {
    const r = await rig();
    r.beta.receiptPlan.push('error', 'reverted');
    r.alpha.depositErc20(genuine(r), NOW_SEC);
    await until('the failure', () => r.record.status === 'failure');
    expect(r.record.failReason).toBe('TRANSACTION_REVERTED');
    expect(r.statuses).toEqual(['pending', 'submitted', 'failure']);
    const view = requestJson(r.record, CTX);
    expect(view.data).toMatchObject({
      failReason: 'TRANSACTION_REVERTED',
      failedTxHash: r.beta.sent[0]!.hash,
      outTxs: [{ status: 'failure' }],
    });
    expect(view.protocol).toMatchObject({ isWithdrawable: true, settlement: { destination: { fills: [], refunds: [] } } });
  });

  it('a filled request: pending → submitted → success, outTxs and settlement name the fill on the destination', async () => {
    const r = await rig();
    const depositTx = r.alpha.depositErc20(genuine(r), NOW_SEC);
    await until('the fill', () => r.record.status === 'success');
    expect(r.statuses).toEqual(['pending', 'submitted', 'success']);
    expect(r.record.failReason).toBe('N/A');
    const fill = r.beta.sent[0]!.hash;
    const view = requestJson(r.record, CTX);
    expect(view).toMatchObject({ status: 'success', requestType: 'Bridge', sender: USER });
    expect(view.data.inTxs).toEqual([
      expect.objectContaining({ txHash: depositTx, chainId: 31001, type: 'onchain', status: 'success', timestamp: NOW_SEC }),
    ]);
    expect(view.data.outTxs).toEqual([expect.objectContaining({ txHash: fill, chainId: 31002, status: 'success', fee: '42000' })]);
    expect(view.data).toMatchObject({ failReason: null, refundFailReason: null, failedTxHash: null });
    expect(view.protocol.settlement.destination).toEqual({ fills: [{ chainId: 31002, transactionId: fill }], refunds: [] });
    expect(view.protocol).toMatchObject({
      isWithdrawable: false,
      solver: { address: SOLVER.address.toLowerCase(), protocolChainId: 'alpha', chainId: 31001 },
    });
    expect(view.data.route!.actual.destination.outputCurrency.amount).toBe(r.order.expectedOut.toString());
  });

  it("the 'delayed' fault puts delayed between pending and submitted", async () => {
    const r = await rig({ delayed: true, fillDelayMs: 50 });
    r.alpha.depositErc20(genuine(r), NOW_SEC);
    await until('the fill', () => r.record.status === 'success');
    expect(r.statuses).toEqual(['pending', 'delayed', 'submitted', 'success']);
  });

  it.each([
    [{}, 'UNKNOWN'],
    [{ failReason: 'SOLVER_CAPACITY_EXCEEDED' } as const, 'SOLVER_CAPACITY_EXCEEDED'],
  ] as const)('the failure fault %o records the published failReason %s and sends nothing', async (knobs, expected) => {
    const r = await rig({ failure: true, ...knobs });
    r.alpha.depositErc20(genuine(r), NOW_SEC);
    await until('the failure', () => r.record.status === 'failure');
    expect([r.record.failReason, r.record.refundFailReason]).toEqual([expected, 'N/A']);
    expect(r.beta.sent).toEqual([]);
  });

  it('refund + refundFailReason: nothing is returned, the request ends failure with the refund leg reason', async () => {
    const r = await rig({ refund: true, refundFailReason: 'AMOUNT_TOO_LOW_TO_REFUND' });
    r.alpha.depositErc20(genuine(r), NOW_SEC);
    await until('the failure', () => r.record.status === 'failure');
    expect([r.record.failReason, r.record.refundFailReason]).toEqual(['UNKNOWN', 'AMOUNT_TOO_LOW_TO_REFUND']);
    expect(r.alpha.sent).toEqual([]);
    expect(requestJson(r.record, CTX)).toMatchObject({
      data: { failReason: 'UNKNOWN', refundFailReason: 'AMOUNT_TOO_LOW_TO_REFUND' },
      protocol: { isWithdrawable: true },
    });
  });

  it('a deposit whose handling throws is retried on the next poll', async () => {
    const r = await rig();
    const spy = vi.spyOn(r.state.requests, 'byOrderId').mockImplementationOnce(() => {
      throw new Error('store unavailable');
    });
    r.alpha.depositErc20(genuine(r), NOW_SEC);
    await until('the fill', () => r.record.status === 'success');
    expect(spy.mock.calls.length).toBeGreaterThanOrEqual(2);
    expect(r.beta.sent).toHaveLength(1);
  });
});

describe('solver: POST /transactions/index', () => {
  it('re-indexing a filled deposit finds it but does not fill it twice; an unknown tx gives null', async () => {
    const r = await rig();
    const tx: Hex = r.alpha.depositErc20(genuine(r), NOW_SEC);
    await until('the fill', () => r.record.status === 'success');
    expect(await solver!.indexTransaction(31001, tx)).toBe(1);
    await new Promise((res) => setTimeout(res, 50));
    expect(r.beta.sent).toHaveLength(1);
    expect(ownRecords(r)).toEqual([]);
  });
});
