/**
 * What one step of the withdrawal flow decided (src/withdraw/advance.ts runs the steps in a loop):
 * - `now`: the state changed; take the next step at once;
 * - `poll`: the job is under way (or the service asked to slow down); wait `ms`, then look again;
 * - `transient`: a call failed in a way that may pass (503, 5xx, network, no receipt yet); wait
 *   `withdrawals.pollMs` and try again, at most `withdrawals.transientRetries` times in a row in one pass;
 * - `stop`: nothing more to do in this pass (the next pass resumes from the stored state);
 * - `fail`: give up with a recorded reason (`refused` by Ballast's own checks, or `failed`);
 * - `complete`: the funds are back (`detail` says what proves it; `readyTxFee` the network fee of our mined ready
 *   transaction that brought them, base units, null when unreadable, absent when the service executed the job).
 */
export type Step =
  | { next: 'now' }
  | { next: 'poll'; ms: number }
  | { next: 'transient'; why: string }
  | { next: 'stop'; why: string }
  | { next: 'fail'; reason: string; outcome: 'failed' | 'refused' }
  | { next: 'complete'; detail: string; readyTxFee?: bigint | null };
