/**
 * The checks the relay-depository program (Anchor 0.30; `relayprotocol/relay-depository`
 * packages/solana-vm/programs/relay-depository/src/lib.rs) applies to `deposit_native` / `deposit_token`,
 * in the order the program applies them, and what a passing deposit does (the "plan" the node executes).
 * Pure: account state comes through `readAccount`.
 *
 * Order: instruction dispatch (discriminator, then borsh arguments: 8-byte amount + 32-byte id; trailing
 * bytes are ignored as Anchor's `deserialize` ignores them), then each account's type check in field order
 * (`Account<RelayDepository>`, `Signer`, `InterfaceAccount<Mint|TokenAccount>`, `Program`/`Interface`), then
 * the field constraints (seeds, `mut`, `associated_token`), then the handler's own `require!`s.
 */
import { sha256 } from '@noble/hashes/sha2';
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  DEPOSIT_DATA_LENGTH,
  DEPOSIT_NATIVE_DISCRIMINATOR,
  DEPOSIT_TOKEN_DISCRIMINATOR,
  SYSTEM_PROGRAM_ID,
  associatedTokenAddress,
  decodeDepositData,
  type SvmAccountMeta,
  type SvmDepositEvent,
} from '@ballast/protocol/protocol/svmDepository.ts';
import { anchorFailure, type DepositFailure } from './anchorErrors.ts';
import { bytesToHex } from 'viem';
import { isTokenProgram, parseMint, parseTokenAccount, transferFeeOf, type AccountState } from './tokenState.ts';

/** Anchor account discriminator of `RelayDepository` (sha256("account:RelayDepository")[0..8]). */
export const RELAY_DEPOSITORY_ACCOUNT_DISCRIMINATOR: Uint8Array = sha256(new TextEncoder().encode('account:RelayDepository')).slice(0, 8);

/** What the node needs to check deposits of one depository program. */
export interface DepositoryContext {
  programId: string;
  relayDepository: string;
  vault: string;
  /** Current state of an account (null when it does not exist). */
  readAccount: (address: string) => AccountState | null;
  /** Current epoch (Token-2022 transfer fees depend on it). */
  epoch: bigint;
}

/** A `deposit_native` that passed every check: move `amount` lamports sender → vault. */
export interface NativeDepositPlan {
  kind: 'native';
  sender: string;
  vault: string;
  amount: bigint;
  event: SvmDepositEvent;
}

/** A `deposit_token` that passed every check: create the vault's ATA if needed, then transferChecked. */
export interface TokenDepositPlan {
  kind: 'token';
  sender: string;
  vault: string;
  mint: string;
  decimals: number;
  tokenProgram: string;
  senderTokenAccount: string;
  vaultTokenAccount: string;
  /** True when the vault's token account does not exist yet (the program creates it, paid by the sender). */
  createVaultTokenAccount: boolean;
  amount: bigint;
  event: SvmDepositEvent;
}

/** A deposit the node will execute. */
export type DepositPlan = NativeDepositPlan | TokenDepositPlan;

/** Outcome of checking one depository instruction. */
export type DepositCheck =
  { ok: true; plan: DepositPlan; instructionName: string } | { ok: false; failure: DepositFailure; instructionName: string | null };

const NATIVE_ACCOUNT_COUNT = 5;
const TOKEN_ACCOUNT_COUNT = 10;

function anchorAccountError(state: AccountState | null, expectedOwner: (owner: string) => boolean, account: string): DepositFailure | null {
  if (state === null || (state.owner === SYSTEM_PROGRAM_ID && state.lamports === 0n))
    return anchorFailure('AccountNotInitialized', account);
  if (!expectedOwner(state.owner)) return anchorFailure('AccountOwnedByWrongProgram', account);
  return null;
}

function checkRelayDepository(meta: SvmAccountMeta, ctx: DepositoryContext): DepositFailure | null {
  const state = ctx.readAccount(meta.pubkey);
  if (state === null || (state.owner === SYSTEM_PROGRAM_ID && state.lamports === 0n))
    return anchorFailure('AccountNotInitialized', 'relay_depository');
  if (state.owner !== ctx.programId) return anchorFailure('AccountOwnedByWrongProgram', 'relay_depository', [state.owner, ctx.programId]);
  if (bytesToHex(state.data.subarray(0, 8)) !== bytesToHex(RELAY_DEPOSITORY_ACCOUNT_DISCRIMINATOR)) {
    return anchorFailure('AccountDiscriminatorMismatch', 'relay_depository');
  }
  return null;
}

