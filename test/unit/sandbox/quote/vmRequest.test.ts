/**
 * Request handling for Solana and Bitcoin in the sandbox: address checks per VM, route resolution across VMs,
 * the `solanaTxTooLarge` fault's judgement, and the Bitcoin deposit reading and confirmation rule.
 */
import { describe, expect, it } from 'vitest';
import { encodeOrderIdMemo } from '../../../../packages/protocol/src/protocol/bitcoinDeposit.ts';
import { SandboxApiError } from '../../../../packages/sandbox/src/quote/errors.ts';
import { resolveQuoteRoute } from '../../../../packages/sandbox/src/quote/request.ts';
import { judgeSolanaSize, solanaTxTooLargeError } from '../../../../packages/sandbox/src/quote/solanaSize.ts';
import { checkVmAddress } from '../../../../packages/sandbox/src/quote/vmAddress.ts';
import { bitcoinDeposit, requiredConfirmations } from '../../../../packages/sandbox/src/solver/bvmWatch.ts';
import { RECIPIENT, TABLE, USDC, USER } from './fixtures.ts';
import { BITCOIN_ID, BTC, BTC_RECIPIENT, BTC_USER, SOL, SOLANA_ID, SVM_USDC, SVM_USER, VM_CHAINS } from './vmFixtures.ts';

function codeOf(run: () => unknown): [string | null, string | undefined] {
  try {
    run();
  } catch (error) {
    if (error instanceof SandboxApiError) return [error.code, error.errorData];
    throw error;
  }
  return ['none', undefined];
}

