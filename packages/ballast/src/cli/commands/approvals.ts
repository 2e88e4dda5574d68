/**
 * Approval requests on the command line (docs/approvals.md "CLI"):
 * - `ballast approvals list [--all] [--json]`: open requests (every one with `--all`) and who signed them;
 * - `ballast approvals show <id>`: the canonical JSON to sign, e.g. on a hardware wallet;
 * - `ballast approve <id> (--key-file F | --signature S --approver NAME) [--json]`: records a sign-off whose
 *   signature verifies against the approver's key in the approval policy in force (the approved one);
 * - `ballast reject <id> --reason TEXT [--approver NAME] [--json]`: closes a request; needs no signature.
 * `--json` prints what was recorded as one object. A refused sign-off (unknown approver, malformed or wrong-key signature, request not pending or expired) is not
 * stored and exits 3 with one line naming the reason; usage errors exit 2.
 */
import type { Command } from 'commander';
import type { LoadedConfig } from '../../config/loadConfig.ts';
import { approvalRuleOfRoute } from '../../cycle/approvalGate.ts';
import { loadPolicyStanding } from '../../cycle/approvalStanding.ts';
import { approverSignature, checkSignatureFlags } from '../approverSignature.ts';
import {
  getApprovalRequest,
  listApprovalRequests,
  recordSignOff,
  rejectRequest,
  type ApprovalRequest,
} from '../../store/approvalRequests.ts';
import type { StoreDb } from '../../store/db.ts';
import { approvalNotifier } from '../../notify/approvalSink.ts';
import { openExistingStore, withStore } from '../storeFile.ts';
import { CliError, EXIT_REFUSED, EXIT_USAGE } from '../exitCodes.ts';
import { table, toJson } from '../format.ts';
import { loadCliConfig, type GlobalFlags } from '../session.ts';

/** Registers `ballast approvals list|show`. */
export function registerApprovals(program: Command, out: (s: string) => void): void {
  const cmd = program.command('approvals').description('approval requests for transfers above policy.approvals.aboveUsd');
  cmd
    .command('list')
    .description('open approval requests (pending or approved), newest first, with their sign-offs')
    .option('--all', 'every request, closed ones too')
    .option('--json', 'print JSON')
    .action(async (flags: { all?: boolean; json?: boolean }, sub: Command) => {
      await withStore(sub, async (db) => {
        const requests = await listApprovalRequests(db, { all: flags.all === true });
        if (flags.json) {
          out(toJson(requests.map(requestJson)));
          return;
        }
        if (requests.length === 0) {
          out(flags.all ? 'no approval requests' : 'no open approval requests');
          return;
        }
        out(
          table(
            ['id', 'status', 'asset', 'route', 'amountIn', 'USD', 'sign-offs', 'created', 'expires', 'closed'],
            requests.map((r) => [
              r.id,
              r.status,
              r.asset,
              `${r.origin.chain}:${r.origin.wallet} → ${r.destination.chain}:${r.destination.wallet}`,
              r.amountIn.toString(),
              r.amountUsd ?? '?',
              r.signOffs.map((s) => `${s.approver} ${iso(s.recordedAtMs)}`).join(', ') || `0 of ${r.required}`,
              iso(r.createdAtMs),
              iso(r.expiresAtMs),
              r.closedAtMs === null ? '' : `${iso(r.closedAtMs)}${r.closedBy ? ` by ${r.closedBy}` : ''}: ${r.closeDetail ?? ''}`,
            ]),
          ),
        );
      });
    });
  cmd
    .command('show <id>')
    .description('print the canonical JSON of a request: the exact text approvers sign (EIP-191 or ed25519)')
    .action(async (id: string, _flags: unknown, sub: Command) => {
      await withStore(sub, async (db) => {
        out((await requestOrFail(db, id)).message);
      });
    });
}

