/**
 * The loss a quote's signed order guarantees at worst, independent of what its `details` claim: the payment
 * amount less the output's `minimumAmount` (docs/relay-contract.md "protocol.v2": minimumAmount is the floor enforced at
 * settlement). `details` are the API's own account of fees and could understate them; the order cannot.
 * Pure; exact integer arithmetic on base units, micro-USD and bps.
 */
import { formatUsdMicros } from '@ballast/protocol/core/units.ts';

const BPS = 10_000n;

/**
 * What the order guarantees for a transfer within one asset (the same value on both chains, possibly with
 * different decimals): `amountIn` origin base units paid, `minOut` destination base units guaranteed.
 * `slippageBps` is the tolerance Ballast requested (integer bps), allowed on top of the fee caps.
 */
export interface OrderGuarantee {
  amountIn: bigint;
  decimalsIn: number;
  minOut: bigint;
  decimalsOut: number;
  slippageBps: number;
}

/** A guaranteed-loss cap that the order exceeds: `guaranteed_loss_bps` or `guaranteed_loss_usd`. */
export interface GuaranteedLossBreach {
  reason: 'guaranteed_loss_bps' | 'guaranteed_loss_usd';
  detail: string;
}

/**
 * Worst-case loss as a fraction of the input: `num / den`, both in a common scale (the input and the
 * guaranteed output converted to 10^(decimalsIn + decimalsOut) units). `num` ≤ 0 means no loss.
 */
export function guaranteedLossFraction(g: OrderGuarantee): { num: bigint; den: bigint } {
  const den = g.amountIn * 10n ** BigInt(g.decimalsOut);
  const out = g.minOut * 10n ** BigInt(g.decimalsIn);
  return { num: den - out, den };
}

/**
 * Bounds the guaranteed loss by the fee caps plus the slippage tolerance: in bps against `totalBps +
 * slippageBps`, and, when `totalUsd` is set and the input's USD value is known, in USD against `totalUsd +
 * slippageBps of the input value`.
 *
 * @param g what the order guarantees (base units, decimals, slippage bps)
 * @param caps `totalBps` (integer bps) and `totalUsd` (micro-USD) caps; unset caps are not checked
 * @param inputUsdMicros USD value of the input in micro-USD (`details.currencyIn.amountUsd`), or null
 * @returns every breach, bps first; empty when within bounds
 */
export function checkGuaranteedLoss(
  g: OrderGuarantee,
  caps: { totalBps?: bigint; totalUsdMicros?: bigint },
  inputUsdMicros: bigint | null,
): GuaranteedLossBreach[] {
  const { num, den } = guaranteedLossFraction(g);
  if (num <= 0n || den <= 0n) return [];
  const slippage = BigInt(g.slippageBps);
  const lossBps = (num * BPS) / den;
  const breaches: GuaranteedLossBreach[] = [];
  if (caps.totalBps !== undefined && num * BPS > (caps.totalBps + slippage) * den) {
    breaches.push({
      reason: 'guaranteed_loss_bps',
      detail: `the order guarantees only ${g.minOut} (minimumAmount) for ${g.amountIn}: a worst-case loss of ${lossBps} bps, above totalBps ${caps.totalBps} + slippage ${slippage} bps`,
    });
  }
  if (caps.totalUsdMicros !== undefined && inputUsdMicros !== null && inputUsdMicros > 0n) {
    const lossMicros = (inputUsdMicros * num) / den;
    const allowed = caps.totalUsdMicros + (inputUsdMicros * slippage) / BPS;
    if (lossMicros > allowed) {
      breaches.push({
        reason: 'guaranteed_loss_usd',
        detail: `the order's worst-case loss is ${formatUsdMicros(lossMicros)} USD, above totalUsd ${formatUsdMicros(caps.totalUsdMicros)} + slippage (${formatUsdMicros(allowed)} USD)`,
      });
    }
  }
  return breaches;
}
