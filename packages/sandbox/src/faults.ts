/**
 * Fault modes of the local Relay sandbox: knobs that make the sandbox API and solver misbehave on purpose so
 * tests and rehearsals can exercise every path of a client (extra fees, slow or missing fills, refunds,
 * failures, 429/503 bursts, oversized Solana transactions, and quotes tampered after signing that local
 * verification must refuse — docs/relay-contract.md "Local quote verification").
 */
import { z } from 'zod';
import { DECIMAL_STRING_RE, formatUsdMicros, parseUsdMicros } from '@ballast/protocol/core/units.ts';
import { FAULT_FAIL_REASONS, FAULT_REFUND_FAIL_REASONS, type FailReason, type RefundFailReason } from './failReasons.ts';
import type { SolanaTxTooLargeFault } from './quote/solanaSize.ts';

/**
 * Ways a served quote can be tampered with AFTER the solver signed it. Each one breaks exactly one rule of
 * docs/relay-contract.md "Local quote verification" (see `src/sandbox/quote/tamper.ts` for what each changes):
 * recipient, guaranteed output (minimumAmount), output currency, output chain, input payment amount,
 * deadline, order id, depository, depositor, deposit id, native-vs-ERC-20 value, approve amount / spender /
 * token, unexpected extra step, solver signature; refund recipient and currency, a deadline parked far
 * ahead, extraData naming an unlisted address, an unlisted solver, the payment weight, and details that
 * disagree with the order.
 */
export const TAMPER_KINDS = [
  'recipient',
  'minimumAmount',
  'outputCurrency',
  'outputChain',
  'paymentAmount',
  'expiredDeadline',
  'orderId',
  'depository',
  'depositor',
  'depositId',
  'nativeValue',
  'approveAmount',
  'approveSpender',
  'approveToken',
  'approveRouter',
  'extraStep',
  'orderSignature',
  'refundRecipient',
  'refundCurrency',
  'farDeadline',
  'extraData',
  'solver',
  'paymentWeight',
  'detailsOutAmount',
] as const;
/** One tamper kind ({@link TAMPER_KINDS}). */
export type TamperKind = (typeof TAMPER_KINDS)[number];

/**
 * Tampers of Solana- and Bitcoin-origin quotes, applied after signing like {@link TAMPER_KINDS} (see
 * `src/sandbox/quote/vmTamper.ts`): Bitcoin PSBT — an extra output to a stranger, a deposit amount other than
 * the payment, the deposit paid to a stranger instead of the depository, no order-id OP_RETURN, an input that
 * is not the user's, the change paid to a stranger, a fee far above any cap, a miner fee of 39 % of the
 * payment; Solana — an extra System transfer to a stranger, a vault account that is not the depository's vault
 * PDA, an instruction amount other than the payment.
 */
export const VM_TAMPER_KINDS = [
  'psbtExtraOutput',
  'psbtAmount',
  'psbtDepository',
  'psbtNoOpReturn',
  'psbtForeignInput',
  'psbtChangeStranger',
  'psbtHighFee',
  'psbtMinerFee',
  'svmExtraTransfer',
  'svmVault',
  'svmAmount',
] as const;
/** One Solana or Bitcoin tamper kind ({@link VM_TAMPER_KINDS}). */
export type VmTamperKind = (typeof VM_TAMPER_KINDS)[number];
/** Any tamper the `tamper` fault can hold. */
export type AnyTamperKind = TamperKind | VmTamperKind;

/**
 * Extra fees added on top of the normal pricing (docs/relay-contract.md "Fee components"). Basis points are integers
 * (100 bps = 1 %); `executionUsd` is a USD decimal string added to the execution component.
 */
export interface ExtraFees {
  swapBps?: number;
  platformBps?: number;
  appBps?: number;
  executionUsd?: string;
}

/** A burst of HTTP errors: the next `count` API requests answer `status` with `retry-after: 1`. */
export interface HttpErrorBurst {
  status: 429 | 503;
  count: number;
}

