/**
 * An abortable delay for the sandbox's waits: the solver's polling and fill delays, webhook retries.
 */

/**
 * Resolves after `ms` milliseconds, or at once when `signal` aborts (never rejects).
 *
 * @param ms delay in milliseconds
 * @param signal aborting it cuts the wait short
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
