/**
 * Errors of the sandbox Solana node's own API (`startSolanaNode` and its helpers). JSON-RPC clients never
 * see these: they get JSON-RPC errors (rpcError.ts).
 */
import { BallastError } from '@ballast/protocol/core/errors.ts';

/** Stable codes of {@link SolanaNodeError}. */
export type SolanaNodeErrorCode =
  /** A helper was called with an invalid address, mint or amount. */
  | 'SOLANA_NODE_BAD_ARGUMENT'
  /** A helper's transaction (airdrop, mint, fill) was refused or failed; the message names the error. */
  | 'SOLANA_NODE_TX_FAILED'
  /** The RPC or websocket server could not listen. */
  | 'SOLANA_NODE_LISTEN_FAILED';

/** Raised by the sandbox Solana node's helpers and start-up. `code` is stable. */
export class SolanaNodeError extends BallastError {
  readonly code: SolanaNodeErrorCode;
  constructor(code: SolanaNodeErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
