/**
 * zod schemas of the POST /quote/v3 response, for what the public material documents
 * (https://docs.relay.link/references/api/api_guides/migrating-to-quote-v3; step shape from
 * https://docs.relay.link/references/api/execute-permits-v2, whose steps have "the same shape" as quote v3 steps;
 * fee structure from https://docs.relay.link/references/api/api_guides/migrating-to-requests-v3).
 *
 * Strict where the docs show a type (a shown field has that type when present; the step fields every example
 * carries are required), lenient where they show nothing: unknown keys are kept, and the parts whose presence
 * in v3 is not shown (`requestId`, `details`, `protocol`) are optional here. Whether what local verification
 * needs is there is decided by the mapping (`v3.ts`), which refuses the quote when it is not.
 */
import { z } from 'zod';
import { DecimalString, IntString } from '@ballast/protocol/core/units.ts';
import { CurrencySchema } from '@ballast/protocol/relay/schemas.ts';

/**
 * `depositAddress` of a v3 step: an object (v2 had a string). Every member is shown as a string; whether the
 * object is null or absent when no deposit address is used is not shown, so both are accepted.
 */
export const QuoteV3DepositAddressSchema = z.looseObject({
  address: z.string().optional(),
  type: z.string().optional(),
  depositor: z.string().optional(),
  depositTxHash: z.string().optional(),
  recoveryAddress: z.string().optional(),
});

/**
 * One flat v3 step (one step per action): `status`, `data` and `check` sit on the step, no `items` array.
 * `data` differs by VM (EVM: to, data, value, chainId, gas fields; Solana and Bitcoin: not shown), so it stays
 * an open object; each VM's verifier parses it with its own schema after the mapping.
 */
export const QuoteV3StepSchema = z.looseObject({
  id: z.string().min(1),
  action: z.string(),
  description: z.string(),
  kind: z.string().min(1),
  status: z.string(),
  data: z.looseObject({}),
  depositAddress: QuoteV3DepositAddressSchema.nullable().optional(),
  depositAddressId: z.string().nullable().optional(),
  check: z.looseObject({ endpoint: z.string().min(1), method: z.string() }).optional(),
  requestId: z.string().optional(),
});
export type QuoteV3Step = z.infer<typeof QuoteV3StepSchema>;

/**
 * One fee component as in GET /requests/v3 `data.fees`: `usd` signed (costs negative, sponsorship positive),
 * `amount` in base units of the shared `currency`.
 */
export const QuoteV3FeeComponentSchema = z.looseObject({
  usd: DecimalString,
  amount: IntString.optional(),
  amountFormatted: z.string().optional(),
});

/** The components of one phase (`quoted` or `actual`): `swap`, `execution`, `platform`, `app`, `sponsored`. */
export const QuoteV3FeePhaseSchema = z.looseObject({
  swap: QuoteV3FeeComponentSchema.optional(),
  execution: QuoteV3FeeComponentSchema.optional(),
  platform: QuoteV3FeeComponentSchema.optional(),
  app: QuoteV3FeeComponentSchema.optional(),
  sponsored: QuoteV3FeeComponentSchema.optional(),
});

/** v3 `fees`: the GET /requests/v3 structure. Which phases a quote carries is not shown: both optional. */
export const QuoteV3FeesSchema = z.looseObject({
  quoted: QuoteV3FeePhaseSchema.optional(),
  actual: z.looseObject({}).optional(),
  currency: CurrencySchema.optional(),
});
export type QuoteV3Fees = z.infer<typeof QuoteV3FeesSchema>;

/** POST /quote/v3 response, as far as documented. `details` and `protocol` are read by the mapping. */
export const QuoteV3ResponseSchema = z.looseObject({
  requestId: z.string().optional(),
  steps: z.array(QuoteV3StepSchema).min(1),
  fees: QuoteV3FeesSchema.optional(),
  details: z.looseObject({}).optional(),
  protocol: z.looseObject({}).optional(),
});
export type QuoteV3Response = z.infer<typeof QuoteV3ResponseSchema>;
