/**
 * Solana transaction errors as a validator serializes them in JSON-RPC (`meta.err`, `value.err`,
 * preflight `data.err`): a fieldless error is its name (`"BlockhashNotFound"`), the others are one-key
 * objects (`{"InstructionError":[0,{"Custom":6001}]}`). Also the human text Agave prints for them
 * ("Error processing Instruction 0: custom program error: 0x1771") and the conversion from litesvm's result
 * objects. Pure.
 */
import type { FailedTransactionMetadata } from 'litesvm';

/** An instruction error: fieldless name, `{Custom: code}` or `{BorshIoError: message}`. */
export type InstructionErrorJson = string | { Custom: number } | { BorshIoError: string };

/** A transaction error as JSON-RPC carries it. */
export type TransactionErrorJson =
  | string
  | { InstructionError: [number, InstructionErrorJson] }
  | { DuplicateInstruction: number }
  | { InsufficientFundsForRent: { account_index: number } }
  | { ProgramExecutionTemporarilyRestricted: { account_index: number } };

/** Fieldless transaction errors, in the numeric order litesvm reports them. */
const TX_ERROR_NAMES = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
  'CallChainTooDeep',
  'MissingSignatureForFee',
  'InvalidAccountIndex',
  'SignatureFailure',
  'InvalidProgramForExecution',
  'SanitizeFailure',
  'ClusterMaintenance',
  'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion',
  'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit',
  'WouldExceedAccountDataBlockLimit',
  'TooManyAccountLocks',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit',
  'MaxLoadedAccountsDataSizeExceeded',
  'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
];

/** Fieldless instruction errors, in the numeric order litesvm reports them. */
const IX_ERROR_NAMES = [
  'GenericError',
  'InvalidArgument',
  'InvalidInstructionData',
  'InvalidAccountData',
  'AccountDataTooSmall',
  'InsufficientFunds',
  'IncorrectProgramId',
  'MissingRequiredSignature',
  'AccountAlreadyInitialized',
  'UninitializedAccount',
  'UnbalancedInstruction',
  'ModifiedProgramId',
  'ExternalAccountLamportSpend',
  'ExternalAccountDataModified',
  'ReadonlyLamportChange',
  'ReadonlyDataModified',
  'DuplicateAccountIndex',
  'ExecutableModified',
  'RentEpochModified',
  'NotEnoughAccountKeys',
  'AccountDataSizeChanged',
  'AccountNotExecutable',
  'AccountBorrowFailed',
  'AccountBorrowOutstanding',
  'DuplicateAccountOutOfSync',
  'InvalidError',
  'ExecutableDataModified',
  'ExecutableLamportChange',
  'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId',
  'CallDepth',
  'MissingAccount',
  'ReentrancyNotAllowed',
  'MaxSeedLengthExceeded',
  'InvalidSeeds',
  'InvalidRealloc',
  'ComputationalBudgetExceeded',
  'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure',
  'ProgramFailedToComplete',
  'ProgramFailedToCompile',
  'Immutable',
  'IncorrectAuthority',
  'AccountNotRentExempt',
  'InvalidAccountOwner',
  'ArithmeticOverflow',
  'UnsupportedSysvar',
  'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded',
  'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits',
  'BorshIoError',
];

const TX_ERROR_TEXT: Record<string, string> = {
  AccountInUse: 'Account in use',
  AccountLoadedTwice: 'Account loaded twice',
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  ProgramAccountNotFound: 'Attempt to load a program that does not exist',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  InvalidAccountForFee: 'This account may not be used to pay transaction fees',
  AlreadyProcessed: 'This transaction has already been processed',
  BlockhashNotFound: 'Blockhash not found',
  MissingSignatureForFee: 'Transaction requires a fee but has no signature present',
  InvalidAccountIndex: 'Transaction contains an invalid account reference',
  SignatureFailure: 'Transaction did not pass signature verification',
  InvalidProgramForExecution: 'This program may not be used for executing instructions',
  SanitizeFailure: 'Transaction failed to sanitize accounts offsets correctly',
  UnsupportedVersion: 'Transaction version is unsupported',
  TooManyAccountLocks: 'Transaction locked too many accounts',
  AddressLookupTableNotFound: "Transaction loads an address table account that doesn't exist",
  InvalidAddressLookupTableOwner: 'Transaction loads an address table account with an invalid owner',
  InvalidAddressLookupTableData: 'Transaction loads an address table account with invalid data',
  InvalidAddressLookupTableIndex: 'Transaction address table lookup uses an invalid index',
};

