/**
 * What a finished transfer moved, wallet by wallet, as the store recorded it: the payment that left the origin
 * wallet, what came back to a wallet (the destination receipt, a refund, a withdrawal), the origin network fee,
 * and Relay's fee components. Pure; no I/O. Amounts are bigint base units; times ms since the epoch.
 *
 * Both the export rows (src/accounting/exportRows.ts) and the reconciliation's ledger side
 * (src/accounting/reconcile.ts) start from these movements: the rows split and pair them, the ledger side sums
 * them as they are.
 */
import type { LedgerEntry } from '../ledger/ledgerEntry.ts';
import type { ComponentCosts } from '../ledger/requestRecord.ts';
import type { TransferRow, TransferTxRow } from '../store/transferRows.ts';
import type { WithdrawalRow } from '../store/withdrawalRows.ts';
import { quoteAssets, type PricedAsset, type PriceSource } from './quotePrices.ts';

/** What the store holds about one finished transfer (read by src/store/accountingReads.ts). */
export interface TransferFacts {
  transfer: TransferRow;
  /** The origin transaction that paid the deposit (src/store/transferRows.ts `depositTxOf`); undefined when none. */
  depositTx: TransferTxRow | undefined;
  /** Its `transfer_ledger` entry, null when none was written (a `withdrawn` transfer has none). */
  ledger: LedgerEntry | null;
  /** Its withdrawal, null when none was started. */
  withdrawal: WithdrawalRow | null;
  /** The stored POST /quote/v2 response, null when the transfer has none. */
  quoteRaw: unknown;
}

/** A wallet: the config name of its chain and its address there. */
export interface WalletRef {
  chain: string;
  address: string;
}

/** Base units of one asset moving into or out of one wallet at one time. */
export interface Movement {
  wallet: WalletRef;
  asset: PricedAsset;
  /** Base units, > 0. */
  amount: bigint;
  atMs: number;
  txHash: string | null;
}

/** What came back to a wallet: the destination receipt, a refund (origin chain) or a withdrawal (origin chain). */
export interface ReturnMovement extends Movement {
  kind: 'receipt' | 'refund' | 'withdrawal';
}

/**
 * The origin network fee (EVM gas, Solana fee and account rent, Bitcoin miner fee), a mined cancel's miner fee, or
 * the gas of the ready transactions Ballast sent to withdraw the deposit.
 */
export interface NetworkFeeMovement extends Movement {
  kind: 'network' | 'cancel_network' | 'withdrawal_network';
  /** Mined origin transactions the fee was paid over (approve + deposit, or the cancel; 1 for a withdrawal's). */
  txCount: number;
}

/** The movements of one transfer (see the module comment). */
export interface TransferMovements {
  transferId: number;
  requestId: string | null;
  status: TransferRow['status'];
  origin: WalletRef;
  destination: WalletRef;
  input: PricedAsset;
  output: PricedAsset;
  /** The amount paid into the order, out of the origin wallet; null when the deposit never landed (origin_failed). */
  payment: Movement | null;
  returns: ReturnMovement[];
  networkFee: NetworkFeeMovement | null;
  /** The gas of the withdrawal's mined ready transactions, on the origin wallet; null when none was paid or it is unknown. */
  withdrawalFee: NetworkFeeMovement | null;
  /** Relay's fee components as the order settled (success only), micro-USD, and where they were read. */
  relayFees: ComponentCosts | null;
  relayFeesSource: PriceSource;
  /** What the store does not record about this transfer, one sentence each (printed by `ballast export --check`). */
  gaps: string[];
}

/** Statuses whose deposit reached the depository (a payment left the origin wallet). */
const LANDED = new Set(['success', 'refund', 'failure', 'withdrawn']);

/**
 * Derives the movements of a finished transfer.
 *
 * - payment: `amountIn` of the input asset, at the deposit transaction's confirmation (else sending, signing) time;
 * - receipt (success): the ledger's received amount (the request record's delivered amount, else the order's
 *   guaranteed minimum, which is also used when no ledger entry exists), at the close;
 * - refund: the recorded refunded amount, at the close (`refund`) or the follow-up (`failure`);
 * - withdrawal: what executed withdrawal jobs returned, at the withdrawal's end;
 * - network fee: the ledger's `gasPaid` in the origin's native currency; a mined cancel's when one was mined;
 * - withdrawal fee: the withdrawal's `gasPaid` (its mined ready transactions), at the withdrawal's end.
 */
