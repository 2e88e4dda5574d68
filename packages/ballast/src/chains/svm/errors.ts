/**
 * Error families of the Solana chain adapter. Messages name the YAML path to fix (`chains.<name>.rpcUrl`) and
 * never hold the RPC URL itself (a provider key may sit in it) or key material.
 */
import { BallastError } from '@ballast/protocol/core/errors.ts';

/**
 * A JSON-RPC call to the Solana node failed: no answer in time, a transport error, an HTTP error status, a
 * JSON-RPC error object, or an answer web3.js could not parse. `method` is the JSON-RPC method asked.
 * An error proves nothing: no caller reads it as "not found".
 */
export class SvmRpcError extends BallastError {
  readonly code = 'SVM_RPC_FAILED';
  readonly method: string;

  constructor(message: string, opts: { method: string; cause?: unknown }) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.method = opts.method;
  }
}

/**
 * The adapter refused to sign: unknown wallet, step data that is not Solana instructions, a lookup table that
 * cannot be read, a transaction that needs another signer or exceeds 1232 bytes. Nothing was sent. Also thrown by
 * `broadcast` for raw bytes that are not a signed transaction (nothing sent; not a refusal: the outcome is read
 * from the chain).
 */
export class SvmAdapterError extends BallastError {
  readonly code = 'SVM_ADAPTER_REFUSED';
}

/** `waitForInclusion` gave up: the transaction did not reach the configured commitment in time. */
export class SvmInclusionTimeoutError extends BallastError {
  readonly code = 'SVM_INCLUSION_TIMEOUT';
}

/**
 * `waitForInclusion` saw the transaction's blockhash expire (block height past its `lastValidBlockHeight`)
 * with the signature still unknown: it can never land. Reconciliation proves it (`lookup` → `dropped`).
 */
export class SvmBlockhashExpiredError extends BallastError {
  readonly code = 'SVM_BLOCKHASH_EXPIRED';
}

/**
 * A deposit search could not cover its whole window (too many signatures, a listed transaction the node
 * could not return, truncated logs of a depository call), so it proves nothing.
 */
export class SvmDepositSearchIncompleteError extends BallastError {
  readonly code = 'SVM_DEPOSIT_SEARCH_INCOMPLETE';
}

/**
 * Signing refused: the unsigned message about to be signed was simulated (`simulateTransaction`, `sigVerify`
 * false, `replaceRecentBlockhash`; src/chains/svm/simulate.ts) and the simulation failed, so no signature was
 * made: nothing exists that could land, nothing was sent, no fee was paid. `err` is the node's transaction
 * error, `logs` the program logs of the simulation (the message holds their last lines). Thrown by `sign`, never
 * by `broadcast`: a signed transaction is never simulated, because a node that saw it may forward it.
 */
export class SvmSimulationFailedError extends BallastError {
  readonly code = 'SVM_SIMULATION_FAILED';
  readonly err: unknown;
  readonly logs: readonly string[];

  constructor(message: string, opts: { err: unknown; logs: readonly string[] }) {
    super(message);
    this.err = opts.err;
    this.logs = opts.logs;
  }
}
