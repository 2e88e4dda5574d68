/**
 * The signed approval policy's records (migration 16, `approval_policies` and `approval_policy_signoffs`;
 * docs/approvals.md "The approval policy"): the bootstrapped first policy, proposals, and the approvers'
 * signatures on each. A proposal becomes approved in the transaction that records the signature reaching the
 * quorum of the approved policy it replaces. Nothing here is trusted by the gates: they re-verify the whole chain
 * each cycle (src/approvals/policyChain.ts). These writes come from the CLI and are not fenced by the leader lease.
 */
import { approvedPolicyChain, type ApprovedPolicy, type PolicyRecord } from '../approvals/policyChain.ts';
import { quorumReached, validApprovers } from '../approvals/policy.ts';
import { verifyApproval, type SignatureRefusal } from '../approvals/verify.ts';
import { parsePolicyText, policyDigest } from '../approvals/policyDoc.ts';
import type { StoreDb } from './db.ts';
import { rowShape } from './rowColumns.ts';
import { checkMs } from './values.ts';

/** An `approval_policies` row as read (`SELECT *`). */
interface PolicyDbRow {
  id: number;
  digest: string;
  previous_digest: string | null;
  text: string;
  proposed_by: string;
  proposed_at_ms: number;
  approved_at_ms: number | null;
  initialized_by: string | null;
}

/** Columns of {@link PolicyDbRow}: every column of `approval_policies`. */
export const APPROVAL_POLICY_ROW = rowShape<PolicyDbRow>({
  name: 'PolicyDbRow',
  table: 'approval_policies',
  allColumns: true,
  columns: {
    id: 'integer',
    digest: 'text',
    previous_digest: 'text?',
    text: 'text',
    proposed_by: 'text',
    proposed_at_ms: 'integer',
    approved_at_ms: 'integer?',
    initialized_by: 'text?',
  },
});

/** An `approval_policy_signoffs` row as read (`SELECT *`). */
interface PolicySignOffDbRow {
  id: number;
  policy_id: number;
  approver: string;
  signature: string;
  recorded_at_ms: number;
}

/** Columns of {@link PolicySignOffDbRow}: every column of `approval_policy_signoffs`. */
export const APPROVAL_POLICY_SIGNOFF_ROW = rowShape<PolicySignOffDbRow>({
  name: 'PolicySignOffDbRow',
  table: 'approval_policy_signoffs',
  allColumns: true,
  columns: { id: 'integer', policy_id: 'integer', approver: 'text', signature: 'text', recorded_at_ms: 'integer' },
});

/** Every policy record with its sign-offs, oldest first. */
export async function listPolicyRecords(db: StoreDb): Promise<PolicyRecord[]> {
  const rows = await db.all<PolicyDbRow>('SELECT * FROM approval_policies ORDER BY id'); // columns checked by APPROVAL_POLICY_ROW
  const signOffs = await db.all<PolicySignOffDbRow>('SELECT * FROM approval_policy_signoffs ORDER BY id'); // APPROVAL_POLICY_SIGNOFF_ROW
  return rows.map((r) => ({
    id: r.id,
    digest: r.digest,
    text: r.text,
    previousDigest: r.previous_digest,
    proposedAtMs: r.proposed_at_ms,
    proposedBy: r.proposed_by,
    approvedAtMs: r.approved_at_ms,
    initializedBy: r.initialized_by,
    signOffs: signOffs
      .filter((s) => s.policy_id === r.id)
      .map((s) => ({ approver: s.approver, signature: s.signature, recordedAtMs: s.recorded_at_ms })),
  }));
}

/** The store's chain of approved policies, verified (src/approvals/policyChain.ts). */
export async function readPolicyChain(db: StoreDb): ReturnType<typeof approvedPolicyChain> {
  return approvedPolicyChain(await listPolicyRecords(db));
}

/** Why a policy write was refused. */
export type PolicyRefusal =
  'already_initialized' | 'not_initialized' | 'missing' | 'stale' | 'already_approved' | 'already_signed' | SignatureRefusal;

/** The outcome of a policy write: ok with its record, or refused with one line. */
export type PolicyWriteResult<T> = ({ ok: true } & T) | { ok: false; reason: PolicyRefusal; detail: string };

function refused(reason: PolicyRefusal, detail: string): { ok: false; reason: PolicyRefusal; detail: string } {
  return { ok: false, reason, detail };
}

/**
 * Bootstraps the first approved policy (`ballast policy init`), recorded with who and when. Refused once any
 * policy is approved: after that a change needs the approvers' quorum.
 *
 * @param p.text the policy text with `previous: null` (src/approvals/policyDoc.ts `policyText`)
 * @throws Error when the text is not a first policy's canonical text
 */
