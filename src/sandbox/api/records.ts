/**
 * JSON views of a request record: the status record of GET /intents/status/v3 (spec "Request status record")
 * and the request record of GET /requests/v3 (spec "Request record", "Full fee breakdown").
 */
import { formatUsdMicros } from '../../core/units.ts';
import { findChain, type SandboxChainTable } from '../quote/chainTable.ts';
import type { FeeComponent, FeeQuote } from '../quote/fees.ts';
import type { RequestRecord } from './requestStore.ts';

/**
 * GET /intents/status/v3 body: status, inTxHashes, txHashes, updatedAt (ms), originChainId,
 * destinationChainId, plus requestId, failReason (`N/A` unless failed/refunded), refundFailReason, details.
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
    refundFailReason: 'N/A',
    details: null,
  };
}

function component(c: FeeComponent) {
  return { usd: formatUsdMicros(c.usdMicros), amount: c.amount.toString() };
}

/**
 * `data.fees.quoted` (spec "Full fee breakdown": execution, swap, platform, app, sponsored). Each component
 * is `{usd, amount}`: the cost as a positive USD string and in input-currency base units.
 */
export function feesJson(f: FeeQuote) {
  return {
    execution: component(f.execution),
    swap: component(f.swap),
    platform: component(f.platform),
    app: component(f.app),
    sponsored: { usd: '0', amount: '0' },
  };
}

/**
 * One GET /requests/v3 record. `protocol.isWithdrawable` is true when the request ended `failure` with its
 * deposit still in the depository: a failed fill, or a deposit that paid no order exactly (wrong chain,
 * depositor, currency or amount, expired or unknown order, second deposit), which is never returned
 * automatically (spec "What the service does" 5, "Request record"). `protocol.deposit.origin.chainId` is the
 * protocol slug, like the withdrawal endpoints use. `createdAt`/`updatedAt` are ISO-8601 strings.
 */
export function requestJson(r: RequestRecord, table: SandboxChainTable) {
  const slugOf = (chainId: number) => findChain(table, chainId)?.slug ?? String(chainId);
  const order = r.order;
  const outChain = r.status === 'refund' ? r.originChainId : r.destinationChainId;
  const quoted = order ? feesJson(order.fees) : null;
  return {
    id: r.requestId,
    status: r.status,
    user: r.user,
    recipient: r.recipient,
    data: {
      failReason: r.failReason,
      refundFailReason: 'N/A',
      fees: quoted ? { quoted, ...(r.status === 'success' ? { actual: quoted } : {}) } : {},
      inTxs: r.deposit
        ? [{ hash: r.deposit.txHash, chainId: r.deposit.chainId, blockNumber: Number(r.deposit.blockNumber) }]
        : [],
      outTxs: r.txHashes.map((hash) => ({ hash, chainId: outChain })),
      metadata: order
        ? {
            sender: order.user,
            recipient: order.recipient,
            currencyIn: { chainId: order.originChainId, address: order.currencyIn.address, amount: order.amountIn.toString() },
            currencyOut: {
              chainId: order.destinationChainId,
              address: order.currencyOut.address,
              amount: (r.filledAmount ?? order.expectedOut).toString(),
              minimumAmount: order.minimumOut.toString(),
            },
          }
        : null,
    },
    protocol: {
      isWithdrawable: r.status === 'failure' && r.deposit !== null,
      orderId: order?.orderId ?? r.deposit?.id ?? null,
      ...(r.deposit
        ? {
            deposit: {
              origin: {
                depositor: r.deposit.from,
                chainId: slugOf(r.deposit.chainId),
                currency: r.deposit.currency,
                amount: r.deposit.amount.toString(),
                transactionId: r.deposit.txHash,
              },
            },
          }
        : {}),
    },
    createdAt: new Date(r.createdAtMs).toISOString(),
    updatedAt: new Date(r.updatedAtMs).toISOString(),
  };
}
