/**
 * Errors of the sandbox's Bitcoin node. A rejected broadcast carries both a stable Ballast `code` and the
 * bitcoind reject reason and RPC code that Esplora relays to its callers (`sendrawtransaction RPC error:
 * {"code":-26,"message":"…"}`), so HTTP clients see what they would see from a real Esplora in front of
 * Bitcoin Core, and in-process callers can branch on `code`.
 */
import { BallastError } from '@ballast/protocol/core/errors.ts';

/**
 * Stable codes of {@link BitcoinTxRejectedError}, one per reason a transaction is refused:
 * - `BTC_TX_DECODE_FAILED` — the body is not a serialized transaction (RPC -22);
 * - `BTC_TX_ALREADY_CONFIRMED` — the transaction is already in a block (RPC -27);
 * - `BTC_TX_COINBASE` — a coinbase transaction cannot be broadcast;
 * - `BTC_TX_EMPTY` — no inputs or no outputs;
 * - `BTC_TX_INPUTS_DUPLICATE` — the same outpoint is spent twice by one transaction;
 * - `BTC_TX_OUTPUT_VALUE` — an output value above 21 000 000 BTC;
 * - `BTC_TX_VERSION` — a version other than 1, 2 or 3 (non-standard);
 * - `BTC_TX_NONSTANDARD_OUTPUT` — an output script that is not P2PKH, P2SH, P2WPKH, P2WSH, P2TR or a data
 *   carrier of at most 83 bytes;
 * - `BTC_TX_MULTI_OP_RETURN` — more than one OP_RETURN output;
 * - `BTC_TX_DUST` — an output below its dust threshold;
 * - `BTC_TX_NON_FINAL` — the lock time is not yet reached;
 * - `BTC_TX_INPUT_MISSING_OR_SPENT` — an input's previous output is unknown or spent in a block (RPC -25);
 * - `BTC_TX_MEMPOOL_CONFLICT` — an input is already spent by a mempool transaction that may not be replaced
 *   (the node runs without full-RBF and that transaction does not signal BIP-125);
 * - `BTC_TX_REPLACEMENT_FEE_TOO_LOW` — a replacement (BIP-125) whose fee rate is not above each directly
 *   replaced transaction's (rule 6), whose fee is below the replaced ones' total (rule 3), or whose extra fee
 *   does not pay the incremental relay fee for its own vsize (rule 4): `insufficient fee`;
 * - `BTC_TX_REPLACEMENT_TOO_MANY` — a replacement that would evict more than 100 transactions (rule 5);
 * - `BTC_TX_REPLACEMENT_ADDS_UNCONFIRMED` — a replacement spending an unconfirmed output that none of the
 *   replaced transactions spent (rule 2);
 * - `BTC_TX_SPENDS_CONFLICTING` — a transaction spending an output of a transaction it would replace;
 * - `BTC_TX_IN_BELOW_OUT` — outputs add up to more than inputs;
 * - `BTC_TX_FEE_TOO_LOW` — the fee is under the minimum relay fee rate;
 * - `BTC_TX_UNSUPPORTED_INPUT` — an input spends a script type the sandbox does not verify (only P2WPKH and
 *   P2TR key path are);
 * - `BTC_TX_BAD_WITNESS` — the witness or scriptSig has the wrong shape for the script it spends;
 * - `BTC_TX_BAD_SIGNATURE_ENCODING` — a signature or public key is badly encoded (DER, high S, size,
 *   sighash type, uncompressed key);
 * - `BTC_TX_PUBKEY_MISMATCH` — a P2WPKH witness public key does not hash to the output's program;
 * - `BTC_TX_BAD_SIGNATURE` — a signature does not verify against its prevout.
 */
