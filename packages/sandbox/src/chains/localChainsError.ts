/** Error family of the sandbox's local chains (start-up, deployment, funding). */
import { BallastError } from '@ballast/protocol/core/errors.ts';

/** Stable codes of {@link LocalChainsError}. */
export type LocalChainsErrorCode = 'LOCAL_CHAINS_BAD_OPTIONS' | 'LOCAL_CHAINS_BAD_PRESET' | 'LOCAL_CHAIN_SETUP_FAILED';

/**
 * Raised by `startLocalChains` when its options are invalid (duplicate slug or chain id, preset naming an
 * unknown chain or role, malformed amount) or a chain cannot be set up. `code` is stable.
 */
export class LocalChainsError extends BallastError {
  readonly code: LocalChainsErrorCode;
  constructor(code: LocalChainsErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
