/**
 * The fault knobs in force in a running sandbox, with the counters that burst faults consume
 * (`httpErrors.count`, `tamperCount`).
 */
import { DEFAULT_SANDBOX_FAULTS, mergeFaults, type AnyTamperKind, type SandboxFaults } from '../faults.ts';

/** Mutable holder of the sandbox's faults. */
export class FaultState {
  #faults: SandboxFaults;

  constructor(initial: Partial<SandboxFaults> = {}) {
    this.#faults = mergeFaults(DEFAULT_SANDBOX_FAULTS, initial);
  }

  /** A snapshot of the faults in force. */
  get(): SandboxFaults {
    return structuredClone(this.#faults);
  }

  /** Applies a partial patch (see `mergeFaults`) and returns the result. */
  set(patch: Partial<SandboxFaults>): SandboxFaults {
    this.#faults = mergeFaults(this.#faults, patch);
    return this.get();
  }

  /** Back to {@link DEFAULT_SANDBOX_FAULTS}. */
  reset(): SandboxFaults {
    this.#faults = mergeFaults(DEFAULT_SANDBOX_FAULTS, {});
    return this.get();
  }

  /**
   * Consumes one error of the current HTTP error burst.
   *
   * @returns the status to answer (429 or 503), or null when no burst is left
   */
  takeHttpError(): 429 | 503 | null {
    const burst = this.#faults.httpErrors;
    if (!burst || burst.count <= 0) return null;
    const left = burst.count - 1;
    this.#faults.httpErrors = left > 0 ? { status: burst.status, count: left } : null;
    return burst.status;
  }

  /** The tamper to apply to the next served quote, or null. Does not consume it (see {@link tamperApplied}). */
  nextTamper(): AnyTamperKind | null {
    const { tamper, tamperCount } = this.#faults;
    if (!tamper) return null;
    if (tamperCount !== undefined && tamperCount !== null && tamperCount <= 0) return null;
    return tamper;
  }

  /** Counts one tampered quote; clears the tamper when `tamperCount` runs out. */
  tamperApplied(): void {
    const count = this.#faults.tamperCount;
    if (count === undefined || count === null) return;
    const left = count - 1;
    this.#faults.tamperCount = left;
    if (left <= 0) {
      this.#faults.tamper = null;
      this.#faults.tamperCount = null;
    }
  }
}
