/**
 * One-line error text safe for logs, rows and CLI output. viem errors carry a `shortMessage` without the
 * request details (RPC URLs can hold provider API keys in their path); other errors give their first line.
 */

/** Most characters of a node's own error text kept in a one-line message. */
export const MAX_DETAILS = 200;

/** First line of a node's error text, URLs cut out (a provider's key may sit in its URL), bounded. */
function nodeWords(details: string): string {
  const line = (details.split('\n')[0] ?? '').replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>').trim();
  return line.length > MAX_DETAILS ? `${line.slice(0, MAX_DETAILS)}…` : line;
}

/**
 * @param error anything thrown
 * @returns viem's `shortMessage` when present, followed by the node's own words (`details`, the JSON-RPC error
 *   message such as "already known" or "nonce too low") when they add something, with any URL in them removed
 *   and at most {@link MAX_DETAILS} characters kept; else the first line of `message`; else `String(error)`
 */
export function shortErrorMessage(error: unknown): string {
  if (error && typeof error === 'object' && 'shortMessage' in error && typeof error.shortMessage === 'string') {
    const details = 'details' in error && typeof error.details === 'string' ? nodeWords(error.details) : '';
    return details !== '' && !error.shortMessage.includes(details) ? `${error.shortMessage} (${details})` : error.shortMessage;
  }
  if (error instanceof Error) return error.message.split('\n')[0] ?? error.name;
  return String(error);
}
