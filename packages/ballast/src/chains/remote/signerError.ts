/**
 * Errors of a key service that signs for a wallet whose key is not on the host (docs/keys.md): unreachable or
 * slow, refusing by its own policy, answering with a signature that does not verify, or holding another key than
 * the configured address.
 */
import { BallastError } from '@ballast/protocol/core/errors.ts';

/** Codes of {@link SignerError} (docs/errors.md). */
export type SignerErrorCode =
  | 'SIGNER_UNAVAILABLE' // timed out, unreachable, or a server error after retries: nothing was signed
  | 'SIGNER_REFUSED' // the key service's own policy refused (final for the attempt)
  | 'SIGNER_BAD_SIGNATURE' // the signature returned does not verify against the key: nothing is stored or sent
  | 'SIGNER_KEY_MISMATCH' // the service's public key is not the configured address
  | 'SIGNER_UNSUPPORTED'; // the key's type cannot sign what this wallet needs

/**
 * A key service failed to give a usable signature. `wallet` and `kind` name the signer; `detail` is what
 * happened, and the message is `signer <kind> of wallet <wallet>: <detail>`.
 */
export class SignerError extends BallastError {
  constructor(
    readonly code: SignerErrorCode,
    readonly wallet: string,
    readonly kind: string,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(`signer ${kind} of wallet ${wallet}: ${detail}`, options);
  }
}

/** What a signer reports for each request: its outcome and how long it took (for the signer metrics). */
export type SignerOutcome = 'ok' | 'refused' | 'unavailable' | 'bad_signature';

/** Receives each request's outcome; set by the app wiring (src/app/) to feed the metrics. */
export type SignerObserver = (event: { wallet: string; kind: string; outcome: SignerOutcome; seconds: number }) => void;

/** Outcome of a {@link SignerError} code, for the metrics. */
export function outcomeOf(error: unknown): SignerOutcome {
  if (!(error instanceof SignerError)) return 'unavailable';
  if (error.code === 'SIGNER_REFUSED') return 'refused';
  if (error.code === 'SIGNER_BAD_SIGNATURE') return 'bad_signature';
  return 'unavailable';
}
