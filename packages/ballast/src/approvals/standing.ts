/**
 * What the approval gates apply this cycle (docs/approvals.md "The approval policy"), from the config's approval
 * policy and the chain of approved policies in the store. Pure.
 *
 * - Neither configured nor approved: no gate runs.
 * - The config's policy is the approved one: it applies as configured.
 * - Otherwise (the config changed it, dropped it, or none was bootstrapped yet): the approved policy's thresholds,
 *   address book and validators apply (the config's when none was approved), and every transfer above a threshold
 *   waits, with one line saying which policy is approved and how to approve the change.
 */
import type { Hex } from 'viem';
import { policyDigest, policyText, sameContent, type ApprovalPolicyContent } from './policyDoc.ts';
import type { PolicyChain } from './policyChain.ts';

/** The approval policy the gates apply this cycle. */
export interface PolicyStanding {
  /** The rules in force: the approved policy's, or the config's when none was approved yet. */
  policy: ApprovalPolicyContent;
  /** Digest of the approved policy in force; null when none was approved yet. */
  approvedDigest: Hex | null;
  /**
   * Null when the config's policy is the approved one. Otherwise the one line that says why every transfer above
   * a threshold waits and how to end it.
   */
  hold: string | null;
}

/**
 * Decides the standing.
 *
 * @param configured the config's approval policy (src/approvals/policyDoc.ts `policyContentOf`), null without `policy.approvals`
 * @param chain the store's chain of approved policies (src/approvals/policyChain.ts)
 * @returns null when there is no approval policy at all
 */
export function policyStanding(configured: ApprovalPolicyContent | null, chain: PolicyChain): PolicyStanding | null {
  const approved = chain.approved;
  const ignored = chain.problems.length > 0 ? ` (${chain.problems.join('; ')})` : '';
  if (!approved) {
    if (!configured && chain.problems.length === 0) return null;
    if (!configured) {
      return {
        policy: EMPTY_POLICY,
        approvedDigest: null,
        hold: `no approval policy verifies${ignored}: every transfer waits until one is approved`,
      };
    }
    const digest = policyDigest(policyText(configured, null));
    return {
      policy: configured,
      approvedDigest: null,
      hold: `no approval policy has been approved yet${ignored}: run \`ballast policy init\` once to record the config's (${digest}) as the first`,
    };
  }
  if (configured && sameContent(configured, approved.policy) && chain.problems.length === 0) {
    return { policy: approved.policy, approvedDigest: approved.digest, hold: null };
  }
  const what = configured ? "the config's approval policy is not the approved one" : 'the config has no policy.approvals';
  return {
    policy: approved.policy,
    approvedDigest: approved.digest,
    hold: `${what}${ignored}: approved policy ${approved.digest} applies and transfers above its thresholds wait; \`ballast policy propose\` records the change for a quorum of its approvers to sign (\`ballast policy approve\`)`,
  };
}

/** The rules when nothing verifies: every transfer above 0 USD needs sign-offs that no one can give. */
const EMPTY_POLICY: ApprovalPolicyContent = {
  approvers: {},
  aboveUsd: '0',
  required: 1,
  expiresAfterSec: 60,
  addressBook: { required: false, addresses: [] },
};
