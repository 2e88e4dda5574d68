/**
 * The sandbox Solana node's core: a litesvm instance, the slot clock and the ledger, and the pipeline every
 * transaction goes through (what a validator's RPC front end, banking stage and status cache do):
 * signatures (ed25519, every required signer) → status cache (AlreadyProcessed) → blockhash age →
 * address-table lookups → depository checks → optional preflight simulation → execution in a new slot →
 * record under the original signature and message. Failures that would not land answer as the JSON-RPC
 * errors a real node sends; execution failures (InstructionError) land with the fee charged, unless the
 * preflight caught them first.
 *
 * litesvm runs with its own signature and blockhash checks off: the node checks both itself against the
 * original message, and depository instructions are executed as rewritten instructions
 * (see depositoryRewrite.ts).
 */
import type { Logger } from 'pino';
import { FailedTransactionMetadata, type LiteSVM, type TransactionMetadata } from 'litesvm';
import { PublicKey } from '@solana/web3.js';
import { depositoryPdas, type SvmAccountMeta } from '@ballast/protocol/protocol/svmDepository.ts';
import { checkDepositInstruction, type DepositPlan } from './depositoryRules.ts';
import type { DepositFailure } from './anchorErrors.ts';
import {
  asKitTransaction,
  buildExecutedTransaction,
  type ExecutedTransaction,
  type InstructionDecision,
  type KitTransaction,
} from './depositoryRewrite.ts';
import { rewriteLogs, type DepositLogOutcome } from './depositoryLogs.ts';
import { buildLandedTransaction, type ExecutionResult, type PreparedTransaction } from './landedTransaction.ts';
import { Ledger, type LandedTransaction, type SvmLandedDeposit } from './ledger.ts';
import { resolveLookups } from './lookupTables.ts';
import { RPC_ERROR, RpcError, preflightError } from './rpcError.ts';
import type { SlotClock } from './slotClock.ts';
import type { AccountState } from './tokenState.ts';
import { errorLands, transactionErrorFromLitesvm, type TransactionErrorJson } from './txErrors.ts';
import { snapshotBalances } from './txMeta.ts';
import { firstBadSignature, signatureVerificationError, type DecodedTransaction } from './wireTransaction.ts';

/** Options of {@link SvmEngine}. */
export interface SvmEngineOptions {
  svm: LiteSVM;
  clock: SlotClock;
  /** Depository program id, base58. */
  programId: string;
  logger: Logger;
}

/**
 * Fault: which executions fail every depository deposit that passes the program's checks. `simulated`: every
 * execution (simulation, preflight and landing), as when the deposit cannot succeed in the current state;
 * `landing`: only the execution that lands (fee charged), while simulations and preflights still pass, as when
 * the state changed between a simulation and the slot the transaction lands in.
 */
export type DepositFault = 'off' | 'simulated' | 'landing';

/**
 * How a deposit fails under a {@link DepositFault}: the token (or system) program's `InsufficientFunds`
 * (custom error 1) through the depository's transfer CPI, as when the depositor's balance fell short.
 */
export const DEPOSIT_FAULT_FAILURE: DepositFailure = Object.freeze({
  error: { Custom: 1 },
  logs: ['Program log: Error: insufficient funds'],
  reason: 'insufficient funds (deposit fault)',
});

/** Executes transactions against litesvm and keeps the ledger. */
export class SvmEngine {
  readonly svm: LiteSVM;
  readonly clock: SlotClock;
  readonly ledger = new Ledger();
  readonly programId: string;
  readonly pdas: { relayDepository: string; vault: string };
  readonly #logger: Logger;
  readonly #landedListeners = new Set<(tx: LandedTransaction) => void>();
  readonly #slotListeners = new Set<(slot: number) => void>();
  #transactionCount = 0;
  /** Fault knob (tests): see {@link DepositFault}. */
  depositFault: DepositFault = 'off';

