/**
 * Validators (docs/approvals.md "Validators"): the canonical request Ballast POSTs to a validator before signing a
 * transfer above `policy.approvals.validateAboveUsd`, the text a validator signs to answer, and the judgement of an
 * answer. A validator allows only with a signature by its configured key over the answer text, which names the
 * request by its SHA-256: an answer cannot be forged by whoever sits between, nor replayed for another request.
 * Pure.
 */
import { sha256, stringToBytes } from 'viem';
import { z } from 'zod';
import { canonicalJson, type TransferTerms } from './canonical.ts';
import { verifyApproval } from './verify.ts';

/** The `kind` of a validation request. */
export const VALIDATION_REQUEST_KIND = 'ballast-validation-request/v1';
/** The `kind` of the text a validator signs to answer. */
export const VALIDATION_ANSWER_KIND = 'ballast-validation-answer/v1';

/**
 * What a validator is asked about: the transfer as it will be signed. `amountIn` origin base units as a decimal
 * string; `amountUsd` the quote's USD value (decimal string) or null; times integer ms; `id` a random 128-bit hex
 * nonce, new for every request.
 */
export interface ValidationRequestBody extends TransferTerms {
  kind: typeof VALIDATION_REQUEST_KIND;
  id: string;
  /** The validator's configured name. */
  validator: string;
  /** The Relay order the signature would pay (`protocol.v2.orderId`). */
  orderId: string;
  /** The approval request the transfer is signed within, or null. */
  approvalRequestId: number | null;
  createdAtMs: number;
}

/** The text POSTed: canonical JSON of the body (src/approvals/canonical.ts rules). */
export function validationRequestText(body: ValidationRequestBody): string {
  return canonicalJson(body);
}

/** A validator's decision. */
export type ValidationDecision = 'allow' | 'deny';

/**
 * The text a validator signs: canonical JSON of `{kind, decision, reason, request}`, where `request` is the
 * SHA-256 (0x hex) of the request text it answers.
 *
 * @example
 * validationAnswerText('allow', '', requestText)
 * // → '{"decision":"allow","kind":"ballast-validation-answer/v1","reason":"","request":"0x…"}'
 */
export function validationAnswerText(decision: ValidationDecision, reason: string, requestText: string): string {
  return canonicalJson({ kind: VALIDATION_ANSWER_KIND, decision, reason, request: sha256(stringToBytes(requestText)) });
}

/** The JSON body of a validator's answer. */
export const ValidationAnswerSchema = z.object({
  decision: z.enum(['allow', 'deny']),
  reason: z.string().max(500).default(''),
  signature: z.string().min(1),
});

/** The judgement of one answer: allowed, or why not, in one line. */
export type ValidatorJudgement = { ok: true } | { ok: false; detail: string };

/**
 * Judges a validator's answer to `requestText`: it allows only when the body parses, says `allow`, and its
 * signature over {@link validationAnswerText} verifies against the validator's key. A signed `deny` gives its
 * reason; an unsigned or forged answer is a refusal whatever it says.
 *
 * @param name the validator's name; `key` its configured key (EVM address or base58 ed25519 public key)
 * @param answer the parsed JSON body of the HTTP answer
 * @returns never throws
 */
export async function judgeValidatorAnswer(name: string, key: string, requestText: string, answer: unknown): Promise<ValidatorJudgement> {
  const parsed = ValidationAnswerSchema.safeParse(answer);
  if (!parsed.success) return { ok: false, detail: `validator ${name} answered with no valid {decision, reason, signature}` };
  const { decision, reason, signature } = parsed.data;
  const verdict = await verifyApproval({ [name]: key }, name, validationAnswerText(decision, reason, requestText), signature);
  if (!verdict.ok) return { ok: false, detail: `validator ${name} answered with a signature that is not its key's (${verdict.reason})` };
  if (decision === 'deny') return { ok: false, detail: `validator ${name} denied it: ${reason === '' ? 'no reason given' : reason}` };
  return { ok: true };
}
