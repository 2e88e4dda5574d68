/**
 * Scenario payments as needs (docs/simulate.md "Waiting and announced payments"; docs/needs.md): what a payment
 * system that tells Ballast about its payments does. A payment due from a holding that cannot pay it (its balance is
 * short) is recorded in the run's store as a need on that holding, due at the payment's time, so the real cycle holds
 * it and funds it, as Hyperlane's rebalancer counts the transfers waiting on a chain; a payment announced in advance
 * (`announcedAtMs`) is recorded when it is announced, so the cycle prepares for it. The need is cancelled when its
 * payment is mined (or has failed): the run, not the grace period, closes it.
 *
 * The store is written between cycles ({@link PaymentNeeds.sync} before each one), never while a cycle is running:
 * a cycle reads the open needs once, at its start, beside the balances of the same instant.
 */
import { addNeed, cancelNeed, NeedStoreError } from '../store/needs.ts';
import type { StoreDb } from '../store/db.ts';
import type { SimScenario } from './scenario.ts';

/** The wallet every simulated holding uses (src/sim/config.ts, src/sim/adoptConfig.ts). */
const SIM_WALLET = 'treasury';
/** Largest `policy.needsHorizonSec` and `policy.needsGraceSec` a config takes (src/config/needsSchema.ts). */
const MAX_HORIZON_SEC = 90 * 86_400;
const MAX_GRACE_SEC = 7 * 86_400;

/** Why a payment became a need. */
export type SimNeedCause = 'announced' | 'waiting';

/** A need the run recorded for a payment. Times ms after the start; `amount` base units of the token. */
export interface SimNeed {
  /** The store's id of the need. */
  id: number;
  paymentId: string;
  chain: string;
  amount: bigint;
  /** `announced`: recorded ahead of its time; `waiting`: its holding could not pay it when it was due. */
  cause: SimNeedCause;
  /** The payment's time: the need's due time. */
  dueMs: number;
  recordedAtMs: number;
  /** When the run cancelled it (or the cycle closed it, `lapsed`); null when it was still open at the end. */
  closedAtMs: number | null;
  /**
   * `paid`: its payment was mined; `failed`: the payment failed; `lapsed`: the cycle closed it first, its due time
   * plus `policy.needsGraceSec` passed (an adopted config's own grace can be shorter than the wait); `open`: none of
   * these by the end.
   */
  outcome: 'paid' | 'failed' | 'lapsed' | 'open';
}

/** A payment as {@link PaymentNeeds.sync} sees it at a cycle's start. */
export interface PaymentState {
  id: string;
  chain: string;
  /** Base units of the token. */
  amount: bigint;
  /** When it is due, ms after the start. */
  dueMs: number;
  /** When it is announced, ms after the start; absent: known when due. */
  announcedAtMs?: number;
  /** Its last attempt found the holding short, and it has not been sent since. */
  waiting: boolean;
  /** Sent and mined (at the head the cycle reads). */
  paid: boolean;
  failed: boolean;
}

/**
 * `policy.needsHorizonSec` and `policy.needsGraceSec` for a scenario's simulated time:
 *
 * - horizon: the longest announcement lead (at least 1 s), so an announced need is held from when it is recorded,
 *   and a waiting one (already due) always;
 * - grace: the run's length, last flow plus the drain window plus one polling interval, so the need of a payment
 *   still waiting is held until the run closes it (the payment mined or failed), never closed as lapsed first.
 *
 * Whole seconds, rounded up and kept within the config's bounds.
 */
export function simNeedsPolicy(s: Pick<SimScenario, 'flows' | 'drainMs' | 'pollMs'>): { needsHorizonSec: number; needsGraceSec: number } {
  const lastFlowMs = s.flows.reduce((m, f) => Math.max(m, f.atMs), 0);
  const leadMs = s.flows.reduce((m, f) => (f.announcedAtMs === undefined ? m : Math.max(m, f.atMs - f.announcedAtMs)), 0);
  const sec = (ms: number, max: number) => Math.min(max, Math.max(1, Math.ceil(ms / 1000)));
  return { needsHorizonSec: sec(leadMs, MAX_HORIZON_SEC), needsGraceSec: sec(lastFlowMs + s.drainMs + s.pollMs, MAX_GRACE_SEC) };
}