export type BitcoinTxRejectCode =
  | 'BTC_TX_DECODE_FAILED'
  | 'BTC_TX_ALREADY_CONFIRMED'
  | 'BTC_TX_COINBASE'
  | 'BTC_TX_EMPTY'
  | 'BTC_TX_INPUTS_DUPLICATE'
  | 'BTC_TX_OUTPUT_VALUE'
  | 'BTC_TX_VERSION'
  | 'BTC_TX_NONSTANDARD_OUTPUT'
  | 'BTC_TX_MULTI_OP_RETURN'
  | 'BTC_TX_DUST'
  | 'BTC_TX_NON_FINAL'
  | 'BTC_TX_INPUT_MISSING_OR_SPENT'
  | 'BTC_TX_MEMPOOL_CONFLICT'
  | 'BTC_TX_REPLACEMENT_FEE_TOO_LOW'
  | 'BTC_TX_REPLACEMENT_TOO_MANY'
  | 'BTC_TX_REPLACEMENT_ADDS_UNCONFIRMED'
  | 'BTC_TX_SPENDS_CONFLICTING'
  | 'BTC_TX_IN_BELOW_OUT'
  | 'BTC_TX_FEE_TOO_LOW'
  | 'BTC_TX_UNSUPPORTED_INPUT'
  | 'BTC_TX_BAD_WITNESS'
  | 'BTC_TX_BAD_SIGNATURE_ENCODING'
  | 'BTC_TX_PUBKEY_MISMATCH'
  | 'BTC_TX_BAD_SIGNATURE';

/** bitcoind RPC error codes relayed by Esplora: -22 deserialization, -25 missing inputs, -26 rejected, -27 known. */
export type BitcoinRpcCode = -22 | -25 | -26 | -27;

/** Details of a rejection: the bitcoind reject reason, its RPC code, and the offending input or output. */
export interface BitcoinRejectDetails {
  /** bitcoind's reject reason text, e.g. `bad-txns-inputs-missingorspent`. */
  reason: string;
  /** RPC code; default -26 (`RPC_VERIFY_REJECTED`). */
  rpcCode?: BitcoinRpcCode;
  /** Index of the input the reason is about. */
  inputIndex?: number;
  /** Index of the output the reason is about. */
  outputIndex?: number;
}

/**
 * A transaction the node refused. `code` is stable; `reason` and `rpcCode` are what bitcoind would answer;
 * `message` adds the input/output index and a hint.
 */
export class BitcoinTxRejectedError extends BallastError {
  readonly code: BitcoinTxRejectCode;
  readonly reason: string;
  readonly rpcCode: BitcoinRpcCode;
  readonly inputIndex: number | undefined;
  readonly outputIndex: number | undefined;

  constructor(code: BitcoinTxRejectCode, details: BitcoinRejectDetails, hint?: string, options?: { cause?: unknown }) {
    const where =
      details.inputIndex !== undefined
        ? ` (input ${details.inputIndex})`
        : details.outputIndex !== undefined
          ? ` (output ${details.outputIndex})`
          : '';
    super(`transaction rejected: ${details.reason}${where}${hint ? `; ${hint}` : ''}`, options);
    this.code = code;
    this.reason = details.reason;
    this.rpcCode = details.rpcCode ?? -26;
    this.inputIndex = details.inputIndex;
    this.outputIndex = details.outputIndex;
  }

  /** The text Esplora answers with status 400: `sendrawtransaction RPC error: {"code":-26,"message":"…"}`. */
  toEsploraText(): string {
    return `sendrawtransaction RPC error: ${JSON.stringify({ code: this.rpcCode, message: this.reason })}`;
  }
}

/** Stable codes of {@link BitcoinNodeError}. */
export type BitcoinNodeErrorCode =
  'BTC_NODE_BAD_ADDRESS' | 'BTC_NODE_BAD_AMOUNT' | 'BTC_NODE_NO_BLOCK_TO_INVALIDATE' | 'BTC_NODE_NOT_IN_MEMPOOL';

/**
 * A misuse of the node's in-process API: an address that is not Bitcoin (`BTC_NODE_BAD_ADDRESS`), a faucet
 * amount out of range (`BTC_NODE_BAD_AMOUNT`), `invalidateTip()` at genesis (`BTC_NODE_NO_BLOCK_TO_INVALIDATE`),
 * evicting a transaction that is not in the mempool (`BTC_NODE_NOT_IN_MEMPOOL`).
 */
export class BitcoinNodeError extends BallastError {
  readonly code: BitcoinNodeErrorCode;
  constructor(code: BitcoinNodeErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