/**
 * Checks one instruction addressed to the depository program.
 *
 * @param data the instruction data
 * @param accounts the instruction's accounts with the signer / writable flags of the message
 * @returns a plan to execute, or the failure the program would end with
 */
export function checkDepositInstruction(data: Uint8Array, accounts: SvmAccountMeta[], ctx: DepositoryContext): DepositCheck {
  if (data.length < 8) return { ok: false, failure: anchorFailure('InstructionMissing'), instructionName: null };
  const disc = bytesToHex(data.subarray(0, 8));
  if (disc !== DEPOSIT_NATIVE_DISCRIMINATOR && disc !== DEPOSIT_TOKEN_DISCRIMINATOR) {
    const failure = anchorFailure('InstructionFallbackNotFound');
    failure.logs.unshift('Program log: this sandbox stand-in implements only deposit_native and deposit_token');
    return { ok: false, failure, instructionName: null };
  }
  const native = disc === DEPOSIT_NATIVE_DISCRIMINATOR;
  const instructionName = native ? 'DepositNative' : 'DepositToken';
  const decoded = data.length >= DEPOSIT_DATA_LENGTH ? decodeDepositData(data.subarray(0, DEPOSIT_DATA_LENGTH)) : null;
  if (decoded === null) return { ok: false, failure: anchorFailure('InstructionDidNotDeserialize'), instructionName };
  const fail = (failure: DepositFailure): DepositCheck => ({ ok: false, failure, instructionName });
  if (accounts.length < (native ? NATIVE_ACCOUNT_COUNT : TOKEN_ACCOUNT_COUNT)) return fail(anchorFailure('AccountNotEnoughKeys'));
  const at = (i: number): SvmAccountMeta => accounts[i] as SvmAccountMeta; // length checked just above
  const relayDepository = at(0);
  const sender = at(1);
  const depositor = at(2);
  const vault = at(3);

  // Account type checks, in field order.
  const relayError = checkRelayDepository(relayDepository, ctx);
  if (relayError !== null) return fail(relayError);
  if (!sender.isSigner) return fail(anchorFailure('AccountNotSigner', 'sender'));
  if (native) {
    if (at(4).pubkey !== SYSTEM_PROGRAM_ID)
      return fail(anchorFailure('InvalidProgramId', 'system_program', [at(4).pubkey, SYSTEM_PROGRAM_ID]));
    // Constraints.
    if (relayDepository.pubkey !== ctx.relayDepository)
      return fail(anchorFailure('ConstraintSeeds', 'relay_depository', [relayDepository.pubkey, ctx.relayDepository]));
    if (!sender.isWritable) return fail(anchorFailure('ConstraintMut', 'sender'));
    if (!vault.isWritable) return fail(anchorFailure('ConstraintMut', 'vault'));
    if (vault.pubkey !== ctx.vault) return fail(anchorFailure('ConstraintSeeds', 'vault', [vault.pubkey, ctx.vault]));
    const event: SvmDepositEvent = { depositor: depositor.pubkey, token: null, amount: decoded.amount, id: decoded.id };
    return {
      ok: true,
      instructionName,
      plan: { kind: 'native', sender: sender.pubkey, vault: vault.pubkey, amount: decoded.amount, event },
    };
  }
  return checkToken(accounts, ctx, decoded.amount, decoded.id, instructionName);
}