/** Records and closes the needs of a run's payments. */
export class PaymentNeeds {
  /** Every need recorded, in the order recorded. */
  readonly needs: SimNeed[] = [];
  /** By the payment's index in the scenario's payments. */
  private readonly byPayment = new Map<number, SimNeed>();
  private readonly keys: string[];
  /** Payments to look at in the next sync: waiting or announced, and not yet settled. */
  private readonly watched = new Set<number>();

  /**
   * @param asset the holdings' asset symbol (the scenario's token)
   * @param startMs the simulated clock at the run's start, unix ms
   * @param paymentIds every payment's id, in scenario order: each gets the idempotency key `payment:<id>` (the n-th
   *   repeat of an id `payment:<id>#<n>`, so two payments never share a need)
   */
  constructor(
    private readonly db: StoreDb,
    private readonly asset: string,
    private readonly startMs: number,
    paymentIds: readonly string[],
  ) {
    const seen = new Map<string, number>();
    this.keys = paymentIds.map((id) => {
      const n = seen.get(id) ?? 0;
      seen.set(id, n + 1);
      return n === 0 ? `payment:${id}` : `payment:${id}#${n + 1}`;
    });
  }

  /**
   * Marks a payment to look at in every {@link sync} until it is settled: it was found waiting on its holding, or it
   * is announced (recorded by the first sync at or after its announcement). Safe to call from a world event (nothing
   * is written here).
   *
   * @param index the payment's index in the constructor's ids
   */
  watch(index: number): void {
    this.watched.add(index);
  }

  /**
   * Brings the store in line with the watched payments at `elapsedMs`: records a need for each payment announced by
   * now or waiting on its holding (once: the key is idempotent), and cancels the open need of each payment mined or
   * failed, which is then no longer watched.
   *
   * @param stateOf the state of the payment with this index now
   * @throws on store failures
   */
  async sync(elapsedMs: number, stateOf: (index: number) => PaymentState): Promise<void> {
    const nowMs = this.startMs + elapsedMs;
    for (const i of [...this.watched].sort((x, y) => x - y)) {
      const p = stateOf(i);
      const open = this.byPayment.get(i);
      if (open) {
        if (p.paid || p.failed) {
          await this.close(open, p, nowMs);
          this.watched.delete(i);
        }
        continue;
      }
      if (p.paid || p.failed) {
        this.watched.delete(i);
        continue;
      }
      const announced = p.announcedAtMs !== undefined && elapsedMs >= p.announcedAtMs;
      if (!announced && !p.waiting) continue;
      const { need } = await addNeed(
        this.db,
        {
          idempotencyKey: this.keys[i] ?? `payment:${p.id}`,
          asset: this.asset,
          chain: p.chain,
          wallet: SIM_WALLET,
          amount: p.amount,
          dueAtMs: this.startMs + p.dueMs,
          note: `payment ${p.id}`,
          createdBy: 'simulate',
        },
        nowMs,
      );
      const rec: SimNeed = {
        id: need.id,
        paymentId: p.id,
        chain: p.chain,
        amount: p.amount,
        cause: announced ? 'announced' : 'waiting',
        dueMs: p.dueMs,
        recordedAtMs: elapsedMs,
        closedAtMs: null,
        outcome: 'open',
      };
      this.byPayment.set(i, rec);
      this.needs.push(rec);
    }
  }

  /** Cancels the need of a payment mined or failed; one the cycle closed first (its grace passed) is left `lapsed`. */
  private async close(need: SimNeed, p: PaymentState, nowMs: number): Promise<void> {
    try {
      await cancelNeed(this.db, need.id, nowMs, p.paid ? `simulate (payment ${p.id} paid)` : `simulate (payment ${p.id} failed)`);
      need.closedAtMs = nowMs - this.startMs;
      need.outcome = p.paid ? 'paid' : 'failed';
    } catch (error) {
      if (!(error instanceof NeedStoreError) || error.code !== 'NEED_NOT_OPEN' || error.existing === null) throw error;
      need.closedAtMs = (error.existing.closedAtMs ?? nowMs) - this.startMs;
      need.outcome = 'lapsed';
    }
  }
}
