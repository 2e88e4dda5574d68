/**
 * JSON views of a request record: the status record of GET /intents/status/v3 (docs/relay-contract.md "Request status
 * record", "Events" payload) and the request record of GET /requests/v3 (docs/relay-contract.md "Request record"), the
 * latter in the v3 shape Relay publishes (relayprotocol/relay-docs `migrating-to-requests-v3.mdx`; field types from
 * relay-kit's generated API types).
 */
import type { SandboxFaults } from '../faults.ts';
import type { SandboxChainTable } from '../quote/chainTable.ts';
import { depositWithdrawability } from '../withdrawals/eligibility.ts';
import { findAnyChain, type SandboxNonEvmChain } from '../quote/vmChains.ts';
import type { UsdPrices } from '../quote/prices.ts';
import { currencyAmountJson } from '../quote/currencyJson.ts';
import { priceOf } from '../quote/prices.ts';
import { feesJson, inTxJson, outTxJson, routeJson } from './requestData.ts';
import type { RequestRecord, SandboxRequestStatus } from './requestStore.ts';

/**
 * GET /intents/status/v3 body: status (docs/relay-contract.md "Request status" values, plus `delayed` under the `delayed`
 * fault), inTxHashes, txHashes, updatedAt (ms), originChainId, destinationChainId, plus requestId, failReason (`N/A`
 * unless failed or refunded, then a published reason or `UNKNOWN`), refundFailReason (`N/A` unless a refund
 * leg failed) and details (null).
 */
export function statusJson(r: RequestRecord) {
  return {
    status: r.status,
    inTxHashes: r.inTxHashes,
    txHashes: r.txHashes,
    updatedAt: r.updatedAtMs,
    originChainId: r.originChainId,
    destinationChainId: r.destinationChainId,
    requestId: r.requestId,
    failReason: r.failReason,
    refundFailReason: r.refundFailReason,
    details: null,
  };
}

/** What a request record view needs besides the record. */
export interface RecordContext {
  chains: SandboxChainTable;
  prices: UsdPrices;
  /** The Solana and Bitcoin chains, when served. */
  vm?: { chains: readonly SandboxNonEvmChain[] } | undefined;
  /** Clock, unix ms; without it an unfilled deposit is never judged withdrawable by time. */
  nowMs?: () => number;
  /** Faults in force (`unfilledWithdrawableAfterMs`). */
  faults?: { get(): SandboxFaults };
}

/** GET /requests/v3 reports `delayed` as `pending`: v3's status set has no `delayed` (migration guide). */
function v3Status(status: SandboxRequestStatus) {
  return status === 'delayed' ? 'pending' : status;
}

/** `requestType` of a quoted order (v3: `Bridge`, `Crosschain Swap`, `Same-chain Swap`, ...). */
function requestType(r: RequestRecord): string | null {
  const o = r.order;
  if (!o) return null;
  if (o.originChainId === o.destinationChainId) return 'Same-chain Swap';
  return o.currencyIn.symbol === o.currencyOut.symbol ? 'Bridge' : 'Crosschain Swap';
}

/**
 * One GET /requests/v3 record.
 * - `status`: as the status endpoint, `delayed` shown as `pending`.
 * - `data.failReason` / `refundFailReason`: null when `N/A` (v3 uses null); `failedTxHash` /
 *   `failedTxBlockNumber` name a reverted fill or refund.
 * - `refundTo`: the quote request's (null when it named none: then nothing is refunded automatically).
 * - `data.refundCurrencyData`: once a refund of a quoted order is mined, what it paid back on the origin chain
 *   (`currency`, `amount` in base units, `amountFormatted`, `amountUsd`, `minimumAmount`), as relay-kit's
 *   generated API types describe the request record; null otherwise. `outTxs` then holds that refund first.
 * - `data.inTxs` / `outTxs`: `{txHash, block, type, chainId (number), timestamp, status, data, stateChanges}`;
 *   outTxs add `fee` (wei).
 * - `protocol.isWithdrawable`: true when the request ended `failure` with its deposit still in the depository
 *   (a failed fill, a failed refund leg, or a deposit that paid no order exactly), which is never returned
 *   automatically (docs/relay-contract.md "What the service does" 5), or when the deposit is still unfilled past its order's
 *   deadline or the `unfilledWithdrawableAfterMs` fault; false once attested for withdrawal
 *   (`src/sandbox/withdrawals/eligibility.ts`). `protocol.deposit.origin`: depositor, `chainId` (number),
 *   currency, amount, depository, onchainId (the deposit's order id), transactionId. `protocol.settlement`:
 *   mined fills and refunds.
 * - `createdAt` / `updatedAt`: ISO-8601 strings.
 */
