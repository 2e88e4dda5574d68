/**
 * Base of every Ballast error family (conventions "Errors": one class per failure family with a stable `code`,
 * a message naming the field and the fix, the cause attached). The class name becomes `error.name`.
 */
export abstract class BallastError extends Error {
  /** Stable machine-readable code, e.g. `CONFIG_INVALID` (docs/errors.md). */
  abstract readonly code: string;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}