describe('checkVmAddress', () => {
  it('EVM lower-cases; Solana and Bitcoin keep the address exactly and refuse other forms naming the field', () => {
    expect(checkVmAddress(USER.toUpperCase().replace('0X', '0x'), 'evm', 'user')).toBe(USER);
    expect(checkVmAddress(SVM_USER, 'svm', 'user')).toBe(SVM_USER);
    expect(checkVmAddress(BTC_USER, 'bvm', 'user', { spender: true })).toBe(BTC_USER);
    expect(codeOf(() => checkVmAddress(USER, 'svm', 'recipient'))).toEqual(['INVALID_ADDRESS', 'recipient']);
    expect(codeOf(() => checkVmAddress(`${SVM_USER.slice(0, -1)}l`, 'svm', 'user'))).toEqual(['INVALID_ADDRESS', 'user']); // 'l' is not base58
    expect(codeOf(() => checkVmAddress(SVM_USER.slice(0, 20), 'svm', 'user'))).toEqual(['INVALID_ADDRESS', 'user']);
    expect(codeOf(() => checkVmAddress('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'bvm', 'recipient'))).toEqual([
      'INVALID_ADDRESS',
      'recipient',
    ]);
    // A legacy regtest address is a valid recipient but cannot spend in the deposit PSBT.
    expect(checkVmAddress('mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn', 'bvm', 'recipient')).toBe('mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn');
    expect(codeOf(() => checkVmAddress('mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn', 'bvm', 'user', { spender: true }))).toEqual([
      'INVALID_ADDRESS',
      'user',
    ]);
  });
});

describe('resolveQuoteRoute across VMs', () => {
  const base = { tradeType: 'EXACT_INPUT' as const, amount: '1000' };
  it('resolves Solana → Bitcoin with case-sensitive currencies and requires a recipient across VMs', () => {
    const route = resolveQuoteRoute(
      {
        ...base,
        user: SVM_USER,
        recipient: BTC_RECIPIENT,
        originChainId: SOLANA_ID,
        destinationChainId: BITCOIN_ID,
        originCurrency: SVM_USDC,
        destinationCurrency: BTC,
      },
      TABLE,
      50,
      VM_CHAINS,
    );
    // no refundTo in the request: none is assumed (automatic refund is off without one)
    expect([route.origin.slug, route.destination.slug, route.currencyIn.symbol, route.refundTo]).toEqual([
      'solana',
      'bitcoin',
      'USDC',
      null,
    ]);
    const withRefundTo = resolveQuoteRoute(
      {
        ...base,
        user: SVM_USER,
        recipient: BTC_RECIPIENT,
        refundTo: SVM_USER,
        originChainId: SOLANA_ID,
        destinationChainId: BITCOIN_ID,
        originCurrency: SVM_USDC,
        destinationCurrency: BTC,
      },
      TABLE,
      50,
      VM_CHAINS,
    );
    expect(withRefundTo.refundTo).toBe(SVM_USER);
    const noRecipient = {
      ...base,
      user: SVM_USER,
      originChainId: SOLANA_ID,
      destinationChainId: 31001,
      originCurrency: SOL,
      destinationCurrency: USDC,
    };
    expect(codeOf(() => resolveQuoteRoute(noRecipient, TABLE, 50, VM_CHAINS))).toEqual(['INVALID_ADDRESS', 'recipient']);
    const lowerMint = { ...noRecipient, recipient: RECIPIENT, originCurrency: SVM_USDC.toLowerCase() };
    expect(codeOf(() => resolveQuoteRoute(lowerMint, TABLE, 50, VM_CHAINS))[0]).toBe('UNSUPPORTED_CURRENCY');
    expect(codeOf(() => resolveQuoteRoute({ ...noRecipient, recipient: RECIPIENT }, TABLE, 50, []))[0]).toBe('UNSUPPORTED_CHAIN');
    const selfSwap = { ...noRecipient, recipient: SVM_USER, destinationChainId: SOLANA_ID, destinationCurrency: SVM_USDC };
    expect(codeOf(() => resolveQuoteRoute(selfSwap, TABLE, 50, VM_CHAINS))[0]).toBe('UNSUPPORTED_ROUTE');
  });
});

describe('judgeSolanaSize', () => {
  const fault = { fitsAtMaxRouteLength: 3, fitsWithSingleSource: true };
  it('without the fault only the measured size counts', () => {
    expect(judgeSolanaSize({}, 400, null)).toEqual({
      maxRouteLength: null,
      includedOriginSwapSources: null,
      outcome: 'ok',
      sizeBytes: 400,
    });
    expect(judgeSolanaSize({}, 1233, null).outcome).toBe('SOLANA_TX_TOO_LARGE');
  });
  it('with the fault, only the narrowing it names fits; refused sizes are over 1232', () => {
    const four = judgeSolanaSize({ maxRouteLength: 4 }, 400, fault);
    const absent = judgeSolanaSize({}, 400, fault);
    const three = judgeSolanaSize({ maxRouteLength: 3 }, 400, fault);
    const single = judgeSolanaSize({ maxRouteLength: 4, includedOriginSwapSources: ['orca'] }, 400, fault);
    const two = judgeSolanaSize({ includedOriginSwapSources: ['orca', 'raydium'] }, 400, { ...fault, fitsAtMaxRouteLength: null });
    expect([four, absent, three, single, two].map((j) => j.outcome)).toEqual([
      'SOLANA_TX_TOO_LARGE',
      'SOLANA_TX_TOO_LARGE',
      'ok',
      'ok',
      'SOLANA_TX_TOO_LARGE',
    ]);
    expect(four.sizeBytes).toBeGreaterThan(1232);
    expect(three.sizeBytes).toBeLessThanOrEqual(1232);
    const error = solanaTxTooLargeError(four.sizeBytes);
    expect([error.status, error.code]).toEqual([400, 'SOLANA_TX_TOO_LARGE']);
    expect(error.message).toContain(`${four.sizeBytes} bytes, ${four.sizeBytes - 1232} bytes over the 1232-byte limit`);
  });
});

describe('Bitcoin deposits', () => {
  const payment = {
    txid: 'ab'.repeat(32),
    vout: 0,
    value: 70_000n,
    opReturn: null as Uint8Array | null,
    opReturnText: null,
    blockHeight: null,
    blockHash: null,
    confirmations: 0,
    firstInputAddress: BTC_USER,
  };
  it('reads the order id from the memo and the depositor from the memo, else the first input', () => {
    const id = `0x${'cd'.repeat(32)}` as const;
    expect(bitcoinDeposit(BITCOIN_ID, { ...payment, opReturn: encodeOrderIdMemo(id) }, 7)).toMatchObject({
      id,
      from: BTC_USER,
      amount: 70_000n,
      blockNumber: 0n,
      currency: BTC,
    });
    expect(bitcoinDeposit(BITCOIN_ID, { ...payment, opReturn: encodeOrderIdMemo(id, BTC_RECIPIENT), blockHeight: 12 }, 7)).toMatchObject({
      from: BTC_RECIPIENT,
      blockNumber: 12n,
    });
    expect(bitcoinDeposit(BITCOIN_ID, payment, 7).id).toBe(`0x${'00'.repeat(32)}`);
  });
  it('waits 1 confirmation below the high-value threshold and 2 from it on', () => {
    expect([requiredConfirmations(99n, 100n), requiredConfirmations(100n, 100n), requiredConfirmations(101n, 100n)]).toEqual([1, 2, 2]);
  });
});