/**
 * Every fault knob of the sandbox.
 * - `extraFees`: added to every new quote's fee components.
 * - `extraFeesByOrigin`: per origin chain slug, added to the fees of every new quote from that chain (on top of
 *   `extraFees`), so routes from different donors cost differently.
 * - `fillDelayMs`: milliseconds between the deposit being indexed (`pending`) and the fill being sent.
 * - `neverFill`: the request stays `pending` forever.
 * - `refund`: the solver returns the deposit on the origin chain instead of filling (status `refund`), to
 *   the order's refund recipient. It also returns deposits that do not match their order (or name no order)
 *   instead of leaving them in the depository: to the refund recipient of the order the deposit's id names,
 *   else to the depositor.
 * - `failure`: the request ends `failure`; the deposit stays in the depository (withdrawable).
 * - `failReason`: the published `failReason` the `failure` and `refund` faults record (default `UNKNOWN`).
 * - `refundFailReason`: with `refund`, the refund leg fails with this published reason: nothing is returned,
 *   the request ends `failure` (failReason per `failReason`) and the deposit stays withdrawable.
 * - `delayed`: after the deposit is indexed the status goes `pending` → `delayed` (the live API's status for a
 *   fill running late, docs/design.md "Status enum") before the fill is sent.
 * - `unknownStatus`: while a request waits for its fill (pending or delayed), GET /intents/status/v3 reports
 *   this value instead (e.g. `fallback`, named in the failReason of docs/relay-contract.md "Events", or any value a client
 *   does not know yet), so clients can show they treat statuses outside docs/relay-contract.md "Request status" as not
 *   final.
 * - `fillAmount`: what a fill pays the recipient: the quote's `expectedAmount` (default) or only its
 *   `minimumAmount`, the floor the real service guarantees (docs/relay-contract.md "protocol.v2": orderData).
 * - `tamper` / `tamperCount`: tamper the next `tamperCount` served quotes (every quote while `tamperCount`
 *   is null/undefined) with the given kind.
 * - `platformKey`: key of the platform component in `details.expandedPriceImpact` and
 *   `feeSponsorship.quoted.components` (`relay` like the live API, or the documented `service`, docs/relay-contract.md "Full
 *   fee breakdown").
 * - `httpErrors`: a burst of 429 or 503 answers.
 * - `quoteDeadlineSec`: seconds from quote time to `orderData.output.deadline` (and refund deadlines).
 * - `bitcoinQuoteDeadlineSec`: the same for Bitcoin-origin quotes (default one hour: a deposit waits for a
 *   block, about ten minutes each, before the fill, so a ten-minute order could not be met).
 * - `solanaTxTooLarge`: Solana-origin quotes answer 400 `SOLANA_TX_TOO_LARGE` unless the request narrows the
 *   origin route as far as the value says (see `src/sandbox/quote/solanaSize.ts`); null = off.
 * - `attestUnavailable`: POST /withdrawals/attest-deposit answers 503 ("not yet finalized") this many more
 *   times (count, consumed one per call; docs/relay-contract.md "Withdrawal endpoints": 503 means wait and retry).
 * - `withdrawalFail`: this many next withdrawal jobs end `failed` (with a reason) instead of `ready`; the
 *   amount goes back to the hub balance.
 * - `withdrawalExpire`: this many next withdrawal jobs end `expired` instead of `ready`; the amount goes back
 *   to the hub balance.
 * - `withdrawalShortfall`: prepare (POST /withdrawals/request without a signature) offers this many base units
 *   (decimal string) less than asked, floored at 0, while the amount asked stays in the hub: a job executed for
 *   the offer leaves the rest of the deposit there, to be withdrawn later (null = offer what is asked).
 * - `unfilledWithdrawableAfterMs`: a deposit still unfilled this many milliseconds after it was seen is
 *   withdrawable (`protocol.isWithdrawable`); null = only once its order's output deadline has passed.
 * - `blockedWallets`: addresses on a sandbox screening blocklist: a quote whose `user`, `recipient` or `refundTo`
 *   is listed answers HTTP 400 `BLOCKED_WALLET_ADDRESS` (https://docs.relay.link/security/transaction-screening,
 *   quote-time block). The fill-time block is the `failure` fault with `failReason` `BLOCKED_WALLET`: the request
 *   ends `failure` and the deposit stays in the depository (held for compliance review).
 * - `webhookDrop` / `webhookDuplicate` / `webhookDelayMs`: webhook deliveries (startSandbox `webhook`) are
 *   not sent at all / sent twice / sent this many milliseconds late (src/sandbox/webhooks/sender.ts).
 * - `tokenPriceError`: GET /currencies/token/price answers 500 (src/api/tokenPrice.ts).
 */