export function requestJson(r: RequestRecord, ctx: RecordContext) {
  const order = r.order;
  const deposit = r.deposit;
  const failed = r.outTxs.find((o) => o.status === 'failure');
  const settled = (kind: 'fill' | 'refund') =>
    r.outTxs.filter((o) => o.kind === kind && o.status === 'success').map((o) => ({ chainId: o.chainId, transactionId: o.txHash }));
  const refunded = r.outTxs.find((o) => o.kind === 'refund' && o.status === 'success' && o.amount !== null);
  const refundCurrencyData =
    order && refunded?.amount != null
      ? currencyAmountJson(refunded.chainId, order.currencyIn, refunded.amount, priceOf(ctx.prices, order.currencyIn.symbol))
      : null;
  const solverChain = order ? ctx.chains.find((c) => c.slug === order.orderData.solverChainId) : undefined;
  return {
    id: r.requestId,
    status: v3Status(r.status),
    user: r.user,
    sender: order?.user ?? deposit?.from ?? r.user,
    recipient: r.recipient,
    refundTo: order?.refundTo ?? null,
    depositAddress: null,
    requestType: requestType(r),
    data: {
      slippageTolerance: order ? String(order.slippageBps) : null,
      failReason: r.failReason === 'N/A' ? null : r.failReason,
      refundFailReason: r.refundFailReason === 'N/A' ? null : r.refundFailReason,
      failedTxHash: failed?.txHash ?? null,
      failedTxBlockNumber: failed?.block ?? null,
      failedCallData: null,
      usesExternalLiquidity: false,
      inTxs: deposit ? [inTxJson(deposit)] : [],
      outTxs: r.outTxs.map(outTxJson),
      refundCurrencyData,
      fees: order ? feesJson(order, r.status === 'success') : null,
      route: order ? routeJson(order, r.status === 'success' ? r.filledAmount : null, ctx.prices) : null,
    },
    protocol: {
      orderId: order?.orderId ?? deposit?.id ?? null,
      hubType: 'onchain',
      isWithdrawable: depositWithdrawability(r, ctx.nowMs?.() ?? null, ctx.faults?.get().unfilledWithdrawableAfterMs ?? null).withdrawable,
      ...(order
        ? {
            solver: {
              address: order.orderData.solver,
              protocolChainId: order.orderData.solverChainId,
              chainId: solverChain?.chainId ?? null,
            },
          }
        : {}),
      ...(deposit
        ? {
            deposit: {
              origin: {
                amount: deposit.amount.toString(),
                chainId: deposit.chainId,
                currency: deposit.currency,
                depositor: deposit.from,
                depository: findAnyChain(ctx.chains, ctx.vm?.chains ?? [], deposit.chainId)?.depository ?? null,
                onchainId: deposit.id,
                transactionId: deposit.txHash,
              },
            },
          }
        : {}),
      settlement: { destination: { fills: settled('fill'), refunds: settled('refund') } },
    },
    features: order && order.fees.bps.app > 0 ? ['app_fees'] : [],
    createdAt: new Date(r.createdAtMs).toISOString(),
    updatedAt: new Date(r.updatedAtMs).toISOString(),
  };
}
