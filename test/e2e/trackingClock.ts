/**
 * A clock for a Ballast on the sandbox that can end a fill's tracking at once. A `run --once` cycle tracks each
 * deposit's fill until `tracking.timeoutSec` has passed on the instance's clock (src/executor/trackRequest.ts),
 * at least 10 s by the config schema; a test about what happens after that timeout (a fill that comes late or never)
 * moves the clock ahead instead of waiting: the tracker's next status read sees its time spent and stops there,
 * leaving the transfer `deposited` exactly as a real timeout does.
 */
import type { RelayClient } from '../../packages/ballast/src/relay/client.ts';

/** See {@link trackingClock}. */
export interface TrackingClock {
  /** The instance's clock, ms since the epoch: wire it as `now` (`ballastOnSandbox`'s `wiring.now`). */
  now(): number;
  /** How far the clock runs ahead of `Date.now()`, ms. */
  readonly aheadMs: number;
  /** Moves the clock `ms` ahead now. */
  advance(ms: number): void;
  /**
   * Right after the next status read through `relay` (a tracker's first poll once the deposit is in), moves the
   * clock `ms` ahead (pass `tracking.timeoutSec * 1000`): that tracker stops after this read. Reads after it are
   * left alone. Returns a promise that settles when the jump has happened.
   */
  timeOutAtNextStatusRead(relay: RelayClient, ms: number): Promise<void>;
}

/** A clock at `Date.now()` until moved; see {@link TrackingClock}. */
export function trackingClock(): TrackingClock {
  let aheadMs = 0;
  return {
    now: () => Date.now() + aheadMs,
    get aheadMs() {
      return aheadMs;
    },
    advance(ms) {
      aheadMs += ms;
    },
    timeOutAtNextStatusRead(relay, ms) {
      return new Promise((resolve) => {
        const real = relay.getStatus;
        const once: RelayClient['getStatus'] = async (...args) => {
          const status = await real.apply(relay, args);
          if (relay.getStatus === once) {
            relay.getStatus = real;
            aheadMs += ms;
            resolve();
          }
          return status;
        };
        relay.getStatus = once;
      });
    },
  };
}