/** Registers `ballast approve <id>`. */
export function registerApprove(program: Command, out: (s: string) => void): void {
  program
    .command('approve <id>')
    .description("sign off an approval request with an approver's own key (or record a signature made elsewhere)")
    .option('--key-file <file>', "an EVM private key (hex) or a Solana keypair JSON file; the key must be an approver's")
    .option('--signature <sig>', 'a signature made elsewhere (e.g. a hardware wallet) over `ballast approvals show <id>`')
    .option('--approver <name>', 'with --signature: the approver (name under policy.approvals.approvers)')
    .option('--json', 'print JSON: {requestId, approver, approvers, required, approved}')
    .action(async (id: string, flags: { keyFile?: string; signature?: string; approver?: string; json?: boolean }, cmd: Command) => {
      checkSignatureFlags(flags);
      const config = loadCliConfig(cmd.optsWithGlobals<GlobalFlags>());
      const db = await openExistingStore(config.store, 'store');
      try {
        // The approvers and quorum of the approval policy in force (the approved one), as the gate counts them.
        const standing = await loadPolicyStanding({ config, db });
        if (!standing) throw new CliError('no approval policy is configured or approved: there are no approvers to sign with', EXIT_USAGE);
        const request = await requestOrFail(db, id);
        const { approver, signature } = await approverSignature(
          standing.policy.approvers,
          request.message,
          flags,
          'the approval policy in force',
        );
        const required = approvalRuleOfRoute(standing.policy, request).required;
        const result = await recordSignOff(
          db,
          { requestId: request.id, approver, signature, required, nowMs: Date.now() },
          approvalNotifier({ now: Date.now, config }),
        );
        if (!result.ok) throw new CliError(`refused: ${result.reason}: ${result.detail}`, EXIT_REFUSED);
        if (flags.json) {
          out(
            toJson({ requestId: request.id, approver, approvers: result.approvers, required: result.required, approved: result.granted }),
          );
          return;
        }
        out(
          `approval request ${request.id}: sign-off by ${approver} recorded (${result.approvers.length} of ${result.required}: ${result.approvers.join(', ')})` +
            (result.granted ? '; approved: the next cycle moves at most the approved amount on this route' : ''),
        );
      } finally {
        await db.close();
      }
    });
}

/** Registers `ballast reject <id>`. */
export function registerReject(program: Command, out: (s: string) => void): void {
  program
    .command('reject <id>')
    .description('reject an approval request: it closes and its transfer is not signed (no signature needed)')
    .requiredOption('--reason <text>', 'why (kept in the history)')
    .option('--approver <name>', 'who rejects it (kept in the history)')
    .option('--json', 'print JSON: {requestId, status, by, reason}')
    .action(async (id: string, flags: { reason: string; approver?: string; json?: boolean }, cmd: Command) => {
      if (flags.reason.trim() === '') throw new CliError('--reason must say why the request is rejected', EXIT_USAGE);
      await withStore(cmd, async (db, config) => {
        const request = await requestOrFail(db, id);
        const result = await rejectRequest(
          db,
          { requestId: request.id, reason: flags.reason.trim(), ...(flags.approver ? { by: flags.approver } : {}), nowMs: Date.now() },
          approvalNotifier({ now: Date.now, config }),
        );
        if (!result.ok) throw new CliError(`refused: ${result.reason}: ${result.detail}`, EXIT_REFUSED);
        if (flags.json) {
          out(toJson({ requestId: request.id, status: 'rejected', by: flags.approver ?? null, reason: flags.reason.trim() }));
          return;
        }
        out(`approval request ${request.id}: rejected${flags.approver ? ` by ${flags.approver}` : ''}: ${flags.reason.trim()}`);
      });
    });
}

async function requestOrFail(db: StoreDb, id: string): Promise<ApprovalRequest> {
  if (!/^[1-9][0-9]*$/.test(id)) throw new CliError(`expected an approval request id, got "${id}"`, EXIT_USAGE);
  const request = await getApprovalRequest(db, Number(id));
  if (!request) throw new CliError(`no approval request ${id} (see ballast approvals list --all)`, EXIT_USAGE);
  return request;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function requestJson(r: ApprovalRequest) {
  return { ...r, amountIn: r.amountIn.toString() };
}
