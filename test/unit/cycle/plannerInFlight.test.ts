/**
 * The planner's view of transfers under way. In-flight transfers are credited to their destination with what the order guarantees (`minimumAmount`), never
 * with the quote's `expectedAmount`: an inflated estimate must not make a real deficit look covered.
 */
import { describe, expect, it } from 'vitest';
import { toPlannerInFlight } from '../../../packages/ballast/src/cycle/plannerInFlight.ts';
import type { TransferRow } from '../../../packages/ballast/src/store/transferRows.ts';

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

/** A confirmed origin transaction mined at `block`. */
function minedTx(block: bigint, id = 1): TransferRow['txs'][number] {
  return {
    id,
    transferId: 1,
    stepId: 'deposit',
    itemIndex: 0,
    chainId: 31001,
    request: {},
    txHash: `0x${String(id).padStart(64, '0')}`,
    rawTx: '0x02',
    status: 'confirmed',
    blockNumber: block,
    blockHash: null,
    finalAtMs: null,
    signedAtMs: 0,
    sentAtMs: 0,
    confirmedAtMs: 0,
  };
}

const READ_AT = new Map([
  ['alpha', 100n],
  ['beta', 500n],
]);

describe('toPlannerInFlight', () => {
  it('credits the guaranteed minimum, not the inflated estimate', () => {
    const [f] = toPlannerInFlight([row({})]);
    expect(f!.guaranteedOut).toBe(19_900_000_000n);
    expect(f!.amountIn).toBe(20_000_000_000n);
    expect(f!.originSettled).toBe(false);
  });

  it('marks the origin settled when the deposit is mined at or before the block the origin was read at', () => {
    expect(toPlannerInFlight([row({ status: 'deposited', txs: [minedTx(99n)] })], READ_AT)[0]!.originSettled).toBe(true);
    expect(toPlannerInFlight([row({ status: 'deposited', txs: [minedTx(100n)] })], READ_AT)[0]!.originSettled).toBe(true);
  });

  it('does not mark the origin settled when the deposit was mined after the balance read (the balance lacks it)', () => {
    const [f] = toPlannerInFlight([row({ status: 'deposited', txs: [minedTx(90n, 1), minedTx(101n, 2)] })], READ_AT);
    expect(f!.originSettled).toBe(false);
  });

  it('settles on the mined deposit alone when the origin has no read block', () => {
    expect(toPlannerInFlight([row({ status: 'deposited', txs: [minedTx(7n)] })])[0]!.originSettled).toBe(true);
    expect(toPlannerInFlight([row({ status: 'deposited', txs: [] })])[0]!.originSettled).toBe(false);
  });

  it('keeps crediting a transfer closed with success whose fill landed after the destination was read', () => {
    const closed = row({ status: 'success', txs: [minedTx(50n)] });
    const after = toPlannerInFlight([], READ_AT, [{ row: closed, fillBlock: 501n }]);
    expect(after).toHaveLength(1);
    expect(after[0]!.guaranteedOut).toBe(19_900_000_000n);
    expect(after[0]!.originSettled).toBe(true);
    expect(toPlannerInFlight([], READ_AT, [{ row: closed, fillBlock: null }])).toHaveLength(1);
  });

  it('drops a closed success whose fill the destination balance already holds', () => {
    const closed = row({ status: 'success', txs: [minedTx(50n)] });
    expect(toPlannerInFlight([], READ_AT, [{ row: closed, fillBlock: 500n }])).toHaveLength(0);
  });

  it('never credits a closed transfer that did not succeed', () => {
    expect(toPlannerInFlight([], READ_AT, [{ row: row({ status: 'origin_failed' }), fillBlock: null }])).toHaveLength(0);
    expect(toPlannerInFlight([], READ_AT, [{ row: row({ status: 'refund' }), fillBlock: null }])).toHaveLength(0);
  });
});
