/**
 * Per-key serial execution: tasks with the same key run one after another, in submission order. The solver
 * keys its sends by chain id so two transactions from the solver wallet never race for the same nonce.
 */

/** Runs async tasks serially per key. */
export class SerialQueue {
  readonly #tails = new Map<string | number, Promise<unknown>>();

  /**
   * Runs `task` after every earlier task of the same key has settled.
   *
   * @returns the task's result; a failing task rejects only its own promise, later tasks still run
   */
  run<T>(key: string | number, task: () => Promise<T>): Promise<T> {
    const tail = this.#tails.get(key) ?? Promise.resolve();
    const result = tail.then(task, task);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, settled);
    void settled.then(() => {
      if (this.#tails.get(key) === settled) this.#tails.delete(key);
    });
    return result;
  }
}
