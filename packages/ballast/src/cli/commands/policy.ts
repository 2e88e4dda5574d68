/**
 * The approval policy on the command line (docs/approvals.md "The approval policy"):
 * - `ballast policy status [--json]`: the approved policy (digest, since when, who approved it), whether the
 *   config's approval section is that policy, records the chain ignores, and open proposals with their sign-offs;
 * - `ballast policy init [--by NAME]`: bootstraps the config's policy as the first approved one, once;
 * - `ballast policy propose [--by NAME]`: records the config's policy as a change of the approved one and says what
 *   changes and who must sign;
 * - `ballast policy show <digest>`: prints a policy's exact text, to sign elsewhere;
 * - `ballast policy approve <digest> (--key-file F | --signature S --approver NAME)`: records a signature of an
 *   approver of the approved policy; the proposal is approved when their quorum is reached.
 * Refusals exit 3 with one line `refused: <reason>: <detail>`; usage errors exit 2.
 */
import { hostname, userInfo } from 'node:os';
import type { Command } from 'commander';
import type { Hex } from 'viem';
import { parsePolicyText, policyChanges, policyContentOf, policyDigest, policyText } from '../../approvals/policyDoc.ts';
import { policyStanding } from '../../approvals/standing.ts';
import { initPolicy, listPolicyRecords, proposePolicy, readPolicyChain, signPolicy } from '../../store/approvalPolicies.ts';
import { approverSignature, checkSignatureFlags, type SignatureFlags } from '../approverSignature.ts';
import { CliError, EXIT_REFUSED, EXIT_USAGE } from '../exitCodes.ts';
import { toJson } from '../format.ts';
import { withStore } from '../storeFile.ts';

