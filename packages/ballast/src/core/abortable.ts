/**
 * Waiting on a promise no longer than an AbortSignal allows (DOM `AbortSignal`, as Node implements it).
 */

/** What {@link raceAbort} resolves with when the signal wins. */
export const ABORTED: unique symbol = Symbol('aborted');

/**
 * Resolves with `promise`'s value, or with {@link ABORTED} as soon as `signal` aborts (at once when it already
 * has). The promise itself is not cancelled: pass the same signal to the work so it stops too. Its listener on
 * `signal` is removed either way.
 *
 * @throws whatever `promise` rejects with, when it settles first
 */
export async function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) return ABORTED;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<typeof ABORTED>((resolve) => {
    onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort!); // assigned synchronously by the Promise executor
  }
}
