/**
 * The POST /quote/v2 (and /quote/v3, same body) request body as the sandbox reads it, written from
 * docs/relay-contract.md "POST /quote/v2" and the public reference
 * (https://docs.relay.link/references/api/get-quote-v2), plus `appFees` and `slippageTolerance` as POST /price
 * defines them. This is the sandbox's own reading, kept apart from the client's schemas on purpose: a test double
 * that shared the client's reading would repeat its misreadings.
 *
 * Unknown fields are dropped; an unknown `tradeType` is refused.
 */
import { z } from 'zod';

/** A 20-byte EVM address, 0x hex, any case. */
const EvmAddress = z.string().regex(/^0x[a-fA-F0-9]{40}$/);
/** An amount in base units: a non-negative integer string. */
const BaseUnits = z.string().regex(/^[0-9]+$/, 'expected an unsigned integer string in base units');
/** A non-empty string (addresses and currency ids, checked against the chain's VM later). */
const Text = z.string().min(1);

/** `tradeType` values the API defines: `amount` is the input (EXACT_INPUT) or the output (EXACT_OUTPUT). */
export const TRADE_TYPES = ['EXACT_INPUT', 'EXACT_OUTPUT'] as const;

/**
 * Accepted body. Required: `user`, `originChainId`, `destinationChainId`, `originCurrency`,
 * `destinationCurrency`, `amount` (base units, integer string), `tradeType`. Optional: `recipient`,
 * `includeProtocolData`, `referrer`, `refundTo`, `slippageTolerance` (integer string of bps, 0..10000), Solana
 * routing limits (`maxRouteLength`, `includedOriginSwapSources`), destination calls (`txs`),
 * `useDepositAddress`, `appFees` (`fee` in bps), sponsorship (`subsidizeFees`, `sponsoredFeeComponents`) and
 * `usePermit`. Whether the sandbox serves a valid request is decided afterwards (src/quote/request.ts).
 */
export const SandboxQuoteRequestSchema = z.object({
  user: Text,
  recipient: Text.optional(),
  originChainId: z.number().int(),
  destinationChainId: z.number().int(),
  originCurrency: Text,
  destinationCurrency: Text,
  amount: BaseUnits,
  tradeType: z.enum(TRADE_TYPES),
  includeProtocolData: z.boolean().optional(),
  referrer: z.string().optional(),
  refundTo: z.string().optional(),
  slippageTolerance: z
    .string()
    .regex(/^([0-9]{1,4}|10000)$/)
    .optional(),
  maxRouteLength: z.number().int().optional(),
  includedOriginSwapSources: z.array(z.string()).optional(),
  txs: z.array(z.object({ to: EvmAddress, value: z.string(), data: z.string().regex(/^0x[a-fA-F0-9]*$/) })).optional(),
  useDepositAddress: z.boolean().optional(),
  appFees: z.array(z.object({ recipient: EvmAddress, fee: z.string().regex(/^[0-9]+$/) })).optional(),
  subsidizeFees: z.boolean().optional(),
  sponsoredFeeComponents: z.array(z.string()).optional(),
  usePermit: z.boolean().optional(),
});
/** A validated sandbox quote request (amounts still integer strings; converted to bigint when resolved). */
export type SandboxQuoteRequest = z.infer<typeof SandboxQuoteRequestSchema>;
