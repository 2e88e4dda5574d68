/**
 * One-line error text safe for logs, rows and CLI output. viem errors carry a `shortMessage` without the
 * request details (RPC URLs can hold provider API keys in their path); other errors give their first line.
 */

/**
 * @param error anything thrown
 * @returns viem's `shortMessage` when present, else the first line of `message`, else `String(error)`
 */
export function shortErrorMessage(error: unknown): string {
  if (error && typeof error === 'object' && 'shortMessage' in error && typeof error.shortMessage === 'string') {
    return error.shortMessage;
  }
  if (error instanceof Error) return error.message.split('\n')[0] ?? error.name;
  return String(error);
}
