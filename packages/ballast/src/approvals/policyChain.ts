/**
 * Which approval policy is in force, decided from the store's policy records alone and re-verified every time
 * (docs/approvals.md "The approval policy"): the one bootstrapped record (`ballast policy init`), then each record
 * whose text names the policy before it as `previous` and carries signatures of a quorum (`required`) of that
 * policy's approvers. Nothing is trusted because it is in the store: a record marked approved whose text, digest or
 * signatures do not verify is ignored and reported. Pure (signature checks only).
 */
import type { Hex } from 'viem';
import { parsePolicyText, policyDigest, type ApprovalPolicyContent } from './policyDoc.ts';
import { quorumReached, validApprovers, type SignOff } from './policy.ts';

/** One stored policy record (`approval_policies`) with its sign-offs. Times integer ms. */
export interface PolicyRecord {
  id: number;
  digest: string;
  text: string;
  previousDigest: string | null;
  proposedAtMs: number;
  /** Who recorded it: `ballast policy init --by` or `propose --by` (the OS user when not given). */
  proposedBy: string;
  /** When it became the approved policy; null while it is a proposal. */
  approvedAtMs: number | null;
  /** Set on the bootstrapped first policy only. */
  initializedBy: string | null;
  signOffs: ReadonlyArray<SignOff & { recordedAtMs: number }>;
}

/** The policy in force: its digest, content, when it was approved and by whom. */
export interface ApprovedPolicy {
  digest: Hex;
  policy: ApprovalPolicyContent;
  approvedAtMs: number;
  /** The previous policy's approvers whose signatures verified (empty for the bootstrapped one). */
  signers: string[];
  /** Who bootstrapped it (`ballast policy init`), when it is the first one. */
  initializedBy: string | null;
  /** Position in the chain: 1 for the bootstrapped policy. */
  height: number;
}

/** The chain's outcome: the policy in force (null: none verifies) and every record that was ignored, and why. */
export interface PolicyChain {
  approved: ApprovedPolicy | null;
  problems: string[];
}

/** The document of a record whose digest is its text's, or why not. */
function readRecord(r: PolicyRecord): { ok: true; policy: ApprovalPolicyContent; previous: Hex | null } | { ok: false; why: string } {
  if (policyDigest(r.text) !== r.digest) return { ok: false, why: 'its digest is not the SHA-256 of its text' };
  const doc = parsePolicyText(r.text);
  if (!doc) return { ok: false, why: 'its text is not a canonical approval policy' };
  if (doc.previous !== r.previousDigest) return { ok: false, why: 'its text names another previous policy than its record' };
  return { ok: true, ...doc };
}

const short = (digest: string) => `${digest.slice(0, 10)}…`;

/**
 * Walks the chain of approved policies from the bootstrapped one.
 *
 * @param records every `approval_policies` row with its sign-offs, in any order
 * @returns the last policy of the chain that verifies, and the records ignored; no policy when none was
 *   bootstrapped, or when more than one record claims to be the first (fail closed: someone wrote the store)
 */
export async function approvedPolicyChain(records: readonly PolicyRecord[]): Promise<PolicyChain> {
  const problems: string[] = [];
  const firsts = records.filter((r) => r.previousDigest === null && r.approvedAtMs !== null);
  if (firsts.length === 0) return { approved: null, problems };
  if (firsts.length > 1) {
    problems.push(`the store holds ${firsts.length} bootstrapped approval policies; only one can be the first, so none is trusted`);
    return { approved: null, problems };
  }
  const first = firsts[0]!; // one, checked above
  const read = readRecord(first);
  if (!read.ok) return { approved: null, problems: [`the bootstrapped policy ${short(first.digest)} is ignored: ${read.why}`] };
  let current: ApprovedPolicy = {
    digest: first.digest as Hex,
    policy: read.policy,
    approvedAtMs: first.approvedAtMs!, // filtered above
    signers: [],
    initializedBy: first.initializedBy,
    height: 1,
  };
  const seen = new Set([first.digest]);
  for (;;) {
    const next = records
      .filter((r) => r.previousDigest === current.digest && r.approvedAtMs !== null && !seen.has(r.digest))
      .sort((a, b) => a.approvedAtMs! - b.approvedAtMs! || a.id - b.id); // filtered to approved ones
    let successor: ApprovedPolicy | undefined;
    for (const r of next) {
      seen.add(r.digest);
      const doc = readRecord(r);
      if (!doc.ok) {
        problems.push(`policy ${short(r.digest)} is marked approved but is ignored: ${doc.why}`);
        continue;
      }
      const signers = await validApprovers(current.policy.approvers, r.text, r.signOffs);
      if (!quorumReached(signers, current.policy.required)) {
        problems.push(
          `policy ${short(r.digest)} is marked approved but is ignored: ${signers.length} valid signature(s) of the ${current.policy.required} required from the approvers of ${short(current.digest)}`,
        );
        continue;
      }
      successor = {
        digest: r.digest as Hex,
        policy: doc.policy,
        approvedAtMs: r.approvedAtMs!,
        signers,
        initializedBy: null,
        height: current.height + 1,
      };
      break;
    }
    if (!successor) return { approved: current, problems };
    current = successor;
  }
}
