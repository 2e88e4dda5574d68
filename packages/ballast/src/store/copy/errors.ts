/**
 * Errors of `ballast store copy` (src/store/copy/copyStore.ts). One class, three codes:
 *
 * - `STORE_COPY_SCHEMA_MISMATCH`: source and target are not at the same, current schema version, or a table
 *   or column differs between them; nothing was copied. Run `ballast migrate` on the side that is behind.
 * - `STORE_COPY_TARGET_NOT_EMPTY`: a table of the target already holds rows (named in the message); nothing was
 *   copied. Copy into a freshly created and migrated database.
 * - `STORE_COPY_MISMATCH`: after copying, a table's row count, maximum id or an amount column's sum differs
 *   between source and target; the target transaction was rolled back, so the target is as empty as before.
 */
import { BallastError } from '@ballast/protocol/core/errors.ts';
import type { TableComparison } from './compare.ts';

/** Codes of {@link StoreCopyError}. */
export type StoreCopyCode = 'STORE_COPY_SCHEMA_MISMATCH' | 'STORE_COPY_TARGET_NOT_EMPTY' | 'STORE_COPY_MISMATCH';

/** A store copy that was refused or rolled back; see the module comment for the codes. */
export class StoreCopyError extends BallastError {
  readonly code: StoreCopyCode;
  /** The per-table comparison, for `STORE_COPY_MISMATCH` (empty otherwise). */
  readonly comparison: readonly TableComparison[];

  constructor(code: StoreCopyCode, message: string, comparison: readonly TableComparison[] = [], options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.comparison = comparison;
  }
}