const IX_ERROR_TEXT: Record<string, string> = {
  GenericError: 'generic instruction error',
  InvalidArgument: 'invalid program argument',
  InvalidInstructionData: 'invalid instruction data',
  InvalidAccountData: 'invalid account data for instruction',
  AccountDataTooSmall: 'account data too small for instruction',
  InsufficientFunds: 'insufficient funds for instruction',
  IncorrectProgramId: 'incorrect program id for instruction',
  MissingRequiredSignature: 'missing required signature for instruction',
  AccountAlreadyInitialized: 'instruction requires an uninitialized account',
  UninitializedAccount: 'instruction requires an initialized account',
  NotEnoughAccountKeys: 'insufficient account keys for instruction',
  ComputationalBudgetExceeded: 'Computational budget exceeded',
  PrivilegeEscalation: 'Cross-program invocation with unauthorized signer or writable account',
  InvalidSeeds: 'Provided seeds do not result in a valid address',
  InvalidAccountOwner: 'Invalid account owner',
  IllegalOwner: 'Provided owner is not allowed',
  ArithmeticOverflow: 'Program arithmetic overflowed',
};

/** Agave's text for an instruction error, e.g. `custom program error: 0x7d6`. */
export function instructionErrorText(err: InstructionErrorJson): string {
  if (typeof err === 'string') return IX_ERROR_TEXT[err] ?? err;
  if ('Custom' in err) return `custom program error: 0x${err.Custom.toString(16)}`;
  return `Failed to serialize or deserialize account data: ${err.BorshIoError}`;
}

/** Agave's text for a transaction error, e.g. `Blockhash not found`. */
export function transactionErrorText(err: TransactionErrorJson): string {
  if (typeof err === 'string') return TX_ERROR_TEXT[err] ?? err;
  if ('InstructionError' in err)
    return `Error processing Instruction ${err.InstructionError[0]}: ${instructionErrorText(err.InstructionError[1])}`;
  if ('DuplicateInstruction' in err)
    return `Transaction contains a duplicate instruction (${err.DuplicateInstruction}) that is not allowed`;
  if ('InsufficientFundsForRent' in err)
    return `Transaction results in an account (${err.InsufficientFundsForRent.account_index}) with insufficient funds for rent`;
  return `Execution of the program referenced by account at index ${err.ProgramExecutionTemporarilyRestricted.account_index} is temporarily restricted.`;
}

type LitesvmTxError = ReturnType<FailedTransactionMetadata['err']>;

/** Converts litesvm's error value into the JSON-RPC form. */
export function transactionErrorFromLitesvm(err: LitesvmTxError): TransactionErrorJson {
  if (typeof err === 'number') return TX_ERROR_NAMES[err] ?? `TransactionError${err}`;
  if ('index' in err && 'err' in err) {
    const inner = err.err();
    const json: InstructionErrorJson =
      typeof inner === 'number'
        ? (IX_ERROR_NAMES[inner] ?? `InstructionError${inner}`)
        : 'code' in inner
          ? { Custom: inner.code }
          : { BorshIoError: inner.msg };
    return { InstructionError: [err.index, json] };
  }
  if ('index' in err) return { DuplicateInstruction: err.index };
  // Both remaining classes carry only `accountIndex`; the native class name tells them apart.
  return err.constructor.name.includes('Restricted')
    ? { ProgramExecutionTemporarilyRestricted: { account_index: err.accountIndex } }
    : { InsufficientFundsForRent: { account_index: err.accountIndex } };
}

/** True for errors a validator still records on chain (the fee is charged, the signature is known). */
export function errorLands(err: TransactionErrorJson): boolean {
  return (
    typeof err === 'object' &&
    ('InstructionError' in err || 'InsufficientFundsForRent' in err || 'ProgramExecutionTemporarilyRestricted' in err)
  );
}

/** `{InstructionError: [index, {Custom: code}]}`. */
export function customInstructionError(index: number, code: number): TransactionErrorJson {
  return { InstructionError: [index, { Custom: code }] };
}