/** Who runs the command, when `--by` is not given: `<user>@<host>`. */
function defaultBy(): string {
  return `${userInfo().username}@${hostname()}`;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Registers `ballast policy status|init|propose|show|approve`. */
export function registerPolicy(program: Command, out: (s: string) => void): void {
  const cmd = program.command('policy').description("the approval policy: changed only with a quorum of the approved policy's approvers");
  cmd
    .command('status')
    .description('the approved policy, whether the config matches it, and open proposals')
    .option('--json', 'print JSON')
    .action(async (flags: { json?: boolean }, sub: Command) => {
      await withStore(sub, async (db, config) => {
        const records = await listPolicyRecords(db);
        const chain = await readPolicyChain(db);
        const standing = policyStanding(policyContentOf(config), chain);
        const approved = chain.approved;
        const proposals = records.filter((r) => r.approvedAtMs === null && approved !== null && r.previousDigest === approved.digest);
        if (flags.json) {
          out(
            toJson({
              approved: approved && { ...approved, policy: undefined },
              configMatches: standing !== null && standing.hold === null,
              hold: standing?.hold ?? null,
              problems: chain.problems,
              proposals: proposals.map((p) => ({
                digest: p.digest,
                proposedBy: p.proposedBy,
                proposedAtMs: p.proposedAtMs,
                signOffs: p.signOffs,
              })),
            }),
          );
          return;
        }
        if (!approved) out('approved policy: none');
        else {
          const how = approved.initializedBy ? `bootstrapped by ${approved.initializedBy}` : `approved by ${approved.signers.join(', ')}`;
          out(`approved policy: ${approved.digest} (#${approved.height}, ${how} at ${iso(approved.approvedAtMs)})`);
          out(`  change quorum: ${approved.policy.required} of ${Object.keys(approved.policy.approvers).sort().join(', ')}`);
        }
        out(
          standing === null
            ? 'config: no policy.approvals, none approved'
            : standing.hold === null
              ? 'config: the approved policy'
              : `config: ${standing.hold}`,
        );
        for (const p of chain.problems) out(`ignored: ${p}`);
        for (const p of proposals) {
          const signed = p.signOffs.map((s) => `${s.approver} ${iso(s.recordedAtMs)}`).join(', ') || 'no sign-offs';
          out(`proposal ${p.digest} by ${p.proposedBy} at ${iso(p.proposedAtMs)}: ${signed}`);
        }
      });
    });
  cmd
    .command('init')
    .description("record the config's approval policy as the first approved one (once; then changes need a quorum)")
    .option('--by <name>', 'who bootstraps it (default <user>@<host>)')
    .option('--json', 'print JSON: {digest}')
    .action(async (flags: { by?: string; json?: boolean }, sub: Command) => {
      await withStore(sub, async (db, config) => {
        const content = policyContentOf(config);
        if (!content) throw new CliError('policy.approvals is not configured: there is no approval policy to record', EXIT_USAGE);
        const result = await initPolicy(db, { text: policyText(content, null), by: flags.by ?? defaultBy(), nowMs: Date.now() });
        if (!result.ok) throw new CliError(`refused: ${result.reason}: ${result.detail}`, EXIT_REFUSED);
        out(flags.json ? toJson({ digest: result.digest }) : `approval policy ${result.digest} recorded as the first approved policy`);
      });
    });
  cmd
    .command('propose')
    .description("record the config's approval policy as a change for the approved policy's approvers to sign")
    .option('--by <name>', 'who proposes it (default <user>@<host>)')
    .option('--json', 'print JSON: {digest, created, replaces, changes, required, approvers}; digest null when nothing changed')
    .action(async (flags: { by?: string; json?: boolean }, sub: Command) => {
      await withStore(sub, async (db, config) => {
        const content = policyContentOf(config);
        if (!content) throw new CliError('policy.approvals is not configured: there is no approval policy to propose', EXIT_USAGE);
        const approved = (await readPolicyChain(db)).approved;
        if (!approved)
          throw new CliError('refused: not_initialized: no approval policy is approved yet: run ballast policy init', EXIT_REFUSED);
        const changes = policyChanges(approved.policy, content);
        if (changes.length === 0) {
          out(
            flags.json
              ? toJson({ digest: null, created: false, replaces: approved.digest, changes })
              : `the config's approval policy is the approved one (${approved.digest}): nothing to propose`,
          );
          return;
        }
        const text = policyText(content, approved.digest);
        const result = await proposePolicy(db, { text, by: flags.by ?? defaultBy(), nowMs: Date.now() });
        if (!result.ok) throw new CliError(`refused: ${result.reason}: ${result.detail}`, EXIT_REFUSED);
        const approvers = Object.keys(approved.policy.approvers).sort();
        if (flags.json) {
          const { required } = approved.policy;
          out(toJson({ digest: result.digest, created: result.created, replaces: approved.digest, changes, required, approvers }));
          return;
        }
        out(`proposal ${result.digest} ${result.created ? 'recorded' : 'already recorded'}: replaces ${approved.digest}`);
        for (const line of changes) out(`  ${line}`);
        const names = approvers.join(', ');
        out(
          `needs ${approved.policy.required} of ${names}: ballast policy show ${result.digest}, then ballast policy approve ${result.digest} --key-file <file>`,
        );
      });
    });
  cmd
    .command('show <digest>')
    .description("print a policy's exact text: what approvers sign (EIP-191 or ed25519)")
    .action(async (digest: string, _flags: unknown, sub: Command) => {
      await withStore(sub, async (db) => {
        const record = (await listPolicyRecords(db)).find((r) => r.digest === digestOf(digest));
        if (!record) throw new CliError(`no approval policy ${digest} (see ballast policy status)`, EXIT_USAGE);
        out(record.text);
      });
    });
  cmd
    .command('approve <digest>')
    .description('sign a proposed policy with the key of an approver of the approved policy (or record a signature made elsewhere)')
    .option('--key-file <file>', "an EVM private key (hex) or a Solana keypair JSON file; the key must be an approver's")
    .option('--signature <sig>', 'a signature made elsewhere over `ballast policy show <digest>`')
    .option('--approver <name>', 'with --signature: the approver (name in the approved policy)')
    .option('--json', 'print JSON: {digest, approver, approvers, required, approved}')
    .action(async (digest: string, flags: SignatureFlags & { json?: boolean }, sub: Command) => {
      checkSignatureFlags(flags);
      await withStore(sub, async (db) => {
        const records = await listPolicyRecords(db);
        const record = records.find((r) => r.digest === digestOf(digest));
        if (!record || !parsePolicyText(record.text) || policyDigest(record.text) !== record.digest)
          throw new CliError(`no proposed approval policy ${digest} (see ballast policy status)`, EXIT_USAGE);
        const approved = (await readPolicyChain(db)).approved;
        if (!approved)
          throw new CliError('refused: not_initialized: no approval policy is approved yet: run ballast policy init', EXIT_REFUSED);
        const { approver, signature } = await approverSignature(
          approved.policy.approvers,
          record.text,
          flags,
          `approved policy ${approved.digest}`,
        );
        const result = await signPolicy(db, { digest: record.digest, approver, signature, nowMs: Date.now() });
        if (!result.ok) throw new CliError(`refused: ${result.reason}: ${result.detail}`, EXIT_REFUSED);
        if (flags.json) {
          const { approvers, required, approved: isApproved } = result;
          out(toJson({ digest: record.digest, approver, approvers, required, approved: isApproved }));
          return;
        }
        out(
          `approval policy ${record.digest}: sign-off by ${approver} recorded (${result.approvers.length} of ${result.required}: ${result.approvers.join(', ')})` +
            (result.approved ? '; approved: it applies from the next cycle' : ''),
        );
      });
    });
}

/** A digest as given on the command line: 0x + 64 hex digits, any case. */
function digestOf(text: string): Hex {
  if (!/^0x[0-9a-fA-F]{64}$/.test(text)) throw new CliError(`expected a policy digest (0x + 64 hex digits), got "${text}"`, EXIT_USAGE);
  return text.toLowerCase() as Hex;
}
