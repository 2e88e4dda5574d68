/**
 * What each instruction of a Solana step item does to our funds, decided from its program and data: the
 * deposit and compute-budget instructions are judged by their own rules; SPL Memo, associated-token account
 * creation (paid by us, for our own account or the vault's) and SPL `SyncNative` on our own wrapped-SOL
 * account are provably harmless; an SPL `Approve` is `approve`'s to refuse; everything else is refused with the
 * reason. Decoded with @solana/web3.js `SystemInstruction` and @solana/spl-token's instruction decoders. Pure.
 */
import { type PublicKey, SystemInstruction, type TransactionInstruction } from '@solana/web3.js';
import {
  decodeApproveCheckedInstruction,
  decodeApproveInstruction,
  decodeBurnCheckedInstruction,
  decodeBurnInstruction,
  decodeCloseAccountInstruction,
  decodeSetAuthorityInstruction,
  decodeSyncNativeInstruction,
  decodeTransferCheckedInstruction,
  decodeTransferInstruction,
  NATIVE_MINT,
  TokenInstruction,
} from '@solana/spl-token';
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  associatedTokenAddress,
  COMPUTE_BUDGET_PROGRAM_ID,
  SYSTEM_PROGRAM_ID,
} from '@ballast/protocol/protocol/svmDepository.ts';
import { SVM_TOKEN_PROGRAMS } from './svmDeposit.ts';
import type { SvmInstruction } from './svmStepData.ts';
import { toTransactionInstruction } from './svmTransaction.ts';

/** SPL Memo program (v2, checks that every listed account signed). */
export const MEMO_PROGRAM_ID = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
/** SPL Memo program v1. */
export const MEMO_V1_PROGRAM_ID = 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo';

/** Facts an instruction is judged against, all from our state or GET /chains. */
export interface SvmJudgeFacts {
  /** Our wallet, base58. */
  user: string;
  /** Depository program id (GET /chains). */
  depository: string;
  /** The depository's vault PDA, or null when the depository is not a valid program id. */
  vault: string | null;
  /** The payment currency (mint, or the system program for SOL). */
  paymentCurrency: string;
}

/**
 * How an instruction is judged: `deposit` (by `deposit-call`), `compute-budget` (by `fee-cap`), `approve` (by
 * `approve`, naming the delegate), `harmless` (allowed, with what it does), `refused` (with the reason).
 */
export type SvmInstructionVerdict =
  | { kind: 'deposit' }
  | { kind: 'compute-budget' }
  | { kind: 'approve'; delegate: string; account: string }
  | { kind: 'harmless'; what: string }
  | { kind: 'refused'; reason: string };

const refused = (reason: string): SvmInstructionVerdict => ({ kind: 'refused', reason });
const harmless = (what: string): SvmInstructionVerdict => ({ kind: 'harmless', what });

/** Runs a library decoder, turning its throw (wrong length, wrong account count) into null. */
function tryDecode<T>(decode: () => T): T | null {
  try {
    return decode();
  } catch {
    return null;
  }
}

function judgeSystem(tix: TransactionInstruction, user: string): SvmInstructionVerdict {
  const type = tryDecode(() => SystemInstruction.decodeInstructionType(tix));
  if (type === null) return refused('System program data does not decode as a known instruction');
  const whose = (account: PublicKey) => (account.toBase58() === user ? 'our' : `${account.toBase58()}'s`);
  switch (type) {
    case 'Transfer': {
      const d = tryDecode(() => SystemInstruction.decodeTransfer(tix));
      if (!d) return refused('malformed System Transfer');
      return refused(`System Transfer moves ${whose(d.fromPubkey)} funds to ${d.toPubkey.toBase58()} (${d.lamports} lamports)`);
    }
    case 'TransferWithSeed': {
      const d = tryDecode(() => SystemInstruction.decodeTransferWithSeed(tix));
      if (!d) return refused('malformed System TransferWithSeed');
      return refused(`System TransferWithSeed moves ${whose(d.basePubkey)} funds to ${d.toPubkey.toBase58()} (${d.lamports} lamports)`);
    }
    case 'Assign': {
      const d = tryDecode(() => SystemInstruction.decodeAssign(tix));
      if (!d) return refused('malformed System Assign');
      return refused(
        `System Assign re-assigns ${whose(d.accountPubkey)} account ${d.accountPubkey.toBase58()} to program ${d.programId.toBase58()}`,
      );
    }
    case 'AssignWithSeed': {
      const d = tryDecode(() => SystemInstruction.decodeAssignWithSeed(tix));
      if (!d) return refused('malformed System AssignWithSeed');
      return refused(
        `System AssignWithSeed re-assigns ${whose(d.basePubkey)} account ${d.accountPubkey.toBase58()} to program ${d.programId.toBase58()}`,
      );
    }
    default:
      return refused(`System ${type} is not an instruction Ballast can prove harmless`);
  }
}