export function transferMovements(f: TransferFacts): TransferMovements {
  const t = f.transfer;
  const l = f.ledger;
  const gaps: string[] = [];
  const assets = quoteAssets(f.quoteRaw);
  const input = assets.input ?? fallbackAsset(t.asset, l?.decimalsIn ?? null, 'input', gaps);
  const output = assets.output ?? fallbackAsset(t.asset, l?.decimalsOut ?? null, 'output', gaps);
  const origin = { chain: t.originChain, address: t.user };
  const destination = { chain: t.destinationChain, address: t.recipient };
  const paidAtMs = f.depositTx
    ? (f.depositTx.confirmedAtMs ?? f.depositTx.sentAtMs ?? f.depositTx.signedAtMs)
    : (l?.signedAtMs ?? t.createdAtMs);
  const closedAtMs = l?.settledAtMs ?? t.events.filter((e) => e.toStatus === t.status).at(-1)?.atMs ?? t.updatedAtMs;
  const payment = LANDED.has(t.status)
    ? { wallet: origin, asset: input, amount: t.amountIn, atMs: paidAtMs, txHash: f.depositTx?.txHash ?? null }
    : null;

  const returns: ReturnMovement[] = [];
  if (t.status === 'success') {
    if (!l) gaps.push("no ledger entry: the receipt is the order's guaranteed minimum");
    else if (l.receivedSource === 'order_minimum') {
      gaps.push("the receipt is the order's guaranteed minimum (the request record did not give the delivered amount)");
    }
    const amount = l?.receivedOut ?? t.minOut;
    returns.push({ kind: 'receipt', wallet: destination, asset: output, amount, atMs: closedAtMs, txHash: t.outTxHashes[0] ?? null });
  }
  const refunded = t.refund?.amount ?? null;
  if (refunded !== null && refunded > 0n) {
    const atMs = t.status === 'refund' ? closedAtMs : t.refund!.checkedAtMs; // refund is set when amount is
    returns.push({ kind: 'refund', wallet: origin, asset: input, amount: refunded, atMs, txHash: t.refund!.txHash });
  } else if (t.status === 'refund') {
    gaps.push(t.refund === null ? 'the refund is not followed up yet: its amount is unknown' : 'the refund record gives no amount');
  }
  const w = f.withdrawal;
  if (w && w.receivedAmount > 0n) {
    const atMs = w.finishedAtMs ?? w.updatedAtMs;
    returns.push({ kind: 'withdrawal', wallet: origin, asset: input, amount: w.receivedAmount, atMs, txHash: w.txHash });
  }
  if (w && w.state !== 'executed') gaps.push(`withdrawal ${w.id} is ${w.state}: part of the deposit may still be in the depository`);
  if (w && w.gasPaid === null) {
    gaps.push(
      `the network fee of withdrawal ${w.id}'s transaction ${w.txHash ?? w.revertedTx ?? '(unknown)'} is not recorded in the store`,
    );
  }
  const native = nativeAssetOf(f, assets.native, gaps);

  return {
    transferId: t.id,
    requestId: t.requestId,
    status: t.status,
    origin,
    destination,
    input,
    output,
    payment,
    returns,
    networkFee: networkFeeOf(f, native, origin, paidAtMs, gaps),
    withdrawalFee: withdrawalFeeOf(w, native, origin),
    relayFees: l?.fees ?? null,
    relayFeesSource: l?.feesSource === 'requests_v3_actual' ? 'request data.fees.actual' : 'quote details.expandedPriceImpact',
    gaps,
  };
}

/**
 * The origin chain's native currency, in which network fees are paid. The ledger's decimals are the chain's own;
 * the quote's symbol and price are used when its decimals agree (or when there is no ledger entry to compare with).
 */
function nativeAssetOf(f: TransferFacts, native: PricedAsset | null, gaps: string[]): PricedAsset {
  const l = f.ledger;
  if (native && (!l || native.decimals === l.gasDecimals)) return native;
  const symbol = native?.symbol ?? `${f.transfer.originChain}-native`;
  if (l) return { symbol, decimals: l.gasDecimals, price: null };
  if ((f.withdrawal?.gasPaid ?? 0n) > 0n) gaps.push('the native decimals are unknown: the withdrawal network fee is written in base units');
  return { symbol, decimals: 0, price: null };
}

function networkFeeOf(
  f: TransferFacts,
  asset: PricedAsset,
  origin: WalletRef,
  paidAtMs: number,
  gaps: string[],
): NetworkFeeMovement | null {
  const l = f.ledger;
  if (!l) {
    gaps.push(`the origin network fee is not in the ledger (no entry is written for status ${f.transfer.status})`);
    return null;
  }
  if (l.gasPaid === null) {
    gaps.push('the origin network fee could not be read when the ledger entry was written');
    return null;
  }
  if (l.gasPaid === 0n) return null;
  const mined = [...f.transfer.txs, ...f.transfer.cancels].filter((x) => x.status === 'confirmed' || x.status === 'reverted');
  const cancel = f.transfer.cancels.find((c) => c.status === 'confirmed');
  return {
    kind: cancel ? 'cancel_network' : 'network',
    wallet: origin,
    asset,
    amount: l.gasPaid,
    atMs: cancel ? (cancel.confirmedAtMs ?? cancel.signedAtMs) : paidAtMs,
    txHash: cancel?.txHash ?? f.depositTx?.txHash ?? null,
    txCount: mined.length,
  };
}

function withdrawalFeeOf(w: TransferFacts['withdrawal'], asset: PricedAsset, origin: WalletRef): NetworkFeeMovement | null {
  if (!w || w.gasPaid === null || w.gasPaid === 0n) return null;
  const atMs = w.finishedAtMs ?? w.updatedAtMs;
  return { kind: 'withdrawal_network', wallet: origin, asset, amount: w.gasPaid, atMs, txHash: w.txHash ?? w.revertedTx, txCount: 1 };
}

function fallbackAsset(symbol: string, decimals: number | null, leg: 'input' | 'output', gaps: string[]): PricedAsset {
  gaps.push(`no stored quote: the ${leg} asset is named by the config (${symbol}) and has no USD price`);
  if (decimals === null) gaps.push(`the ${leg} decimals are unknown: its amounts are written in base units`);
  return { symbol, decimals: decimals ?? 0, price: null };
}
