/**
 * Lookups that tell "the node does not know it" apart from "the node could not answer".
 */
import { BlockNotFoundError, TransactionNotFoundError, TransactionReceiptNotFoundError } from 'viem';

/**
 * Awaits a transaction, receipt or block lookup; viem's not-found answers (`TransactionNotFoundError`,
 * `TransactionReceiptNotFoundError`, `BlockNotFoundError`) become null.
 *
 * @throws every other error (timeouts, "transaction indexing is in progress", 5xx): an RPC error is never read
 *   as "not found"
 */
export async function orNullIfNotFound<T>(lookup: Promise<T>): Promise<T | null> {
  try {
    return await lookup;
  } catch (error) {
    if (
      error instanceof TransactionReceiptNotFoundError ||
      error instanceof TransactionNotFoundError ||
      error instanceof BlockNotFoundError
    )
      return null;
    throw error;
  }
}