/** SPL Token (or Token-2022) instruction, by its type byte. */
function judgeToken(ix: SvmInstruction, tix: TransactionInstruction, facts: SvmJudgeFacts): SvmInstructionVerdict {
  const program = tix.programId;
  const type = ix.data[0];
  const name = type === undefined ? 'instruction without data' : (TokenInstruction[type] ?? `instruction type ${type}`);
  const whose = (authority: PublicKey) => (authority.toBase58() === facts.user ? 'our' : `${authority.toBase58()}'s`);
  switch (type) {
    case TokenInstruction.Transfer:
    case TokenInstruction.TransferChecked: {
      const d = tryDecode(() =>
        type === TokenInstruction.Transfer ? decodeTransferInstruction(tix, program) : decodeTransferCheckedInstruction(tix, program),
      );
      if (!d) return refused(`malformed SPL Token ${name}`);
      const { source, destination, owner } = d.keys;
      return refused(
        `SPL Token ${name} moves ${whose(owner.pubkey)} tokens from ${source.pubkey.toBase58()} to ${destination.pubkey.toBase58()}`,
      );
    }
    case TokenInstruction.Burn:
    case TokenInstruction.BurnChecked: {
      const d = tryDecode(() =>
        type === TokenInstruction.Burn ? decodeBurnInstruction(tix, program) : decodeBurnCheckedInstruction(tix, program),
      );
      if (!d) return refused(`malformed SPL Token ${name}`);
      return refused(`SPL Token ${name} burns ${whose(d.keys.owner.pubkey)} tokens in ${d.keys.account.pubkey.toBase58()}`);
    }
    case TokenInstruction.CloseAccount: {
      const d = tryDecode(() => decodeCloseAccountInstruction(tix, program));
      if (!d) return refused('malformed SPL Token CloseAccount');
      return refused(
        `SPL Token CloseAccount closes ${whose(d.keys.authority.pubkey)} account ${d.keys.account.pubkey.toBase58()}, sending its lamports to ${d.keys.destination.pubkey.toBase58()}`,
      );
    }
    case TokenInstruction.SetAuthority: {
      const d = tryDecode(() => decodeSetAuthorityInstruction(tix, program));
      if (!d) return refused('malformed SPL Token SetAuthority');
      const to = d.data.newAuthority ? d.data.newAuthority.toBase58() : 'none';
      return refused(`SPL Token SetAuthority changes an authority of ${d.keys.account.pubkey.toBase58()} to ${to}`);
    }
    case TokenInstruction.Approve:
    case TokenInstruction.ApproveChecked: {
      const d = tryDecode(() =>
        type === TokenInstruction.Approve ? decodeApproveInstruction(tix, program) : decodeApproveCheckedInstruction(tix, program),
      );
      const delegate = d ? d.keys.delegate.pubkey.toBase58() : (ix.keys[type === TokenInstruction.Approve ? 1 : 2]?.pubkey ?? 'unknown');
      const account = d ? d.keys.account.pubkey.toBase58() : (ix.keys[0]?.pubkey ?? 'unknown');
      return { kind: 'approve', delegate, account };
    }
    case TokenInstruction.SyncNative: {
      const d = tryDecode(() => decodeSyncNativeInstruction(tix, program));
      if (!d) return refused('malformed SPL Token SyncNative');
      const ours = tryDecode(() => associatedTokenAddress(facts.user, NATIVE_MINT.toBase58(), program.toBase58()));
      const account = d.keys.account.pubkey.toBase58();
      if (ours === null) return refused(`SPL Token SyncNative on ${account}: our wallet ${facts.user} is not a Solana public key`);
      return account === ours
        ? harmless(`SyncNative on our wrapped-SOL account ${ours}`)
        : refused(`SPL Token SyncNative on ${account}, which is not our wrapped-SOL account ${ours}`);
    }
    default:
      return refused(`SPL Token ${name} is not an instruction Ballast can prove harmless`);
  }
}