export interface SandboxFaults {
  extraFees?: ExtraFees;
  extraFeesByOrigin?: Record<string, ExtraFees>;
  fillDelayMs: number;
  neverFill: boolean;
  refund: boolean;
  failure: boolean;
  failReason: Exclude<FailReason, 'N/A'>;
  refundFailReason: Exclude<RefundFailReason, 'N/A'> | null;
  delayed: boolean;
  unknownStatus: string | null;
  fillAmount: FillAmount;
  tamper?: AnyTamperKind | null;
  tamperCount?: number | null;
  platformKey: 'relay' | 'service';
  httpErrors?: HttpErrorBurst | null;
  quoteDeadlineSec: number;
  bitcoinQuoteDeadlineSec: number;
  solanaTxTooLarge?: SolanaTxTooLargeFault | null;
  attestUnavailable?: number;
  withdrawalFail?: number;
  withdrawalExpire?: number;
  withdrawalShortfall?: string | null;
  unfilledWithdrawableAfterMs?: number | null;
  webhookDrop?: boolean;
  webhookDuplicate?: boolean;
  webhookDelayMs?: number;
  blockedWallets?: string[];
  tokenPriceError?: boolean;
}

/** Which quoted output a fill pays: `expected` (`expectedAmount`) or `minimum` (`minimumAmount`). */
export type FillAmount = 'expected' | 'minimum';

/** Defaults: a well-behaved service that fills `expectedAmount` 250 ms after the deposit, quotes valid for 600 s. */
export const DEFAULT_SANDBOX_FAULTS: Readonly<SandboxFaults> = Object.freeze({
  extraFees: {},
  fillDelayMs: 250,
  neverFill: false,
  refund: false,
  failure: false,
  failReason: 'UNKNOWN',
  refundFailReason: null,
  delayed: false,
  unknownStatus: null,
  fillAmount: 'expected',
  tamper: null,
  tamperCount: null,
  platformKey: 'relay',
  httpErrors: null,
  quoteDeadlineSec: 600,
  bitcoinQuoteDeadlineSec: 3_600,
  solanaTxTooLarge: null,
  attestUnavailable: 0,
  withdrawalFail: 0,
  withdrawalExpire: 0,
  withdrawalShortfall: null,
  unfilledWithdrawableAfterMs: null,
  webhookDrop: false,
  webhookDuplicate: false,
  webhookDelayMs: 0,
});

const Bps = z.number().int().min(0).max(10_000);

/**
 * zod schema of a partial faults patch (body of `POST /_sandbox/faults`). Unknown keys are refused so a
 * misspelt knob is reported instead of silently ignored.
 */
const ExtraFeesSchema = z.strictObject({
  swapBps: Bps.optional(),
  platformBps: Bps.optional(),
  appBps: Bps.optional(),
  executionUsd: z.string().regex(DECIMAL_STRING_RE).optional(),
});

