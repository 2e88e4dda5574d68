/**
 * Watches payments to the sandbox's Bitcoin depository address (`listPayments`, polled; the mempool included)
 * and turns each into an {@link ObservedDeposit} (docs/design.md "Bitcoin step data"): the order id from the first
 * OP_RETURN's memo ("0x" + 64 hex digits, optionally `|depositor=…`), the depositor from that memo or else
 * the first input's address, the output index as `logIndex` and the block height (0 in the mempool). Also the
 * confirmation rule (docs/relay-contract.md "States and transitions", Bitcoin 1–2): a deposit is processed after 1
 * confirmation, 2 when it is high-value.
 */
import type { Logger } from 'pino';
import type { Hex } from 'viem';
import { decodeOrderIdMemo } from '@ballast/protocol/protocol/bitcoinDeposit.ts';
import type { ObservedDeposit } from '../api/requestStore.ts';
import type { BitcoinPayment } from '../bvm/addressIndex.ts';
import type { BitcoinSandboxNode } from '../bvm/startEsploraNode.ts';
import { BTC_NATIVE_ADDRESS } from '../quote/vmChains.ts';
import { sleep } from './sleep.ts';

/** The order id of a payment without a readable memo: names no order. */
const NO_ORDER: Hex = `0x${'00'.repeat(32)}`;

/**
 * An observed deposit of a payment to the depository.
 *
 * @param nowSec the time it was seen, unix seconds
 */
export function bitcoinDeposit(chainId: number, p: BitcoinPayment, nowSec: number): ObservedDeposit {
  const memo = p.opReturn ? decodeOrderIdMemo(p.opReturn) : null;
  return {
    chainId,
    txHash: p.txid,
    logIndex: p.vout,
    blockNumber: BigInt(p.blockHeight ?? 0),
    from: memo?.depositor ?? p.firstInputAddress ?? '',
    currency: BTC_NATIVE_ADDRESS,
    amount: p.value,
    id: memo?.orderId ?? NO_ORDER,
    blockTimestamp: nowSec,
  };
}

/**
 * Confirmations a deposit needs before it is processed: 1, or 2 from `highValueSats` on.
 *
 * @param amountSats the deposit, satoshis
 */
export function requiredConfirmations(amountSats: bigint, highValueSats: bigint): number {
  return amountSats >= highValueSats ? 2 : 1;
}

/**
 * Resolves true once `txid` has `confirmations` confirmations, false when `signal` aborts first.
 */
export async function waitConfirmations(
  node: BitcoinSandboxNode,
  txid: string,
  confirmations: number,
  signal: AbortSignal,
  pollMs: number,
): Promise<boolean> {
  while (!signal.aborted) {
    if ((node.confirmations(txid) ?? 0) >= confirmations) return true;
    await sleep(pollMs, signal);
  }
  return false;
}

/** Options of {@link watchBitcoin}. */
export interface WatchBitcoinOptions {
  node: BitcoinSandboxNode;
  chainId: number;
  depository: string;
  signal: AbortSignal;
  pollMs: number;
  nowSec: () => number;
  /** Called once per poll for every payment (the caller de-duplicates). */
  onDeposit: (deposit: ObservedDeposit) => void;
  log: Logger;
}

/** Polls until `signal` aborts. Never rejects: a failed poll is logged and retried. */
export async function watchBitcoin(o: WatchBitcoinOptions): Promise<void> {
  while (!o.signal.aborted) {
    try {
      for (const p of o.node.listPayments(o.depository)) o.onDeposit(bitcoinDeposit(o.chainId, p, o.nowSec()));
    } catch (error) {
      o.log.warn({ err: error, chainId: o.chainId }, 'Bitcoin deposit poll failed; retrying');
    }
    await sleep(o.pollMs, o.signal);
  }
}