/**
 * Associated-token `Create` (empty data or 0) / `CreateIdempotent` (1): accounts [payer, ata, owner, mint,
 * system program, token program]; harmless when we pay, the token program is SPL Token or Token-2022, the
 * account is the owner's associated account, and the owner is us or, for the payment mint, the vault.
 */
function judgeAssociatedToken(ix: SvmInstruction, facts: SvmJudgeFacts): SvmInstructionVerdict {
  const type = ix.data.length === 0 ? 0 : ix.data.length === 1 ? ix.data[0] : undefined;
  if (type !== 0 && type !== 1) return refused('associated-token instruction other than Create / CreateIdempotent');
  const name = type === 0 ? 'Create' : 'CreateIdempotent';
  if (ix.keys.length !== 6) return refused(`associated-token ${name} with ${ix.keys.length} accounts, expected 6`);
  const [payer, ata, owner, mint, system, tokenProgram] = ix.keys.map((k) => k.pubkey) as [string, string, string, string, string, string]; // length checked above
  if (payer !== facts.user) return refused(`associated-token ${name} is paid by ${payer}, not our wallet`);
  if (system !== SYSTEM_PROGRAM_ID) return refused(`associated-token ${name} names ${system} as the system program`);
  if (!SVM_TOKEN_PROGRAMS.has(tokenProgram)) return refused(`associated-token ${name} names ${tokenProgram} as the token program`);
  const forVault = facts.vault !== null && owner === facts.vault;
  if (owner !== facts.user && !forVault)
    return refused(`associated-token ${name} creates an account for ${owner}, neither our wallet nor the vault`);
  if (forVault && mint !== facts.paymentCurrency) {
    return refused(`associated-token ${name} creates a vault account for mint ${mint}, not the payment currency ${facts.paymentCurrency}`);
  }
  const expected = associatedTokenAddress(owner, mint, tokenProgram);
  if (ata !== expected)
    return refused(`associated-token ${name} account ${ata} is not ${owner}'s associated account ${expected} for mint ${mint}`);
  return harmless(`${name} of ${forVault ? "the vault's" : 'our'} ${mint} account ${ata}`);
}

/**
 * Judges one instruction of a step item.
 *
 * @param ix the instruction as parsed from the quote
 * @param facts our wallet, the depository and the payment currency
 * @returns the verdict; never throws (undecodable data is refused)
 */
export function judgeSvmInstruction(ix: SvmInstruction, facts: SvmJudgeFacts): SvmInstructionVerdict {
  if (ix.programId === facts.depository) return { kind: 'deposit' };
  if (ix.programId === COMPUTE_BUDGET_PROGRAM_ID) return { kind: 'compute-budget' };
  if (ix.programId === MEMO_PROGRAM_ID || ix.programId === MEMO_V1_PROGRAM_ID) return harmless('SPL Memo');
  if (ix.programId === ASSOCIATED_TOKEN_PROGRAM_ID) return judgeAssociatedToken(ix, facts);
  const tix = toTransactionInstruction(ix); // keys were validated as public keys by the step-data schema
  if (ix.programId === SYSTEM_PROGRAM_ID) return judgeSystem(tix, facts.user);
  if (SVM_TOKEN_PROGRAMS.has(ix.programId)) return judgeToken(ix, tix, facts);
  return refused(`cannot prove program ${ix.programId} leaves our funds alone`);
}
