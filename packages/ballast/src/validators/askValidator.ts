/**
 * Asking one validator (docs/approvals.md "Validators"): POSTs the canonical validation request
 * (src/approvals/validation.ts), HMAC-signed with the validator's secret like a notification webhook
 * (`x-signature-timestamp`, `x-signature-sha256`), and judges its answer. Any failure is a refusal, never an error.
 */
import { randomBytes } from 'node:crypto';
import { signWebhook } from '@ballast/protocol/relay/webhookSignature.ts';
import { judgeValidatorAnswer, validationRequestText, VALIDATION_REQUEST_KIND, type ValidatorJudgement } from '../approvals/validation.ts';
import type { ApprovalsConfig } from '../config/approvalsSchema.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import type { PlannedTransfer } from '../planner/types.ts';
import type { FeeCaps } from '../policy/feePolicy.ts';

/** What the validators are asked about. */
export interface ValidationInput {
  planned: PlannedTransfer;
  /** The quote's USD value (decimal string), null when absent (validated: fail closed). */
  amountUsd: string | null;
  maxFees: FeeCaps;
  orderId: string;
  approvalRequestId: number | null;
}

/** One configured validator (`policy.approvals.validators.<name>`). */
export type ValidatorConfig = NonNullable<ApprovalsConfig['validators']>[string];

/**
 * Asks validator `name` about the transfer; `nowMs` dates the request.
 *
 * @returns allowed, or why not in one line: a signed deny's reason, silence past `timeoutMs`, an HTTP error status,
 *   a connection failure, or an answer not signed by its key
 */
export async function askValidator(name: string, v: ValidatorConfig, input: ValidationInput, nowMs: number): Promise<ValidatorJudgement> {
  const { planned } = input;
  const text = validationRequestText({
    kind: VALIDATION_REQUEST_KIND,
    id: randomBytes(16).toString('hex'),
    validator: name,
    asset: planned.asset,
    origin: {
      chain: planned.from.chain,
      chainId: planned.from.chainId,
      wallet: planned.from.wallet,
      address: planned.from.address,
      currency: planned.from.currency,
    },
    destination: {
      chain: planned.to.chain,
      chainId: planned.to.chainId,
      wallet: planned.to.wallet,
      address: planned.to.address,
      currency: planned.to.currency,
    },
    amountIn: planned.amountIn.toString(),
    amountUsd: input.amountUsd,
    maxFees: input.maxFees,
    orderId: input.orderId,
    approvalRequestId: input.approvalRequestId,
    createdAtMs: nowMs,
  });
  const timestamp = String(nowMs);
  let answer: unknown;
  try {
    const res = await fetch(v.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'ballast-validator',
        'x-signature-timestamp': timestamp,
        'x-signature-sha256': signWebhook(v.secret, timestamp, text),
      },
      body: text,
      signal: AbortSignal.timeout(v.timeoutMs),
    });
    if (!res.ok) return { ok: false, detail: `validator ${name} answered HTTP ${res.status}` };
    answer = await res.json();
  } catch (error) {
    const silent = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    return {
      ok: false,
      detail: silent
        ? `validator ${name} did not answer within ${v.timeoutMs} ms`
        : `validator ${name} could not be asked: ${shortErrorMessage(error)}`,
    };
  }
  return judgeValidatorAnswer(name, v.key, text, answer);
}
