/**
 * The Anchor 0.30 framework errors and the relay-depository program's own errors (`CustomError`, numbered
 * from 6000) that the sandbox's depository stand-in can raise, and the log lines Anchor writes for them
 * (`Program log: AnchorError caused by account: vault. Error Code: ConstraintSeeds. Error Number: 2006. …`).
 * Pure.
 */
import type { InstructionErrorJson } from './txErrors.ts';

/** Name → [error number, message] of every error the stand-in raises. */
export const ANCHOR_ERRORS = {
  InstructionMissing: [100, '8 byte instruction identifier not provided'],
  InstructionFallbackNotFound: [101, 'Fallback functions are not supported'],
  InstructionDidNotDeserialize: [102, 'The program could not deserialize the given instruction'],
  ConstraintMut: [2000, 'A mut constraint was violated'],
  ConstraintSeeds: [2006, 'A seeds constraint was violated'],
  ConstraintAssociated: [2009, 'An associated constraint was violated'],
  ConstraintTokenOwner: [2015, 'A token owner constraint was violated'],
  ConstraintAssociatedTokenTokenProgram: [2023, 'An associated token account token program constraint was violated'],
  AccountDiscriminatorMismatch: [3002, '8 byte discriminator did not match what was expected'],
  AccountDidNotDeserialize: [3003, 'Failed to deserialize the account'],
  AccountNotEnoughKeys: [3005, 'Not enough account keys given to the instruction'],
  AccountOwnedByWrongProgram: [3007, 'The given account is owned by a different program than expected'],
  InvalidProgramId: [3008, 'Program ID was not as expected'],
  AccountNotSigner: [3010, 'The given account did not sign'],
  AccountNotInitialized: [3012, 'The program expected this account to be already initialized'],
  InvalidMint: [6001, 'Invalid mint'],
  InvalidTokenProgram: [6002, 'Invalid token program'],
  InvalidVaultTokenAccount: [6010, 'Invalid vault token account'],
} as const satisfies Record<string, readonly [number, string]>;

/** Name of an error in {@link ANCHOR_ERRORS}. */
export type AnchorErrorName = keyof typeof ANCHOR_ERRORS;

/** Why a depository instruction fails: the instruction error it ends with and the log lines it writes first. */
export interface DepositFailure {
  /** `{Custom: n}` for Anchor errors; a plain instruction error when a CPI fails (e.g. `InvalidSeeds`). */
  error: InstructionErrorJson;
  /** Lines logged after `Program log: Instruction: …` and before `… consumed …` / `… failed: …`. */
  logs: string[];
  /** Short reason for the node's own log, e.g. `ConstraintSeeds (vault)`. */
  reason: string;
}

/**
 * An Anchor error as the program raises it.
 *
 * @param account the Anchor account name the error is attributed to (`vault`), if any
 * @param pubkeys the compared keys (`[given, expected]`), logged as Anchor's `Left:` / `Right:` lines
 */
export function anchorFailure(name: AnchorErrorName, account?: string, pubkeys?: [string, string]): DepositFailure {
  const [code, message] = ANCHOR_ERRORS[name];
  const origin = account === undefined ? 'AnchorError occurred.' : `AnchorError caused by account: ${account}.`;
  const logs = [`Program log: ${origin} Error Code: ${name}. Error Number: ${code}. Error Message: ${message}.`];
  if (pubkeys !== undefined)
    logs.push('Program log: Left:', `Program log: ${pubkeys[0]}`, 'Program log: Right:', `Program log: ${pubkeys[1]}`);
  return { error: { Custom: code }, logs, reason: account === undefined ? name : `${name} (${account})` };
}
