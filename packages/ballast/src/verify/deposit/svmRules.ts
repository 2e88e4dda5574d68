/**
 * Ballast's transaction-level rules on a Solana step item: no approvals, only our wallet signs, the compiled
 * v0 transaction fits in 1232 bytes (docs/relay-contract.md "Limits"), and nothing besides the deposit touches our funds.
 * Pure.
 */
import { PublicKey } from '@solana/web3.js';
import { fail, outcome, pass } from '../ruleResult.ts';
import type { RuleResult } from '../types.ts';
import type { OriginChainFacts } from './types.ts';
import type { LocatedSvmDeposit } from './svmDeposit.ts';
import { judgeSvmInstruction, type SvmJudgeFacts } from './svmInstructions.ts';
import { allInstructions, parsedItems, type SvmItem } from './svmItems.ts';
import {
  buildSvmV0Transaction,
  resolveInstructionAccounts,
  resolveLookupTables,
  SOLANA_TX_MAX_BYTES,
  svmTransactionWireSize,
  type SvmLookupTables,
} from './svmTransaction.ts';

/** Blockhash used to compile a transaction only to measure it: every blockhash is 32 bytes on the wire. */
const SIZE_PROBE_BLOCKHASH = PublicKey.default.toBase58();

/** Items whose `data` does not parse, as details (rules that need the instructions cannot judge them). */
function unreadable(items: readonly SvmItem[]): string[] {
  return items.filter((i) => i.stepData === null).map((i) => `${i.path}.data is not Solana step data: ${i.parseError ?? 'unparsable'}`);
}

/**
 * `approve` (Solana): deposits need no approval (the depository pulls nothing; the sender signs the
 * transfer itself), so any SPL `Approve` / `ApproveChecked` is refused, naming its delegate.
 */
export function checkSvmApprovals(items: readonly SvmItem[], facts: SvmJudgeFacts): RuleResult {
  const problems: string[] = [];
  for (const { path, ix } of allInstructions(items)) {
    const verdict = judgeSvmInstruction(ix, facts);
    if (verdict.kind === 'approve') {
      problems.push(`${path} approves delegate ${verdict.delegate} on token account ${verdict.account}; Solana deposits need no approval`);
    }
  }
  return outcome('approve', problems, 'no approval: Solana deposits need none');
}

/**
 * `origin-inputs` (Solana): every account an instruction marks `isSigner` is our wallet, and the compiled
 * message (fee payer = our wallet) requires our signature only. A quote needing any other signer is refused.
 */
export function checkSvmOriginInputs(items: readonly SvmItem[], user: string): RuleResult {
  const problems = unreadable(items);
  for (const { path, ix } of allInstructions(items)) {
    ix.keys.forEach((key, i) => {
      if (key.isSigner && key.pubkey !== user)
        problems.push(`${path}.keys[${i}] requires a signature of ${key.pubkey}, not our wallet ${user}`);
    });
  }
  for (const item of parsedItems(items)) {
    try {
      const { message } = buildSvmV0Transaction({
        instructions: item.stepData.instructions,
        payer: user,
        recentBlockhash: SIZE_PROBE_BLOCKHASH,
      });
      const signers = message.staticAccountKeys.slice(0, message.header.numRequiredSignatures).map((k) => k.toBase58());
      const others = signers.filter((s) => s !== user);
      if (others.length > 0) problems.push(`${item.path}: the compiled transaction also needs signatures of ${others.join(', ')}`);
    } catch (error) {
      problems.push(`${item.path}: cannot compile the transaction to list its signers: ${(error as Error).message}`); // web3.js throws Error
    }
  }
  return outcome('origin-inputs', problems, `only our wallet ${user} signs (fee payer and every signer account)`);
}

/**
 * `tx-size` (Solana): for every item, the v0 transaction of exactly its instructions, fee payer = our wallet,
 * compiled against the lookup tables it names (contents from `origin.lookupTables`, read on chain), is at most
 * 1232 bytes with every signature (64 bytes each). A named table missing from the chain facts is refused;
 * the compiled message must resolve back to the quote's instructions, key for key.
 */
