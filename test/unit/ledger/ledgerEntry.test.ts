/**
 * The ledger entry of a finished transfer: which source each value comes from (request record, quote, order
 * minimum), gas priced through the quote's `fees.gas`, and the settle time from first signature to the close.
 */
import { describe, expect, it } from 'vitest';
import { computeLedgerEntry, nativeUsdPrice, type LedgerInputs } from '../../../packages/ballast/src/ledger/ledgerEntry.ts';
import { actualFeesOf, feesFromComponents, receivedAmountOf } from '../../../packages/ballast/src/ledger/requestRecord.ts';
import type { TransferRow } from '../../../packages/ballast/src/store/transferRows.ts';

const NATIVE = '0x0000000000000000000000000000000000000000';
const USDC = { address: '0xa0b8', symbol: 'USDC', decimals: 6, chainId: 1, name: 'USD Coin' };

function transfer(over: Partial<TransferRow> = {}): TransferRow {
  return {
    id: 7,
    cycleId: 1,
    quoteId: 1,
    asset: 'USDC',
    originChain: 'alpha',
    originChainId: 1,
    originCurrency: USDC.address,
    destinationChain: 'beta',
    destinationChainId: 2,
    destinationCurrency: '0xb0',
    user: '0xu',
    recipient: '0xu',
    amountIn: 100_000_000n,
    expectedOut: 99_500_000n,
    minOut: 99_000_000n,
    requestId: '0xreq',
    orderId: '0xord',
    feesUsd: '0.5',
    status: 'success',
    relayStatus: 'success',
    outTxHashes: ['0xfill'],
    error: null,
    createdAtMs: 1_000,
    updatedAtMs: 9_000,
    txs: [
      {
        id: 1,
        transferId: 7,
        stepId: 'approve',
        itemIndex: 0,
        chainId: 1,
        request: {},
        txHash: '0xa',
        rawTx: '0x',
        status: 'confirmed',
        blockNumber: 1n,
        blockHash: null,
        finalAtMs: null,
        signedAtMs: 2_000,
        sentAtMs: 2_100,
        confirmedAtMs: 2_500,
      },
      {
        id: 2,
        transferId: 7,
        stepId: 'deposit',
        itemIndex: 0,
        chainId: 1,
        request: {},
        txHash: '0xd',
        rawTx: '0x',
        status: 'confirmed',
        blockNumber: 2n,
        blockHash: null,
        finalAtMs: null,
        signedAtMs: 2_600,
        sentAtMs: 2_700,
        confirmedAtMs: 3_000,
      },
    ],
    events: [
      { id: 1, fromStatus: null, toStatus: 'prepared', atMs: 2_000, detail: null },
      { id: 2, fromStatus: 'deposited', toStatus: 'success', atMs: 14_250, detail: null },
    ],
    ...over,
  } as TransferRow; // the fields of TransferRow this module reads, plus the rest of the row's shape
}

const quoteRaw = {
  steps: [{ id: 'deposit', kind: 'transaction', requestId: '0xreq', items: [] }],
  fees: { gas: { currency: { ...USDC, address: NATIVE, symbol: 'ETH', decimals: 18 }, amount: '1000000000000000', amountUsd: '3' } },
  details: {
    currencyIn: { currency: USDC, amount: '100000000' },
    currencyOut: { currency: { ...USDC, chainId: 2 }, amount: '99500000' },
    expandedPriceImpact: {
      execution: { usd: '-0.1' },
      swap: { usd: '-0.2' },
      relay: { usd: '-0.05' },
      app: { usd: '0' },
      sponsored: { usd: '0' },
    },
  },
};

const requestData = {
  fees: {
    actual: {
      execution: { usd: '-0.12' },
      swap: { usd: '-0.18' },
      platform: { usd: '-0.05' },
      app: { usd: '0.01' },
      sponsored: { usd: '0' },
    },
  },
  route: { actual: { destination: { outputCurrency: { amount: '99400000' } } } },
};

function inputs(over: Partial<LedgerInputs> = {}): LedgerInputs {
  return {
    transfer: transfer(),
    quoteRaw,
    requestData,
    gasPaid: 500_000_000_000_000n, // 0.0005 ETH
    gasDecimals: 18,
    isOriginNative: (c) => c === NATIVE,
    nowMs: 99_999,
    ...over,
  };
}

