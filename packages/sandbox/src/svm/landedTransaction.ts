/**
 * A transaction between checking and landing (resolved keys, depository outcomes, the executed form), the
 * result of running it, and the ledger record built from both. Pure.
 */
import type { TransactionMetadata } from 'litesvm';
import type { DepositPlan } from './depositoryRules.ts';
import type { ExecutedTransaction } from './depositoryRewrite.ts';
import type { DepositLogOutcome } from './depositoryLogs.ts';
import { transactionFee } from './fees.ts';
import type { LandedTransaction, SvmLandedDeposit } from './ledger.ts';
import type { ResolvedLookups } from './lookupTables.ts';
import type { TransactionErrorJson } from './txErrors.ts';
import { mapInnerInstructions, type BalanceSnapshot } from './txMeta.ts';
import type { DecodedTransaction } from './wireTransaction.ts';

/** A transaction ready to execute: resolved keys, depository outcomes, the executed form. */
export interface PreparedTransaction {
  d: DecodedTransaction;
  lookups: ResolvedLookups;
  /** Original message keys: static, loaded writable, loaded readonly. */
  accountKeys: string[];
  /** The rewritten transaction when it calls the depository; null when the original runs as is. */
  executed: ExecutedTransaction | null;
  /** Original instruction index → depository outcome. */
  outcomes: Map<number, DepositLogOutcome>;
  /** Original instruction index → passing deposit. */
  plans: Map<number, DepositPlan>;
}

/** Result of executing (or simulating) a prepared transaction, in the original transaction's terms. */
export interface ExecutionResult {
  err: TransactionErrorJson | null;
  logs: string[];
  unitsConsumed: bigint;
  meta: TransactionMetadata;
}

/**
 * The ledger record of a landed transaction.
 *
 * @param at the landing slot, its block time (unix seconds) and the depository program id
 * @param pre balances of every account key before execution; `post` after
 */
export function buildLandedTransaction(
  p: PreparedTransaction,
  r: ExecutionResult,
  at: { slot: number; blockTimeSec: number; programId: string },
  pre: BalanceSnapshot,
  post: BalanceSnapshot,
): LandedTransaction {
  const slot = at.slot;
  const message = p.d.tx.message;
  const executedKeys = p.executed?.accountKeys ?? p.accountKeys;
  const executedIxs =
    p.executed?.instructions ??
    message.compiledInstructions.map((ix) => ({
      programId: p.accountKeys[ix.programIdIndex] ?? '',
      accounts: ix.accountKeyIndexes.map((k) => p.accountKeys[k] ?? ''),
      data: Uint8Array.from(ix.data),
    }));
  const inner = r.meta.innerInstructions().map((list) =>
    list.map((ii) => {
      const c = ii.instruction();
      return { programIdIndex: c.programIdIndex(), accounts: c.accounts(), data: c.data(), stackHeight: ii.stackHeight() };
    }),
  );
  const deposits: SvmLandedDeposit[] =
    r.err !== null
      ? []
      : [...p.plans.entries()].map(([i, plan]) => ({
          signature: p.d.signature,
          slot,
          instructionIndex: i,
          programId: at.programId,
          sender: plan.sender,
          event: plan.event,
        }));
  const landed: LandedTransaction = {
    signature: p.d.signature,
    slot,
    blockTimeSec: at.blockTimeSec,
    wire: p.d.tx.serialize(),
    version: p.d.version,
    err: r.err,
    fee: transactionFee({
      numRequiredSignatures: message.header.numRequiredSignatures,
      instructions: message.compiledInstructions.map((ix) => ({ programId: p.accountKeys[ix.programIdIndex] ?? '', data: ix.data })),
    }),
    logs: r.logs,
    accountKeys: p.accountKeys,
    loaded: { writable: p.lookups.writable, readonly: p.lookups.readonly },
    preBalances: pre.lamports,
    postBalances: post.lamports,
    preTokenBalances: pre.tokens,
    postTokenBalances: post.tokens,
    innerInstructions: mapInnerInstructions({
      originalKeys: p.accountKeys,
      executedKeys,
      executed: executedIxs,
      origin: p.executed?.origin ?? executedIxs.map((_ix, i) => i),
      replaced: new Set(p.plans.keys()),
      inner,
    }),
    computeUnitsConsumed: r.unitsConsumed,
    deposits,
  };
  return landed;
}