export function checkSvmTxSize(items: readonly SvmItem[], user: string, origin: OriginChainFacts): RuleResult {
  const problems = unreadable(items);
  const sizes: string[] = [];
  for (const item of parsedItems(items)) {
    const named = item.stepData.addressLookupTableAddresses;
    const field = `${item.path}.data.addressLookupTableAddresses`;
    let tables: SvmLookupTables;
    try {
      tables = resolveLookupTables(named, origin.lookupTables ?? {});
    } catch (error) {
      problems.push(`${field}: a table read on chain holds an invalid address: ${(error as Error).message}`); // PublicKey throws Error
      continue;
    }
    if (tables.missing.length > 0) {
      problems.push(
        `${field} names lookup table(s) ${tables.missing.join(', ')} not in origin.lookupTables: read them on chain before verifying`,
      );
      continue;
    }
    const { instructions } = item.stepData;
    try {
      const { message } = buildSvmV0Transaction({
        instructions,
        payer: user,
        recentBlockhash: SIZE_PROBE_BLOCKHASH,
        lookupTables: tables.accounts,
      });
      const resolved = resolveInstructionAccounts(message, tables.accounts);
      resolved.forEach((r, i) => {
        const want = instructions[i];
        const same =
          want !== undefined &&
          r.programId === want.programId &&
          r.accounts.length === want.keys.length &&
          r.accounts.every((a, k) => a.pubkey === want.keys[k]?.pubkey) &&
          Buffer.from(r.data).equals(Buffer.from(want.data));
        if (!same) problems.push(`${item.path}: compiled instruction ${i} does not resolve back to the quote's instruction`);
      });
      const size = svmTransactionWireSize(message);
      const signatures = message.header.numRequiredSignatures;
      if (size > SOLANA_TX_MAX_BYTES) {
        problems.push(
          `${item.path}: the compiled v0 transaction is ${size} bytes (${signatures} signature(s), ${message.addressTableLookups.length} lookup table(s)), ${size - SOLANA_TX_MAX_BYTES} over the ${SOLANA_TX_MAX_BYTES}-byte limit`,
        );
      } else {
        sizes.push(
          `${item.path}: ${size} of ${SOLANA_TX_MAX_BYTES} bytes (${signatures} signature(s), ${message.addressTableLookups.length} lookup table(s))`,
        );
      }
    } catch (error) {
      problems.push(`${item.path}: the v0 transaction does not compile: ${(error as Error).message}`); // web3.js throws Error
    }
  }
  return outcome('tx-size', problems, sizes.join('; ') || 'no transaction items');
}

/**
 * `no-unexpected-steps` (Solana): exactly one transaction item, fresh (`incomplete`), no signature or
 * deposit-address steps; every instruction is the deposit (judged by `deposit-call`), compute budget
 * (`fee-cap`), an approval (`approve`) or provably harmless (SPL Memo, associated-token account creation paid
 * by us for us or the vault, `SyncNative` on our wrapped-SOL account). Anything else is refused with its reason.
 */
export function checkSvmNoUnexpectedSteps(
  items: readonly SvmItem[],
  stepProblems: readonly string[],
  deposit: LocatedSvmDeposit | null,
  facts: SvmJudgeFacts,
): RuleResult {
  const problems = [...stepProblems, ...unreadable(items)];
  if (items.length !== 1) {
    problems.push(
      `${items.length} transaction items (${items.map((i) => i.path).join(', ') || 'none'}); a Solana deposit is exactly one transaction`,
    );
  }
  const extras: string[] = [];
  for (const { path, ix } of allInstructions(items)) {
    const verdict = judgeSvmInstruction(ix, facts);
    if (verdict.kind === 'refused') problems.push(`${path}: ${verdict.reason}`);
    else if (verdict.kind === 'harmless') extras.push(verdict.what);
  }
  if (problems.length > 0) return fail('no-unexpected-steps', problems);
  const depositText = deposit ? `the deposit at ${deposit.at.path}` : 'no located deposit';
  return pass('no-unexpected-steps', `one transaction item: ${depositText}${extras.length ? `, plus ${extras.join(', ')}` : ''}`);
}
