/**
 * Approval requests in `ballast history` and `ballast report` (docs/approvals.md): who signed off what and when,
 * and how each request closed.
 */
import type { ApprovalRequest } from '../store/approvalReads.ts';

/** The history note of a transfer made within an approval request: `approved by alice 2026-…, bob 2026-… (request 7)`. */
export function approvalNote(request: ApprovalRequest): string {
  const who = request.signOffs.map((s) => `${s.approver} ${new Date(s.recordedAtMs).toISOString()}`).join(', ');
  return `approved by ${who || 'nobody'} (request ${request.id})`;
}

/**
 * The approval requests section of `ballast report`: one line per request recorded in the window, or nothing when
 * there is none.
 */
export function approvalReportLines(requests: readonly ApprovalRequest[]): string[] {
  if (requests.length === 0) return [];
  const lines = [`approval requests: ${requests.length}`];
  for (const r of requests) {
    const signed =
      r.signOffs.length === 0
        ? 'no sign-offs'
        : `signed by ${r.signOffs.map((s) => `${s.approver} ${new Date(s.recordedAtMs).toISOString()}`).join(', ')}`;
    const closed =
      r.closedAtMs === null
        ? ''
        : ` at ${new Date(r.closedAtMs).toISOString()}${r.closedBy ? ` by ${r.closedBy}` : ''}${r.closeDetail ? `: ${r.closeDetail}` : ''}`;
    lines.push(
      `  ${r.id} ${r.asset} ${r.origin.chain} → ${r.destination.chain} ${r.amountIn} base units (${r.amountUsd ?? '?'} USD), ` +
        `recorded ${new Date(r.createdAtMs).toISOString()}; ${signed}; ${r.status}${closed}`,
    );
  }
  return lines;
}
