/**
 * Net-flow estimator of one holding (pure): how fast outside traffic (payments, users, fees) moves its balance,
 * smoothed exponentially, for the planner's flow-aware strategy (docs/design.md "Flow-aware strategy").
 *
 * Each observation is a balance read at a moment, with the part of the change since the previous observation that
 * Ballast caused itself (its own transfers in and out): that part is not flow, so a rebalance never looks like
 * traffic. Amounts stay bigint base units; only the smoothing factor is computed in floating point, then rounded to
 * parts per million, so the result is an exact integer function of the inputs.
 */

/** Fixed-point scale of the smoothed rate kept between observations (rate × 10^6), so slow flows are not lost. */
export const FLOW_RATE_SCALE = 1_000_000n;

/** One balance observation of a holding. */
export interface FlowObservation {
  /** When the balance was read, Unix milliseconds. */
  at: number;
  /** The balance read, base units. */
  balance: bigint;
  /**
   * Base units Ballast itself moved into (+) or out of (−) the holding since the previous observation: its settled
   * transfers and sweeps, net. Subtracted from the balance change so rebalances do not count as flow. Absent: 0.
   */
  own?: bigint;
}

/** Running state of the estimator after some observations. */
export interface FlowState {
  /** Time of the last observation, Unix milliseconds. */
  at: number;
  /** Balance at the last observation, base units. */
  balance: bigint;
  /** Smoothed net flow, base units per second × {@link FLOW_RATE_SCALE}; + inflow, − outflow. */
  rateScaled: bigint;
  /** Intervals observed (observations − 1): 0 until a second observation gives a first rate. */
  samples: number;
}

/** The estimate the planner reads: smoothed net flow and how many intervals it rests on. */
export interface FlowSignal {
  /** Smoothed net flow, base units per second (truncated toward zero); + inflow, − outflow. */
  netFlowPerSec: bigint;
  /** Intervals observed; a small count means a cold start (the planner then ignores the signal). */
  samples: number;
}

/**
 * Weight kept by the old rate after `dtMs`, parts per million: round(10^6 × 2^(−dt / halfLife)). A gap of one
 * half-life keeps 500000 ppm, two keep 250000.
 *
 * @throws RangeError when `halfLifeSec` is not a positive finite number or `dtMs` is negative
 */
export function decayPpm(dtMs: number, halfLifeSec: number): bigint {
  if (!(halfLifeSec > 0) || !Number.isFinite(halfLifeSec)) throw new RangeError(`halfLifeSec must be > 0, got ${halfLifeSec}`);
  if (!(dtMs >= 0)) throw new RangeError(`time between observations must be >= 0 ms, got ${dtMs}`);
  return BigInt(Math.round(1_000_000 * 2 ** (-dtMs / (halfLifeSec * 1000))));
}

/**
 * Folds one observation into the state.
 *
 * - No state: the observation starts one (rate 0, samples 0).
 * - An observation not later than the state's is ignored (same state returned): reads are idempotent.
 * - Otherwise the interval's rate is r = (Δbalance − own) × 1000 / dtMs base units per second (at the fixed-point
 *   scale, truncated toward zero). The first interval takes r as is; later ones blend it:
 *   rate' = (rate × d + r × (10^6 − d)) / 10^6 with d = {@link decayPpm}(dtMs, halfLifeSec).
 *
 * @throws RangeError on a non-positive half-life
 */
export function stepFlow(state: FlowState | undefined, obs: FlowObservation, halfLifeSec: number): FlowState {
  decayPpm(0, halfLifeSec); // validates the half-life even before a second observation needs it
  if (state === undefined) return { at: obs.at, balance: obs.balance, rateScaled: 0n, samples: 0 };
  const dtMs = obs.at - state.at;
  if (!(dtMs > 0)) return state;
  const flow = obs.balance - state.balance - (obs.own ?? 0n);
  const instant = (flow * 1000n * FLOW_RATE_SCALE) / BigInt(dtMs);
  const rateScaled =
    state.samples === 0
      ? instant
      : (() => {
          const d = decayPpm(dtMs, halfLifeSec);
          return (state.rateScaled * d + instant * (1_000_000n - d)) / 1_000_000n;
        })();
  return { at: obs.at, balance: obs.balance, rateScaled, samples: state.samples + 1 };
}

/**
 * Smoothed net flow of a holding from its observations (any order; sorted by time first, ties keep the first).
 *
 * @param observations the holding's observations; none or one give a zero rate with 0 samples
 * @param halfLifeSec seconds after which an interval's rate weighs half as much (`policy.strategy.<asset>.halfLifeSec`)
 * @returns the signal and the final state (to continue from without replaying the history)
 * @throws RangeError on a non-positive half-life
 */
export function estimateFlow(
  observations: readonly FlowObservation[],
  halfLifeSec: number,
): { signal: FlowSignal; state: FlowState | undefined } {
  const sorted = [...observations].sort((a, b) => a.at - b.at);
  let state: FlowState | undefined;
  for (const o of sorted) state = stepFlow(state, o, halfLifeSec);
  return { signal: signalOf(state), state };
}

/** The planner-facing signal of a state (absent state: zero flow, 0 samples). */
export function signalOf(state: FlowState | undefined): FlowSignal {
  if (state === undefined) return { netFlowPerSec: 0n, samples: 0 };
  return { netFlowPerSec: state.rateScaled / FLOW_RATE_SCALE, samples: state.samples };
}