export const SandboxFaultsPatchSchema = z.strictObject({
  extraFees: ExtraFeesSchema.optional(),
  extraFeesByOrigin: z.record(z.string().regex(/^[a-z0-9-]{1,32}$/), ExtraFeesSchema).optional(),
  fillDelayMs: z.number().int().min(0).max(600_000).optional(),
  neverFill: z.boolean().optional(),
  refund: z.boolean().optional(),
  failure: z.boolean().optional(),
  failReason: z.enum(FAULT_FAIL_REASONS).optional(),
  refundFailReason: z.enum(FAULT_REFUND_FAIL_REASONS).nullable().optional(),
  delayed: z.boolean().optional(),
  unknownStatus: z
    .string()
    .regex(/^[a-z][a-z_-]{0,31}$/)
    .nullable()
    .optional(),
  fillAmount: z.enum(['expected', 'minimum']).optional(),
  tamper: z
    .enum([...TAMPER_KINDS, ...VM_TAMPER_KINDS])
    .nullable()
    .optional(),
  tamperCount: z.number().int().min(0).nullable().optional(),
  platformKey: z.enum(['relay', 'service']).optional(),
  httpErrors: z
    .strictObject({ status: z.union([z.literal(429), z.literal(503)]), count: z.number().int().min(0) })
    .nullable()
    .optional(),
  quoteDeadlineSec: z
    .number()
    .int()
    .min(1)
    .max(86_400 * 30)
    .optional(),
  bitcoinQuoteDeadlineSec: z
    .number()
    .int()
    .min(1)
    .max(86_400 * 30)
    .optional(),
  solanaTxTooLarge: z
    .strictObject({ fitsAtMaxRouteLength: z.number().int().min(1).nullable(), fitsWithSingleSource: z.boolean() })
    .nullable()
    .optional(),
  attestUnavailable: z.number().int().min(0).optional(),
  withdrawalFail: z.number().int().min(0).optional(),
  withdrawalExpire: z.number().int().min(0).optional(),
  withdrawalShortfall: z
    .string()
    .regex(/^(0|[1-9][0-9]{0,77})$/, 'expected base units as a decimal string')
    .nullable()
    .optional(),
  unfilledWithdrawableAfterMs: z.number().int().min(0).max(86_400_000).nullable().optional(),
  webhookDrop: z.boolean().optional(),
  webhookDuplicate: z.boolean().optional(),
  webhookDelayMs: z.number().int().min(0).max(600_000).optional(),
  tokenPriceError: z.boolean().optional(),
  blockedWallets: z.array(z.string().min(1).max(128)).max(100).optional(),
});

/**
 * The extra fees of a quote from `originSlug`: `extraFees` plus `extraFeesByOrigin[originSlug]`, component by
 * component (bps added, USD amounts added exactly).
 */
export function extraFeesFor(faults: Pick<SandboxFaults, 'extraFees' | 'extraFeesByOrigin'>, originSlug: string): ExtraFees {
  const a = faults.extraFees ?? {};
  const b = faults.extraFeesByOrigin?.[originSlug];
  if (!b) return a;
  const add = (x: number | undefined, y: number | undefined) => (x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0));
  const usd =
    a.executionUsd === undefined && b.executionUsd === undefined
      ? undefined
      : formatUsdMicros(parseUsdMicros(a.executionUsd ?? '0') + parseUsdMicros(b.executionUsd ?? '0'));
  const out: ExtraFees = {};
  for (const [k, v] of [
    ['swapBps', add(a.swapBps, b.swapBps)],
    ['platformBps', add(a.platformBps, b.platformBps)],
    ['appBps', add(a.appBps, b.appBps)],
  ] as const) {
    if (v !== undefined) out[k] = v;
  }
  if (usd !== undefined) out.executionUsd = usd;
  return out;
}

/**
 * Applies a partial patch to a faults value. Top-level keys replace (an `extraFees` object replaces the
 * previous one as a whole, so `{extraFees: {}}` clears extra fees); keys absent from the patch are kept.
 *
 * @param current faults in force
 * @param patch partial faults (already validated, e.g. by {@link SandboxFaultsPatchSchema})
 * @returns a new faults object; `current` is not modified
 */
export function mergeFaults(current: SandboxFaults, patch: Partial<SandboxFaults>): SandboxFaults {
  const next: SandboxFaults = { ...current };
  for (const [key, value] of Object.entries(patch) as [keyof SandboxFaults, unknown][]) {
    // Object.entries loses the key/value pairing; each value came from the same typed patch object.
    if (value !== undefined) (next as unknown as Record<string, unknown>)[key] = value;
  }
  return next;
}
