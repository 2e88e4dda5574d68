/**
 * A gate a test opens: work that calls `wait()` stops there until `open()`; `reached` resolves once the work has
 * arrived at it. For holding real work at a chosen point (a signer, a node's answer) while the test acts.
 */
export interface Gate {
  /** Resolves when the work arrives at the gate. */
  reached: Promise<void>;
  /** Lets the work through. */
  open: () => void;
  /** Called by the work: marks it arrived, then waits for `open()`. */
  wait: () => Promise<void>;
}

/** A closed {@link Gate}. */
export function gate(): Gate {
  let arrived!: () => void;
  let open!: () => void;
  const reached = new Promise<void>((r) => (arrived = r));
  const opened = new Promise<void>((r) => (open = r));
  return { reached, open, wait: async () => (arrived(), await opened) };
}
