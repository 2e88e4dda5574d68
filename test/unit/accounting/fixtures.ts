/**
 * Transfer facts for the accounting tests, shaped as src/store/accountingReads.ts reads them: an EVM USDC transfer
 * alpha → beta by default (6 decimals, 1 USDC = 1 USD at the quote, ETH at 2,500 USD), with overrides per test.
 */
import type { LedgerEntry } from '../../../packages/ballast/src/ledger/ledgerEntry.ts';
import type { TransferFacts } from '../../../packages/ballast/src/accounting/transferMovements.ts';
import type { TransferRow, TransferTxRow } from '../../../packages/ballast/src/store/transferRows.ts';
import type { WithdrawalRow } from '../../../packages/ballast/src/store/withdrawalRows.ts';

export const TREASURY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
export const ZERO = '0x0000000000000000000000000000000000000000';
export const DEPOSIT_HASH = `0x${'d1'.repeat(32)}`;
export const FILL_HASH = `0x${'f1'.repeat(32)}`;

/** A Currency amount of a quote: `amount` base units worth `usd`. */
export function amountOf(symbol: string, address: string, decimals: number, amount: bigint, usd: string) {
  return { currency: { chainId: 1, address, symbol, decimals }, amount: amount.toString(), amountUsd: usd };
}

/** A stored quote naming the input, output and gas (the deprecated `fees.gas`) amounts. */
export function quote(input: unknown, output: unknown, gas?: unknown): unknown {
  return { steps: [], ...(gas ? { fees: { gas } } : {}), details: { currencyIn: input, currencyOut: output } };
}

/** The default quote: 100 USDC in (100 USD), 99 USDC out, gas 0.001 ETH (2.5 USD). */
export const USDC_QUOTE = quote(
  amountOf('USDC', '0xa1', 6, 100_000_000n, '100'),
  amountOf('USDC', '0xb1', 6, 99_000_000n, '99'),
  amountOf('ETH', ZERO, 18, 10n ** 15n, '2.5'),
);

export function tx(over: Partial<TransferTxRow> = {}): TransferTxRow {
  return {
    id: 2,
    transferId: 7,
    stepId: 'deposit',
    itemIndex: 0,
    chainId: 31001,
    request: {},
    txHash: DEPOSIT_HASH,
    rawTx: '0x',
    status: 'confirmed',
    blockNumber: 2n,
    blockHash: null,
    finalAtMs: null,
    signedAtMs: 2_600,
    sentAtMs: 2_700,
    confirmedAtMs: 3_000,
    ...over,
  };
}

export function transfer(over: Partial<TransferRow> = {}): TransferRow {
  return {
    id: 7,
    cycleId: 1,
    quoteId: 1,
    asset: 'USDC',
    originChain: 'alpha',
    originChainId: 31001,
    originCurrency: '0xa1',
    destinationChain: 'beta',
    destinationChainId: 31002,
    destinationCurrency: '0xb1',
    user: TREASURY,
    recipient: TREASURY,
    amountIn: 100_000_000n,
    expectedOut: 99_000_000n,
    minOut: 98_500_000n,
    requestId: '0xreq7',
    orderId: '0xord7',
    feesUsd: '1',
    status: 'success',
    relayStatus: 'success',
    outTxHashes: [FILL_HASH],
    error: null,
    createdAtMs: 1_000,
    updatedAtMs: 9_000,
    stalledAtMs: null,
    resolvedAtMs: null,
    resolution: null,
    absenceProof: null,
    refund: null,
    txs: [tx({ id: 1, stepId: 'approve', txHash: `0x${'a1'.repeat(32)}`, confirmedAtMs: 2_500 }), tx()],
    cancels: [],
    events: [
      { id: 1, fromStatus: null, toStatus: 'prepared', atMs: 1_000, detail: null },
      { id: 2, fromStatus: 'deposited', toStatus: 'success', atMs: 8_000, detail: null },
    ],
    ...over,
  };
}

export function ledger(over: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    transferId: 7,
    status: 'success',
    asset: 'USDC',
    originChain: 'alpha',
    destinationChain: 'beta',
    amountIn: 100_000_000n,
    decimalsIn: 6,
    decimalsOut: 6,
    quotedExpectedOut: 99_000_000n,
    quotedMinOut: 98_500_000n,
    receivedOut: 99_000_000n,
    receivedSource: 'requests_v3_route_actual',
    fees: { execution: 200_000n, swap: 0n, platform: 600_000n, app: 200_000n },
    feesSource: 'requests_v3_actual',
    gasPaid: 123_456_789_000_000n,
    gasDecimals: 18,
    gasUsdMicros: 308_642n,
    totalFeesUsdMicros: 1_308_642n,
    signedAtMs: 2_000,
    settledAtMs: 8_000,
    settleMs: 6_000,
    ...over,
  };
}

export function withdrawal(over: Partial<WithdrawalRow> = {}): WithdrawalRow {
  return {
    id: 3,
    transferId: 7,
    requestId: '0xreq7',
    chain: 'alpha',
    chainId: 31001,
    chainSlug: 'alpha',
    wallet: 'treasury',
    owner: TREASURY,
    recipient: TREASURY,
    currency: '0xa1',
    amount: 100_000_000n,
    depositTx: DEPOSIT_HASH,
    state: 'executed',
    attempts: 1,
    nonce: '1',
    preparedAmount: 100_000_000n,
    receivedAmount: 100_000_000n,
    additionalData: null,
    signature: '0xsig',
    jobId: 'job-1',
    jobStatus: 'success',
    tx: null,
    txHash: `0x${'e1'.repeat(32)}`,
    rawTx: '0x',
    txStatus: 'confirmed',
    revertedTx: null,
    reason: null,
    gasPaid: 0n,
    createdAtMs: 20_000,
    updatedAtMs: 25_000,
    finishedAtMs: 25_000,
    ...over,
  };
}

/** Facts of a transfer: the default success unless overridden. */
export function facts(over: Partial<TransferFacts> & { transfer?: TransferRow } = {}): TransferFacts {
  const t = over.transfer ?? transfer();
  return {
    transfer: t,
    depositTx: t.txs.at(-1),
    ledger: ledger({ transferId: t.id, status: t.status as LedgerEntry['status'] }),
    withdrawal: null,
    quoteRaw: USDC_QUOTE,
    ...over,
  };
}
