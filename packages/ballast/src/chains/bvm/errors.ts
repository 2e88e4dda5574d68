/**
 * Error families of the Bitcoin chain adapter. Messages name the YAML path to fix (`chains.<name>.…`) and never
 * hold the Esplora base URL (a provider key may sit in it) or key material.
 */
import { BallastError } from '@ballast/protocol/core/errors.ts';

/**
 * An Esplora request failed: no answer in time, a transport error, a non-2xx status, or a body that does not
 * parse. `status` is the HTTP status, or null when no answer came; `path` the request path (no base URL).
 */
export class BvmEsploraError extends BallastError {
  readonly code = 'BVM_ESPLORA_HTTP';
  readonly status: number | null;
  readonly path: string;

  constructor(message: string, opts: { status: number | null; path: string; cause?: unknown }) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.status = opts.status;
    this.path = opts.path;
  }
}

/** The adapter refused to sign: unknown wallet, a PSBT that is not ours, or a signature that does not verify. Nothing was sent. */
export class BvmAdapterError extends BallastError {
  readonly code = 'BVM_ADAPTER_REFUSED';
}

/** The Esplora server serves another Bitcoin network than `chains.<name>.network` (its genesis block differs). */
export class BvmWrongNetworkError extends BallastError {
  readonly code = 'BVM_WRONG_NETWORK';
}

/**
 * A deposit search saw the order's deposit only in the mempool: nothing is proven (it may be mined or replaced),
 * so the caller must look again later.
 */
export class BvmDepositUnconfirmedError extends BallastError {
  readonly code = 'BVM_DEPOSIT_UNCONFIRMED';
}

/** A deposit search could not cover its whole window (too many transactions), so it proves nothing. */
export class BvmDepositSearchIncompleteError extends BallastError {
  readonly code = 'BVM_DEPOSIT_SEARCH_INCOMPLETE';
}

/** `waitForInclusion` gave up: the transaction was not in a block when the time ran out. */
export class BvmInclusionTimeoutError extends BallastError {
  readonly code = 'BVM_INCLUSION_TIMEOUT';
}