export async function initPolicy(
  db: StoreDb,
  p: { text: string; by: string; nowMs: number },
): Promise<PolicyWriteResult<{ digest: string }>> {
  checkMs(p.nowMs, 'nowMs');
  const doc = parsePolicyText(p.text);
  if (!doc || doc.previous !== null) throw new Error('initPolicy: not the canonical text of a first approval policy');
  const digest = policyDigest(p.text);
  return db.transaction(async () => {
    const first = await db.get<{ digest: string }>('SELECT digest FROM approval_policies WHERE previous_digest IS NULL');
    const approved = await db.get<{ digest: string }>('SELECT digest FROM approval_policies WHERE approved_at_ms IS NOT NULL');
    const any = first ?? approved;
    if (any) {
      return refused(
        'already_initialized',
        `an approval policy was bootstrapped already (${any.digest}); a change needs its approvers: ballast policy propose, then ballast policy approve`,
      );
    }
    await db.run(
      `INSERT INTO approval_policies (digest, previous_digest, text, proposed_by, proposed_at_ms, approved_at_ms, initialized_by)
       VALUES (?, NULL, ?, ?, ?, ?, ?)`,
      digest,
      p.text,
      p.by,
      p.nowMs,
      p.nowMs,
      p.by,
    );
    return { ok: true, digest };
  });
}

/**
 * Records a proposal (`ballast policy propose`) replacing the approved policy `text` names as `previous`; an
 * identical proposal already recorded is returned as it is.
 *
 * @throws Error when the text is not a canonical policy text naming a previous policy
 */
export async function proposePolicy(
  db: StoreDb,
  p: { text: string; by: string; nowMs: number },
): Promise<PolicyWriteResult<{ digest: string; created: boolean }>> {
  checkMs(p.nowMs, 'nowMs');
  const doc = parsePolicyText(p.text);
  if (!doc || doc.previous === null) throw new Error('proposePolicy: not the canonical text of a policy change');
  const digest = policyDigest(p.text);
  return db.transaction(async () => {
    const chain = await readPolicyChain(db);
    const stale = staleAgainst(chain.approved, doc.previous);
    if (stale) return stale;
    if (await db.get('SELECT 1 AS one FROM approval_policies WHERE digest = ?', digest)) return { ok: true, digest, created: false };
    await db.run(
      'INSERT INTO approval_policies (digest, previous_digest, text, proposed_by, proposed_at_ms) VALUES (?, ?, ?, ?, ?)',
      digest,
      doc.previous,
      p.text,
      p.by,
      p.nowMs,
    );
    return { ok: true, digest, created: true };
  });
}

/** A refusal when `previous` is not the approved policy now, else null. */
function staleAgainst(approved: ApprovedPolicy | null, previous: string | null) {
  if (!approved) return refused('not_initialized', 'no approval policy is approved yet: bootstrap one with ballast policy init');
  if (approved.digest !== previous) {
    return refused(
      'stale',
      `it replaces ${previous ?? 'nothing'}, but ${approved.digest} is the approved policy now: run ballast policy propose again`,
    );
  }
  return null;
}

/**
 * Records an approver's signature on a proposal (`ballast policy approve`) and approves the proposal when the
 * distinct approvers of the policy it replaces, whose signatures verify, reach that policy's `required`. A
 * signature that does not verify against that approver's key in the approved policy is refused, not stored.
 *
 * @returns the approvers whose signatures verify, the quorum, and whether the proposal is now approved; or why not
 */
export async function signPolicy(
  db: StoreDb,
  s: { digest: string; approver: string; signature: string; nowMs: number },
): Promise<PolicyWriteResult<{ approvers: string[]; required: number; approved: boolean }>> {
  checkMs(s.nowMs, 'nowMs');
  return db.transaction(async () => {
    const records = await listPolicyRecords(db);
    const record = records.find((r) => r.digest === s.digest);
    if (!record) return refused('missing', `no proposed approval policy ${s.digest}`);
    if (record.approvedAtMs !== null) return refused('already_approved', `approval policy ${s.digest} is approved already`);
    const chain = await approvedPolicyChain(records);
    const stale = staleAgainst(chain.approved, record.previousDigest);
    if (stale) return stale;
    const previous = chain.approved!; // staleAgainst refuses when there is none
    if (record.signOffs.some((o) => o.approver === s.approver)) {
      return refused('already_signed', `${s.approver} has already signed approval policy ${s.digest}`);
    }
    // Only a signature that verifies against the approved policy's key of this approver is stored.
    const verdict = await verifyApproval(previous.policy.approvers, s.approver, record.text, s.signature);
    if (!verdict.ok) return refused(verdict.reason, verdict.detail);
    await db.run(
      'INSERT INTO approval_policy_signoffs (policy_id, approver, signature, recorded_at_ms) VALUES (?, ?, ?, ?)',
      record.id,
      s.approver,
      s.signature,
      s.nowMs,
    );
    const signOffs = [...record.signOffs, { approver: s.approver, signature: s.signature }];
    const approvers = await validApprovers(previous.policy.approvers, record.text, signOffs);
    const approved = quorumReached(approvers, previous.policy.required);
    if (approved) await db.run('UPDATE approval_policies SET approved_at_ms = ? WHERE id = ?', s.nowMs, record.id);
    return { ok: true, approvers, required: previous.policy.required, approved };
  });
}
