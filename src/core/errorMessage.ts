/**
 * One-line error text safe for logs, rows and CLI output. viem errors carry a `shortMessage` without the
 * request details (RPC URLs can hold provider API keys in their path); other errors give their first line.
 */

/**
 * @param error anything thrown
 * @returns viem's `shortMessage` when present, followed by the node's own words (`details`, the JSON-RPC error
 *   message such as "already known" or "nonce too low") when they add something, else the first line of
 *   `message`, else `String(error)`
 */
export function shortErrorMessage(error: unknown): string {
  if (error && typeof error === 'object' && 'shortMessage' in error && typeof error.shortMessage === 'string') {
    const details = 'details' in error && typeof error.details === 'string' ? (error.details.split('\n')[0] ?? '').trim() : '';
    return details !== '' && !error.shortMessage.includes(details) ? `${error.shortMessage} (${details})` : error.shortMessage;
  }
  if (error instanceof Error) return error.message.split('\n')[0] ?? error.name;
  return String(error);
}