  constructor(opts: SvmEngineOptions) {
    this.svm = opts.svm;
    this.clock = opts.clock;
    this.programId = opts.programId;
    this.pdas = depositoryPdas(opts.programId);
    this.#logger = opts.logger;
    this.#syncSysvars();
  }

  /** Landed transactions so far. */
  get transactionCount(): number {
    return this.#transactionCount;
  }

  /** Calls `fn` for every landed transaction; returns an unsubscribe function. */
  onLanded(fn: (tx: LandedTransaction) => void): () => void {
    this.#landedListeners.add(fn);
    return () => void this.#landedListeners.delete(fn);
  }

  /** Calls `fn` with every new slot; returns an unsubscribe function. */
  onSlot(fn: (slot: number) => void): () => void {
    this.#slotListeners.add(fn);
    return () => void this.#slotListeners.delete(fn);
  }

  /** Current state of an account, or null when it does not exist (no lamports, no data). */
  readAccount = (address: string): AccountState | null => {
    let key: string;
    try {
      key = new PublicKey(address).toBase58();
    } catch {
      return null; // not an address: no such account
    }
    // A base58 32-byte key is exactly what kit's branded `Address` holds.
    const account = this.svm.getAccount(key as Parameters<LiteSVM['getAccount']>[0]);
    if (!account.exists) return null;
    return {
      owner: account.programAddress,
      lamports: account.lamports,
      data: Uint8Array.from(account.data),
      executable: account.executable,
    };
  };

  /** Produces `n` slots (default 1), updates the Clock and SlotHashes sysvars, notifies listeners. */
  advanceSlot(n = 1): number {
    const slot = this.clock.advance(n);
    this.#syncSysvars();
    for (const fn of this.#slotListeners) this.#notify(() => fn(slot));
    return slot;
  }

  /** Runs a listener; a listener's failure is logged and never undoes or fails what it was told about. */
  #notify(call: () => void): void {
    try {
      call();
    } catch (error) {
      this.#logger.error({ err: error }, 'a Solana node listener threw');
    }
  }

