/**
 * zod schemas of the withdrawal surface of the Relay API (docs/relay-contract.md "Withdrawal endpoints", "Withdrawal
 * objects", "Withdrawal job status", "Request record (GET /requests/v3), fields used by withdrawals").
 *
 * The withdrawal endpoints are not a versioned surface (docs/relay-contract.md "Versioning"): objects are loose (unknown
 * fields kept) and only the fields Ballast acts on are required. Amounts are base-unit integer strings.
 */
import { z } from 'zod';
import { UintString } from '@ballast/protocol/core/units.ts';
import type { WithdrawalRequestFields } from '@ballast/protocol/protocol/withdrawalDigest.ts';

/**
 * `protocol.deposit.origin` of a request record: the deposit a withdrawal would recover. `chainId` is the
 * numeric chain id; a string is accepted too (a numeric string or a protocol slug) since the surface is not
 * versioned. `currency` is the token address / mint, or the VM's native id.
 */
export const DepositOriginSchema = z.looseObject({
  depositor: z.string().min(1),
  chainId: z.union([z.number().int().positive(), z.string().min(1)]),
  currency: z.string().min(1),
  amount: UintString,
  transactionId: z.string().min(1),
});
export type DepositOrigin = z.infer<typeof DepositOriginSchema>;

/**
 * The `protocol` block of a GET /requests/v3 record (present once the service observed a deposit for the
 * request). `isWithdrawable` is true when the deposit is recoverable.
 */
export const RequestProtocolSchema = z.looseObject({
  isWithdrawable: z.boolean(),
  deposit: z.looseObject({ origin: DepositOriginSchema }).optional(),
});
export type RequestProtocol = z.infer<typeof RequestProtocolSchema>;

/** POST /withdrawals/attest-deposit response: `{success: true}`. */
export const AttestResponseSchema = z.looseObject({ success: z.boolean() });
export type AttestResponse = z.infer<typeof AttestResponseSchema>;

/** POST /withdrawals/request prepare response: `nonce` hex, `amount` base units, `additionalData` when given. */
export const PrepareResponseSchema = z.looseObject({
  nonce: z.string().regex(/^0x[0-9a-fA-F]+$/, 'expected a 0x-prefixed hex nonce'),
  amount: UintString,
  additionalData: z.record(z.string(), z.unknown()).optional(),
});
export type PrepareResponse = z.infer<typeof PrepareResponseSchema>;

/** POST /withdrawals/request execute response: the job id and its first status (`processing`). */
export const ExecuteResponseSchema = z.looseObject({ jobId: z.string().min(1), status: z.string().min(1) });
export type ExecuteResponse = z.infer<typeof ExecuteResponseSchema>;

/**
 * GET /withdrawals/status response. `status` is any non-empty string: docs/relay-contract.md "Withdrawal job status" names
 * processing, initiating, attesting, ready and the terminal executed, expired, failed; any other value is treated as
 * not terminal. `transaction` (when `ready`) stays `unknown` here: it is an EVM transaction
 * request, Solana instructions or a Tron payload depending on the chain, parsed by the caller for its VM.
 */
export const WithdrawalStatusSchema = z.looseObject({
  status: z.string().min(1),
  reason: z.string().optional(),
  transaction: z.unknown().optional(),
});
export type WithdrawalStatus = z.infer<typeof WithdrawalStatusSchema>;

/**
 * The EVM transaction a `ready` job hands the owner: chain id (number), the depository as `to`, the calldata and
 * the value in wei as an integer string (absent read as "0"). It is verified before anything is signed
 * (src/verify/withdrawalTx.ts).
 */
export const EvmWithdrawalTxSchema = z.looseObject({
  chainId: z.number().int().positive(),
  to: z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'expected a 20-byte 0x address'),
  data: z.string().regex(/^0x([0-9a-fA-F]{2})*$/, 'expected 0x-prefixed hex calldata'),
  value: UintString.default('0'),
});
export type EvmWithdrawalTx = z.infer<typeof EvmWithdrawalTxSchema>;

/** Body of a 409 `WITHDRAWAL_IN_PROGRESS` answer: `existingJobId` names the job already in flight. */
export const WithdrawalInProgressBodySchema = z.looseObject({
  errorCode: z.literal('WITHDRAWAL_IN_PROGRESS'),
  existingJobId: z.string().min(1),
});

/** Fields of POST /withdrawals/request, defined beside the digest that signs them. */
export type { WithdrawalRequestFields };

/** Execute adds the prepare's nonce, the owner's signature and, only when prepare gave it, `additionalData`. */
export interface WithdrawalExecuteFields extends WithdrawalRequestFields {
  nonce: string;
  signature: string;
  additionalData?: Record<string, unknown>;
}
