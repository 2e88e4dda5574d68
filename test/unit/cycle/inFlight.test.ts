/**
 * In-flight transfers are credited to their destination with what the order guarantees (`minimumAmount`), never
 * with the quote's `expectedAmount`: an inflated estimate must not make a real deficit look covered.
 */
import { describe, expect, it } from 'vitest';
import { toPlannerInFlight } from '../../../src/cycle/inFlight.ts';
import type { TransferRow } from '../../../src/store/transferRows.ts';

function row(over: Partial<TransferRow>): TransferRow {
  return {
    id: 1,
    cycleId: 1,
    quoteId: 1,
    asset: 'USDC',
    originChain: 'alpha',
    originChainId: 31001,
    originCurrency: '0xa0',
    destinationChain: 'beta',
    destinationChainId: 31002,
    destinationCurrency: '0xb0',
    user: '0x01',
    recipient: '0x02',
    amountIn: 20_000_000_000n,
    expectedOut: 19_990_000_000n * 10n ** 12n,
    minOut: 19_900_000_000n,
    requestId: '0xr',
    orderId: '0xo',
    feesUsd: '1',
    status: 'broadcast',
    relayStatus: null,
    outTxHashes: [],
    error: null,
    createdAtMs: 0,
    updatedAtMs: 0,
    txs: [],
    events: [],
    ...over,
  };
}

describe('toPlannerInFlight', () => {
  it('credits the guaranteed minimum, not the inflated estimate', () => {
    const [f] = toPlannerInFlight([row({})]);
    expect(f!.guaranteedOut).toBe(19_900_000_000n);
    expect(f!.amountIn).toBe(20_000_000_000n);
    expect(f!.originSettled).toBe(false);
  });

  it('marks the origin settled once the deposit is confirmed', () => {
    const [f] = toPlannerInFlight([row({ status: 'deposited' })]);
    expect(f!.originSettled).toBe(true);
  });
});