describe('computeLedgerEntry', () => {
  it('takes realized fees and the delivered amount from the request record, and prices gas through fees.gas', () => {
    const e = computeLedgerEntry(inputs());
    expect(e.receivedOut).toBe(99_400_000n);
    expect(e.receivedSource).toBe('requests_v3_route_actual');
    expect(e.feesSource).toBe('requests_v3_actual');
    // Costs are positive micro-USD; a positive `usd` (a rebate) counts 0.
    expect(e.fees).toEqual({ execution: 120_000n, swap: 180_000n, platform: 50_000n, app: 0n });
    // 0.0005 ETH at 3 USD per 0.001 ETH = 1.5 USD.
    expect(e.gasUsdMicros).toBe(1_500_000n);
    expect(e.totalFeesUsdMicros).toBe(120_000n + 180_000n + 50_000n + 1_500_000n);
    expect([e.decimalsIn, e.decimalsOut]).toEqual([6, 6]);
    expect(e.signedAtMs).toBe(2_000);
    expect(e.settledAtMs).toBe(14_250);
    expect(e.settleMs).toBe(12_250);
  });

  it('falls back to the quoted breakdown and the order minimum when the request record is unreadable', () => {
    const e = computeLedgerEntry(inputs({ requestData: null }));
    expect(e.feesSource).toBe('quote_breakdown');
    expect(e.fees).toEqual({ execution: 100_000n, swap: 200_000n, platform: 50_000n, app: 0n }); // platform keyed `relay` in the quote
    expect(e.receivedSource).toBe('order_minimum');
    expect(e.receivedOut).toBe(99_000_000n);
  });

  it('uses the quote when data.fees.actual is incomplete', () => {
    const partial = { fees: { actual: { execution: { usd: '-1' } } } };
    expect(computeLedgerEntry(inputs({ requestData: partial })).feesSource).toBe('quote_breakdown');
  });

  it('records no fees and no received amount for a failure, but keeps gas and leaves no gas price without fees.gas', () => {
    const failed = transfer({
      status: 'failure',
      events: [{ id: 1, fromStatus: 'deposited', toStatus: 'failure', atMs: 5_000, detail: null }],
    });
    const { fees: _fees, ...noGasFees } = quoteRaw;
    const e = computeLedgerEntry(inputs({ transfer: failed, quoteRaw: noGasFees }));
    expect([e.fees, e.feesSource, e.receivedOut, e.receivedSource]).toEqual([null, 'none', null, 'none']);
    expect(e.gasPaid).toBe(500_000_000_000_000n);
    expect(e.gasUsdMicros).toBeNull();
    expect(e.totalFeesUsdMicros).toBe(0n);
    expect(e.settleMs).toBe(3_000);
  });

  it('records an origin_failed transfer with only the origin gas it paid, priced, and neither fees nor a received amount', () => {
    const failed = transfer({
      status: 'origin_failed',
      relayStatus: null,
      outTxHashes: [],
      events: [{ id: 1, fromStatus: 'broadcast', toStatus: 'origin_failed', atMs: 8_000, detail: null }],
    });
    const e = computeLedgerEntry(inputs({ transfer: failed, requestData: null }));
    expect(e.status).toBe('origin_failed');
    expect([e.fees, e.feesSource, e.receivedOut, e.receivedSource]).toEqual([null, 'none', null, 'none']);
    expect(e.gasUsdMicros).toBe(1_500_000n); // 0.0005 ETH at 3 USD per 0.001 ETH
    expect(e.totalFeesUsdMicros).toBe(1_500_000n);
    expect(e.settledAtMs).toBe(8_000);
  });

  it('refuses a transfer that is not final', () => {
    expect(() => computeLedgerEntry(inputs({ transfer: transfer({ status: 'deposited' }) }))).toThrow(/deposited/);
  });
});

describe('request record and price helpers', () => {
  it('read only complete, well-formed values', () => {
    expect(actualFeesOf({ fees: { quoted: {} } })).toBeNull();
    expect(feesFromComponents({ execution: { usd: 'x' }, swap: { usd: '0' }, platform: { usd: '0' }, app: { usd: '0' } })).toBeNull();
    expect(receivedAmountOf({ route: { actual: { destination: { outputCurrency: { amount: '-5' } } } } })).toBeNull();
    expect(receivedAmountOf(requestData)).toBe(99_400_000n);
    const gas = quoteRaw.fees.gas;
    expect(nativeUsdPrice(gas, (c) => c === NATIVE)).toEqual({ usdMicros: 3_000_000n, amount: 10n ** 15n });
    expect(nativeUsdPrice(gas, () => false)).toBeNull(); // priced in another currency
    expect(nativeUsdPrice({ ...gas, amount: '0' }, () => true)).toBeNull();
  });
});