function checkToken(
  accounts: SvmAccountMeta[],
  ctx: DepositoryContext,
  amount: bigint,
  id: SvmDepositEvent['id'],
  instructionName: string,
): DepositCheck {
  const fail = (failure: DepositFailure): DepositCheck => ({ ok: false, failure, instructionName });
  const [relayDepository, sender, depositor, vault, mint, senderToken, vaultToken, tokenProgram, ataProgram, systemProgram] = accounts as [
    SvmAccountMeta,
    SvmAccountMeta,
    SvmAccountMeta,
    SvmAccountMeta,
    SvmAccountMeta,
    SvmAccountMeta,
    SvmAccountMeta,
    SvmAccountMeta,
    SvmAccountMeta,
    SvmAccountMeta,
  ]; // the caller checked there are at least 10
  const mintState = ctx.readAccount(mint.pubkey);
  const mintError = anchorAccountError(mintState, isTokenProgram, 'mint');
  if (mintError !== null) return fail(mintError);
  const mintData = parseMint(mint.pubkey, mintState);
  if (mintData === null) return fail(anchorFailure('AccountDidNotDeserialize', 'mint'));
  const senderTokenState = ctx.readAccount(senderToken.pubkey);
  const senderTokenError = anchorAccountError(senderTokenState, isTokenProgram, 'sender_token_account');
  if (senderTokenError !== null) return fail(senderTokenError);
  const senderTokenData = parseTokenAccount(senderToken.pubkey, senderTokenState);
  if (senderTokenData === null) return fail(anchorFailure('AccountDidNotDeserialize', 'sender_token_account'));
  if (!isTokenProgram(tokenProgram.pubkey)) return fail(anchorFailure('InvalidProgramId', 'token_program'));
  if (ataProgram.pubkey !== ASSOCIATED_TOKEN_PROGRAM_ID)
    return fail(anchorFailure('InvalidProgramId', 'associated_token_program', [ataProgram.pubkey, ASSOCIATED_TOKEN_PROGRAM_ID]));
  if (systemProgram.pubkey !== SYSTEM_PROGRAM_ID)
    return fail(anchorFailure('InvalidProgramId', 'system_program', [systemProgram.pubkey, SYSTEM_PROGRAM_ID]));

  // Constraints.
  if (relayDepository.pubkey !== ctx.relayDepository)
    return fail(anchorFailure('ConstraintSeeds', 'relay_depository', [relayDepository.pubkey, ctx.relayDepository]));
  if (!sender.isWritable) return fail(anchorFailure('ConstraintMut', 'sender'));
  if (vault.pubkey !== ctx.vault) return fail(anchorFailure('ConstraintSeeds', 'vault', [vault.pubkey, ctx.vault]));
  if (!senderToken.isWritable) return fail(anchorFailure('ConstraintMut', 'sender_token_account'));
  if (senderTokenData.owner.toBase58() !== sender.pubkey) {
    return fail(anchorFailure('ConstraintTokenOwner', 'sender_token_account', [senderTokenData.owner.toBase58(), sender.pubkey]));
  }
  const senderAta = associatedTokenAddress(sender.pubkey, mint.pubkey, tokenProgram.pubkey);
  if (senderToken.pubkey !== senderAta)
    return fail(anchorFailure('ConstraintAssociated', 'sender_token_account', [senderToken.pubkey, senderAta]));
  if (senderTokenState?.owner !== tokenProgram.pubkey)
    return fail(anchorFailure('ConstraintAssociatedTokenTokenProgram', 'sender_token_account'));
  if (!vaultToken.isWritable) return fail(anchorFailure('ConstraintMut', 'vault_token_account'));

  // Handler.
  if (mintState?.owner !== tokenProgram.pubkey)
    return fail(anchorFailure('InvalidMint', undefined, [mintState?.owner ?? '', tokenProgram.pubkey]));
  const expectedVaultAta = associatedTokenAddress(vault.pubkey, mint.pubkey, tokenProgram.pubkey);
  const vaultTokenState = ctx.readAccount(vaultToken.pubkey);
  const createVaultTokenAccount = vaultTokenState === null || vaultTokenState.data.length === 0;
  if (createVaultTokenAccount && vaultToken.pubkey !== expectedVaultAta) {
    // The associated-token program refuses to create an account at an address that is not the ATA.
    return fail({
      error: 'InvalidSeeds',
      logs: [
        `Program ${ASSOCIATED_TOKEN_PROGRAM_ID} invoke [2]`,
        'Program log: Create',
        'Program log: Error: Associated address does not match seed derivation',
        `Program ${ASSOCIATED_TOKEN_PROGRAM_ID} failed: Provided seeds do not result in a valid address`,
      ],
      reason: 'vault token account is not the vault ATA (create refused)',
    });
  }
  if (vaultToken.pubkey !== expectedVaultAta)
    return fail(anchorFailure('InvalidVaultTokenAccount', undefined, [vaultToken.pubkey, expectedVaultAta]));
  const fee = transferFeeOf(mintData, ctx.epoch, amount);
  return {
    ok: true,
    instructionName,
    plan: {
      kind: 'token',
      sender: sender.pubkey,
      vault: vault.pubkey,
      mint: mint.pubkey,
      decimals: mintData.decimals,
      tokenProgram: tokenProgram.pubkey,
      senderTokenAccount: senderToken.pubkey,
      vaultTokenAccount: vaultToken.pubkey,
      createVaultTokenAccount,
      amount,
      event: { depositor: depositor.pubkey, token: mint.pubkey, amount: amount - fee, id },
    },
  };
}
