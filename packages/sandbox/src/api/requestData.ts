/**
 * Parts of a GET /requests/v3 record's `data` (docs/relay-contract.md "Request record", "Full fee breakdown"), shaped like
 * the v3 record Relay publishes (relayprotocol/relay-docs `references/api/api_guides/migrating-to-requests-v3.mdx`):
 * `inTxs` / `outTxs` entries keyed `txHash` with numeric `chainId`; `fees.{quoted,actual,currency}` with
 * components `swap`, `execution`, `platform`, `app`, `sponsored` (`usd` negative for a cost, `amount` and
 * `amountFormatted` in input-currency units); `route.{quoted,actual}` legs of currency amounts.
 */
import { formatUnits } from 'viem';
import { formatUsdMicros } from '@ballast/protocol/core/units.ts';
import type { QuotedOrder } from '../quote/buildQuote.ts';
import { currencyAmountJson, currencyJson, rateString } from '../quote/currencyJson.ts';
import type { FeeComponent } from '../quote/fees.ts';
import { priceOf, type UsdPrices } from '../quote/prices.ts';
import type { ObservedDeposit, OutTx } from './requestStore.ts';

/** An `inTxs[]` entry for the depository deposit: always a successful on-chain transaction (it emitted the event). */
export function inTxJson(d: ObservedDeposit) {
  return {
    txHash: d.txHash,
    block: Number(d.blockNumber),
    type: 'onchain',
    chainId: d.chainId,
    timestamp: d.blockTimestamp,
    status: 'success' as const,
    data: {},
    stateChanges: [],
  };
}

/**
 * An `outTxs[]` entry for a fill or refund the solver sent. `fee` (wei), `block`, `timestamp` (unix seconds)
 * and `status` appear once the receipt is read.
 */
export function outTxJson(o: OutTx) {
  return {
    txHash: o.txHash,
    ...(o.feeWei !== null ? { fee: o.feeWei.toString() } : {}),
    ...(o.block !== null ? { block: o.block } : {}),
    type: 'onchain',
    chainId: o.chainId,
    ...(o.timestampSec !== null ? { timestamp: o.timestampSec } : {}),
    ...(o.status !== null ? { status: o.status } : {}),
    data: {},
    stateChanges: [],
  };
}

/**
 * `data.fees`: `quoted` (at quote time), `actual` (only once filled: the sandbox charges what it quoted) and
 * the input `currency` the amounts are in. Component `usd` strings are negative costs; `sponsored` is 0.
 */
export function feesJson(order: QuotedOrder, filled: boolean) {
  const decimals = order.currencyIn.decimals;
  const component = (c: FeeComponent) => ({
    usd: formatUsdMicros(-c.usdMicros),
    amount: c.amount.toString(),
    amountFormatted: formatUnits(c.amount, decimals),
  });
  const f = order.fees;
  const quoted = {
    swap: component(f.swap),
    execution: component(f.execution),
    platform: component(f.platform),
    app: component(f.app),
    sponsored: { usd: '0', amount: '0', amountFormatted: '0' },
  };
  return { quoted, ...(filled ? { actual: quoted } : {}), currency: currencyJson(order.originChainId, order.currencyIn) };
}

/**
 * `data.route`: the quoted legs (origin: the input kept as is; destination: the expected output with its
 * minimum) and the `actual` legs, which carry `rate` and the delivered output once filled, else fall back to
 * the quoted ones.
 *
 * @param filledAmount output delivered, destination base units; null before a fill
 * @throws SandboxPriceError when a currency of the order has no price (it had one when quoted)
 */
export function routeJson(order: QuotedOrder, filledAmount: bigint | null, prices: UsdPrices) {
  const { currencyIn: cin, currencyOut: cout } = order;
  const inAmount = currencyAmountJson(order.originChainId, cin, order.amountIn, priceOf(prices, cin.symbol));
  const outAmount = (amount: bigint, minimum: bigint) =>
    currencyAmountJson(order.destinationChainId, cout, amount, priceOf(prices, cout.symbol), minimum);
  const quotedOut = outAmount(order.expectedOut, order.minimumOut);
  const origin = { inputCurrency: inAmount, outputCurrency: inAmount, router: 'relay' };
  const delivered = filledAmount ?? order.expectedOut;
  return {
    includedSwapSources: [],
    includedOriginSwapSources: [],
    includedDestinationSwapSources: [],
    quoted: { origin, destination: { inputCurrency: quotedOut, outputCurrency: quotedOut, router: 'relay' } },
    actual: {
      rate: rateString(order.amountIn, cin.decimals, delivered, cout.decimals),
      origin,
      destination: {
        inputCurrency: quotedOut,
        outputCurrency: filledAmount === null ? quotedOut : outAmount(filledAmount, filledAmount),
        router: 'relay',
      },
    },
  };
}
