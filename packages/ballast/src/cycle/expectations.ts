/**
 * What Ballast expects of a quote for a planned transfer, from its own state (docs/relay-contract.md "Local quote
 * verification" 2).
 */
import type { PlannedTransfer } from '../planner/types.ts';
import type { QuoteRequest } from '@ballast/protocol/relay/schemas.ts';
import type { QuoteExpectations } from '../verify/verifyQuote.ts';

/** Basis points in one whole (100 %). */
export const BPS = 10_000n;

/**
 * Builds the POST /quote/v2 body: EXACT_INPUT of `amountIn` from our origin wallet to our destination wallet,
 * with protocol data so the quote can be verified (docs/relay-contract.md "POST /quote/v2"), and `refundTo` = the origin
 * wallet: since 2026-05-01 refunds are paid on the origin chain to `refundTo`, and without it automatic refund is off
 * (https://docs.relay.link/references/api/api_core_concepts/refunds). The wallet itself, never the
 * native-currency "refund to depositor" sentinel (that form belongs to deposit addresses,
 * https://docs.relay.link/features/deposit-addresses), for EVM, Solana and Bitcoin origins alike.
 */
export function buildQuoteRequest(planned: PlannedTransfer, opts: { referrer?: string; slippageBps?: number }): QuoteRequest {
  return {
    user: planned.from.address,
    recipient: planned.to.address,
    refundTo: planned.from.address,
    originChainId: planned.from.chainId,
    destinationChainId: planned.to.chainId,
    originCurrency: planned.from.currency,
    destinationCurrency: planned.to.currency,
    amount: planned.amountIn.toString(),
    tradeType: 'EXACT_INPUT',
    includeProtocolData: true,
    ...(opts.referrer ? { referrer: opts.referrer } : {}),
    ...(opts.slippageBps !== undefined ? { slippageTolerance: String(opts.slippageBps) } : {}),
  };
}

/**
 * The smallest guaranteed output Ballast accepts: the input converted to the destination's decimals, less the
 * configured slippage and the total fee cap. One asset is one value on every chain, so anything below that
 * floor means the quote takes more than the policy allows. The config loader requires `totalBps` and keeps
 * the sum of both below 100 %.
 *
 * @returns minimum acceptable `minimumAmount` in destination base units (at least 1)
 * @throws RangeError when the allowed loss is 100 % or more (a config the loader refuses)
 */
export function minimumAcceptableOutput(planned: PlannedTransfer, opts: { slippageBps?: number; totalFeeBps: number }): bigint {
  const converted = scaleDecimals(planned.amountIn, planned.from.decimals, planned.to.decimals);
  const lossBps = BigInt(opts.slippageBps ?? 0) + BigInt(opts.totalFeeBps);
  if (lossBps >= BPS) throw new RangeError(`slippage + total fee cap is ${lossBps} bps; it must stay below ${BPS}`);
  const floor = (converted * (BPS - lossBps)) / BPS;
  return floor > 0n ? floor : 1n;
}

/**
 * The guaranteed-output floor of a planned transfer: a gas top-up's configured `minOut` (the operator's price
 * floor between two assets, `chains.<name>.gasTopUp.minOut`), else {@link minimumAcceptableOutput} (one asset on
 * both ends). Verification refuses a quote whose summed output `minimumAmount` is below it (docs/relay-contract.md "Local
 * quote verification" 2).
 *
 * @returns the floor in destination base units
 * @throws RangeError as {@link minimumAcceptableOutput}
 */
export function guaranteedOutputFloor(planned: PlannedTransfer, opts: { slippageBps?: number; totalFeeBps: number }): bigint {
  return planned.gasTopUp ? planned.gasTopUp.minOut : minimumAcceptableOutput(planned, opts);
}

/** Converts base units between decimals, rounding down. */
export function scaleDecimals(amount: bigint, fromDecimals: number, toDecimals: number): bigint {
  if (toDecimals >= fromDecimals) return amount * 10n ** BigInt(toDecimals - fromDecimals);
  return amount / 10n ** BigInt(fromDecimals - toDecimals);
}

/**
 * The verifier's expectations for a planned transfer; `refundTo` is the origin wallet, as
 * {@link buildQuoteRequest} asks.
 *
 * @param planned the planner's decision (our wallets, chains, currencies, input in origin base units)
 * @param minOut the guaranteed-output floor, destination base units
 * @param options `ourWallets`: every configured wallet address (refunds may pay any of them);
 *   `maxDeadlineSec`: the deadline horizon (policy.maxDeadlineSec)
 */
export function expectationsFor(
  planned: PlannedTransfer,
  minOut: bigint,
  options: { ourWallets?: readonly string[]; maxDeadlineSec?: number } = {},
): QuoteExpectations {
  return {
    ...options,
    user: planned.from.address,
    recipient: planned.to.address,
    refundTo: planned.from.address,
    originChainId: planned.from.chainId,
    originCurrency: planned.from.currency,
    amount: planned.amountIn,
    destinationChainId: planned.to.chainId,
    destinationCurrency: planned.to.currency,
    minOut,
  };
}
