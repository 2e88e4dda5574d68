/**
 * The approval policy a cycle applies (docs/approvals.md "The approval policy"): the config's, checked against the
 * chain of approved policies in the store, which is verified again each time it is read. Read once per cycle and
 * handed to every transfer's gates.
 */
import { policyContentOf } from '../approvals/policyDoc.ts';
import { policyStanding, type PolicyStanding } from '../approvals/standing.ts';
import { readPolicyChain } from '../store/approvalPolicies.ts';
import type { CycleContext } from './context.ts';

export type { PolicyStanding } from '../approvals/standing.ts';

/**
 * Reads the standing: null when neither the config nor the store has an approval policy.
 *
 * @throws only on store failures
 */
export async function loadPolicyStanding(ctx: Pick<CycleContext, 'config' | 'db'>): Promise<PolicyStanding | null> {
  return policyStanding(policyContentOf(ctx.config), await readPolicyChain(ctx.db));
}
