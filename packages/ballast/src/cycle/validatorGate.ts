/**
 * The validator gate (docs/approvals.md "Validators"): after every other gate, the approval gate included, a
 * transfer whose quoted USD value is above `policy.approvals.validateAboveUsd` (or of unknown value: fail closed) is
 * signed only when every configured validator allowed it. Each gets the canonical request
 * (src/approvals/validation.ts), HMAC-signed with its secret like a notification webhook (`x-signature-timestamp`,
 * `x-signature-sha256`), and must answer `allow` with its key's signature within its timeout; a `deny`, silence, an
 * error status, or an answer not signed by its key stops the transfer before anything is signed.
 */
import { needsApproval } from '../approvals/policy.ts';
import type { PolicyStanding } from '../approvals/standing.ts';
import type { PlannedTransfer } from '../planner/types.ts';
import type { CycleContext } from './context.ts';
import { askValidator, type ValidationInput } from '../validators/askValidator.ts';

export type { ValidationInput } from '../validators/askValidator.ts';

/** The gate's answer: sign, or stop with every validator's reason in one line. */
export type ValidatorVerdict = { ok: true; asked: string[] } | { ok: false; detail: string };

/**
 * Asks every validator of the approval policy in force, at once, whether the transfer may be signed. Each one's
 * URL, answer key and timeout come from that policy; its HMAC secret, which the policy never holds, from the
 * config (`policy.approvals.validators.<name>.secret`): a validator without one there is a refusal.
 *
 * @param standing the approval policy in force this cycle (src/cycle/approvalStanding.ts); null: no validators
 * @returns ok (with the validators asked; none below the threshold or without validators), or the refusals
 * @throws never: a validator that cannot be reached or answers badly is a refusal
 */
export async function validatorVerdict(
  ctx: Pick<CycleContext, 'config' | 'now' | 'logger'>,
  standing: PolicyStanding | null,
  input: ValidationInput,
): Promise<ValidatorVerdict> {
  const policy = standing?.policy;
  const validators = Object.entries(policy?.validators ?? {});
  if (!policy?.validateAboveUsd || validators.length === 0) return { ok: true, asked: [] };
  if (!needsApproval({ aboveUsd: policy.validateAboveUsd, required: 1 }, input.amountUsd)) return { ok: true, asked: [] };
  const secrets = ctx.config.policy.approvals?.validators ?? {};
  const judgements = await Promise.all(
    validators.map(async ([name, v]) => {
      const secret = Object.hasOwn(secrets, name) ? secrets[name]!.secret : undefined;
      if (secret === undefined)
        return { ok: false as const, detail: `validator ${name}: no secret under policy.approvals.validators.${name} in the config` };
      return await askValidator(name, { ...v, secret }, input, ctx.now());
    }),
  );
  const refusals = judgements.flatMap((j) => (j.ok ? [] : [j.detail]));
  const log = ctx.logger.child({ component: 'validators', asset: input.planned.asset, orderId: input.orderId });
  if (refusals.length > 0) {
    log.warn({ refusals }, 'transfer stopped by its validators before signing');
    return { ok: false, detail: refusals.join('; ') };
  }
  log.info({ validators: validators.map(([name]) => name) }, 'transfer allowed by every validator');
  return { ok: true, asked: validators.map(([name]) => name) };
}