  #syncSysvars(): void {
    const slot = this.clock.slot;
    const clock = this.svm.getClock();
    const slotsPerEpoch = this.svm.getEpochSchedule().slotsPerEpoch;
    clock.slot = BigInt(slot);
    clock.epoch = BigInt(slot) / slotsPerEpoch;
    clock.unixTimestamp = BigInt(this.clock.slotInfo(slot)?.blockTimeSec ?? Math.floor(Date.now() / 1000));
    this.svm.setClock(clock);
    this.svm.setSlotHashes(this.clock.slotHashes().map((s) => ({ slot: BigInt(s.slot), hash: s.hash })));
  }

  /** The current epoch. */
  epoch(): bigint {
    return this.svm.getClock().epoch;
  }

  /**
   * Runs a transaction to landing (the `sendTransaction` path).
   *
   * @returns the landed record
   * @throws RpcError -32003 on a bad signature; -32002 (preflight) on AlreadyProcessed, BlockhashNotFound, a
   *   lookup-table error, a fee-payer error, or — unless `skipPreflight` — any execution failure
   */
  submit(d: DecodedTransaction, opts: { skipPreflight: boolean }): LandedTransaction {
    if (firstBadSignature(d) !== -1) throw signatureVerificationError();
    if (this.ledger.get(d.signature) !== undefined) throw preflightError('AlreadyProcessed');
    if (!this.clock.isBlockhashValid(d.tx.message.recentBlockhash)) throw preflightError('BlockhashNotFound');
    // The transaction executes in a new slot; the checks below see that slot's state and sysvars.
    const slot = this.advanceSlot();
    const prepared = this.#prepare(d, slot, this.depositFault !== 'off');
    if (!opts.skipPreflight) {
      const sim = this.#execute(this.depositFault === 'landing' ? this.#prepare(d, slot, false) : prepared, true);
      if (sim.err !== null) throw preflightError(sim.err, sim.logs, sim.unitsConsumed);
    }
    const pre = snapshotBalances(prepared.accountKeys, this.readAccount);
    const result = this.#execute(prepared, false);
    if (result.err !== null && !errorLands(result.err)) throw preflightError(result.err, result.logs, result.unitsConsumed);
    const post = snapshotBalances(prepared.accountKeys, this.readAccount);
    const blockTimeSec = this.clock.slotInfo(slot)?.blockTimeSec ?? Math.floor(Date.now() / 1000);
    const landed = buildLandedTransaction(prepared, result, { slot, blockTimeSec, programId: this.programId }, pre, post);
    this.ledger.add(landed);
    this.#transactionCount += 1;
    this.#logger.debug({ signature: landed.signature, slot, err: landed.err, deposits: landed.deposits.length }, 'transaction landed');
    for (const fn of this.#landedListeners) this.#notify(() => fn(landed));
    return landed;
  }

  /**
   * Simulates a transaction against the current state (the `simulateTransaction` path); nothing changes.
   *
   * @param opts.sigVerify check signatures first; `replaceRecentBlockhash` skips the blockhash check
   * @throws RpcError -32003 when `sigVerify` and a signature is bad
   */
  simulate(d: DecodedTransaction, opts: { sigVerify: boolean; replaceRecentBlockhash: boolean }): Omit<ExecutionResult, 'meta'> {
    if (opts.sigVerify && firstBadSignature(d) !== -1) throw signatureVerificationError();
    if (!opts.replaceRecentBlockhash && this.clock.lastValidBlockHeight(d.tx.message.recentBlockhash) === null) {
      return { err: 'BlockhashNotFound', logs: [], unitsConsumed: 0n };
    }
    try {
      const { err, logs, unitsConsumed } = this.#execute(this.#prepare(d, this.clock.slot, this.depositFault === 'simulated'), true);
      return { err, logs, unitsConsumed };
    } catch (error) {
      if (error instanceof RpcError && error.rpcCode === RPC_ERROR.SEND_TRANSACTION_PREFLIGHT_FAILURE) {
        const data = error.data as { err: TransactionErrorJson }; // preflightError always sets `err`
        return { err: data.err, logs: [], unitsConsumed: 0n };
      }
      throw error;
    }
  }

  /** Deposits landed at or after `fromSlot`. */
  deposits(fromSlot?: number): SvmLandedDeposit[] {
    return this.ledger.deposits(fromSlot);
  }

  /** `failDeposits`: a deposit that passes the program's checks fails with {@link DEPOSIT_FAULT_FAILURE} (fault). */
  #prepare(d: DecodedTransaction, slot: number, failDeposits: boolean): PreparedTransaction {
    const recent = new Set(this.clock.slotHashes().map((s) => s.slot));
    const lookups = resolveLookups(d.tx.message, this.readAccount, slot, recent);
    if ('error' in lookups) throw preflightError(lookups.error);
    const staticKeys = d.tx.message.staticAccountKeys.map((k) => k.toBase58());
    const accountKeys = [...staticKeys, ...lookups.writable, ...lookups.readonly];
    const message = d.tx.message;
    const decisions = new Map<number, InstructionDecision>();
    const outcomes = new Map<number, DepositLogOutcome>();
    const plans = new Map<number, DepositPlan>();
    message.compiledInstructions.forEach((ix, i) => {
      if (accountKeys[ix.programIdIndex] !== this.programId) return;
      const metas: SvmAccountMeta[] = ix.accountKeyIndexes.map((k) => ({
        pubkey: accountKeys[k] ?? '',
        isSigner: message.isAccountSigner(k),
        isWritable: message.isAccountWritable(k),
      }));
      const check = checkDepositInstruction(Uint8Array.from(ix.data), metas, {
        programId: this.programId,
        relayDepository: this.pdas.relayDepository,
        vault: this.pdas.vault,
        readAccount: this.readAccount,
        epoch: this.epoch(),
      });
      if (check.ok && failDeposits) {
        decisions.set(i, { kind: 'fail' });
        outcomes.set(i, { kind: 'fail', instructionName: check.instructionName, failure: DEPOSIT_FAULT_FAILURE });
        this.#logger.debug({ signature: d.signature, instruction: i }, 'depository deposit failed (fault)');
      } else if (check.ok) {
        decisions.set(i, { kind: 'deposit', plan: check.plan });
        outcomes.set(i, { kind: 'deposit', instructionName: check.instructionName, event: check.plan.event });
        plans.set(i, check.plan);
      } else {
        decisions.set(i, { kind: 'fail' });
        outcomes.set(i, { kind: 'fail', instructionName: check.instructionName, failure: check.failure });
        this.#logger.debug({ signature: d.signature, instruction: i, reason: check.failure.reason }, 'depository instruction refused');
      }
    });
    let executed: ExecutedTransaction | null = null;
    if (decisions.size > 0) {
      try {
        executed = buildExecutedTransaction(d.tx, lookups.tables, decisions);
      } catch (error) {
        throw new RpcError(RPC_ERROR.INVALID_PARAMS, `invalid transaction: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return { d, lookups, accountKeys, executed, outcomes, plans };
  }

  #execute(p: PreparedTransaction, simulate: boolean): ExecutionResult {
    const tx: KitTransaction = p.executed?.transaction ?? asKitTransaction(p.d.tx);
    let meta: TransactionMetadata;
    let rawErr: ReturnType<FailedTransactionMetadata['err']> | null = null;
    if (simulate) {
      const res = this.svm.simulateTransaction(tx);
      if (res instanceof FailedTransactionMetadata) {
        rawErr = res.err();
        meta = res.meta();
      } else {
        meta = res.meta();
      }
    } else {
      const res = this.svm.sendTransaction(tx);
      if (res instanceof FailedTransactionMetadata) {
        rawErr = res.err();
        meta = res.meta();
      } else {
        meta = res;
      }
    }
    const err = rawErr === null ? null : this.#originalError(transactionErrorFromLitesvm(rawErr), p);
    const logs =
      p.executed === null
        ? meta.logs()
        : rewriteLogs({
            logs: meta.logs(),
            executedProgramIds: p.executed.instructions.map((ix) => ix.programId),
            origin: p.executed.origin,
            outcomes: p.outcomes,
            programId: this.programId,
          });
    return { err, logs, unitsConsumed: meta.computeUnitsConsumed(), meta };
  }

  /** Maps an error of the executed transaction onto the original one (instruction and account indexes). */
  #originalError(err: TransactionErrorJson, p: PreparedTransaction): TransactionErrorJson {
    const ex = p.executed;
    if (ex === null || typeof err === 'string') return err;
    if ('InstructionError' in err) {
      const [j, inner] = err.InstructionError;
      const original = ex.origin[j] ?? j;
      const outcome = p.outcomes.get(original);
      return { InstructionError: [original, outcome?.kind === 'fail' ? outcome.failure.error : inner] };
    }
    if ('DuplicateInstruction' in err) return { DuplicateInstruction: ex.origin[err.DuplicateInstruction] ?? err.DuplicateInstruction };
    const mapIndex = (i: number): number => {
      const key = ex.accountKeys[i];
      const at = key === undefined ? -1 : p.accountKeys.indexOf(key);
      return at === -1 ? i : at;
    };
    if ('InsufficientFundsForRent' in err)
      return { InsufficientFundsForRent: { account_index: mapIndex(err.InsufficientFundsForRent.account_index) } };
    return { ProgramExecutionTemporarilyRestricted: { account_index: mapIndex(err.ProgramExecutionTemporarilyRestricted.account_index) } };
  }
}
