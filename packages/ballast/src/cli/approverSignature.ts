/**
 * An approver's signature from the command line, shared by `ballast approve` (a transfer's approval request) and
 * `ballast policy approve` (a change of the approval policy): made here with `--key-file` (the key must be one of
 * `approvers`) or given as `--signature` with `--approver`, and verified against that approver's key before the
 * caller stores anything (docs/approvals.md "Signatures").
 */
import { resolve } from 'node:path';
import { readKeyFile } from '../config/keyFile.ts';
import type { ConfigIssue } from '../config/errors.ts';
import { verifyApproval } from '../approvals/verify.ts';
import { approverFor, signWithKey } from './approvalKey.ts';
import { CliError, EXIT_REFUSED, EXIT_USAGE } from './exitCodes.ts';

/** The flags naming a signature: exactly one of `keyFile` and `signature` (which needs `approver`). */
export interface SignatureFlags {
  keyFile?: string;
  signature?: string;
  approver?: string;
}

/**
 * Checks the flags before anything is opened.
 *
 * @throws CliError (exit 2) unless exactly one of --key-file and --signature is given, and --signature has --approver
 */
export function checkSignatureFlags(flags: SignatureFlags): void {
  if ((flags.keyFile === undefined) === (flags.signature === undefined))
    throw new CliError('give exactly one of --key-file <file> and --signature <sig>', EXIT_USAGE);
  if (flags.signature !== undefined && flags.approver === undefined) throw new CliError('--signature needs --approver <name>', EXIT_USAGE);
}

/**
 * The approver and a signature of theirs over `message` that verifies against their key in `approvers`.
 *
 * @param whose where `approvers` come from, for the refusal line (e.g. "the approved policy")
 * @throws CliError exit 2 on an unreadable key file; exit 3 (`refused: <reason>: <detail>`) when the key is no
 *   approver's or the signature does not verify
 */
export async function approverSignature(
  approvers: Readonly<Record<string, string>>,
  message: string,
  flags: SignatureFlags,
  whose: string,
): Promise<{ approver: string; signature: string }> {
  let approver: string;
  let signature: string;
  if (flags.keyFile !== undefined) {
    const made = await signWithKey(readKey(flags.keyFile), message).catch((error: unknown) => {
      throw new CliError(`--key-file ${flags.keyFile}: ${(error as Error).message}`, EXIT_USAGE);
    });
    const name = approverFor(approvers, made.publicKey);
    if (name === undefined)
      throw new CliError(`refused: unknown_approver: the key ${made.publicKey} is not an approver of ${whose}`, EXIT_REFUSED);
    approver = name;
    signature = made.signature;
  } else {
    approver = flags.approver!; // checkSignatureFlags
    signature = flags.signature!;
  }
  const verdict = await verifyApproval(approvers, approver, message, signature);
  if (!verdict.ok) throw new CliError(`refused: ${verdict.reason}: ${verdict.detail}`, EXIT_REFUSED);
  return { approver, signature };
}

function readKey(file: string): string {
  const issues: ConfigIssue[] = [];
  const text = readKeyFile(resolve(file), '--key-file', issues);
  if (text === undefined) throw new CliError(`--key-file: ${issues[0]?.message ?? 'cannot be read'}`, EXIT_USAGE);
  return text;
}
