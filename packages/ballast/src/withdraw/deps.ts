/**
 * What the withdrawal flow works with: the store, the Relay withdrawal calls, the owner's chain adapter (which
 * alone signs and talks to the node), the withdrawal chain's depository from GET /chains, the `withdrawals:`
 * settings, a clock and a sleep. Built by src/withdraw/recover.ts from the cycle context; tests build it directly.
 */
import type { Logger } from 'pino';
import type { ChainAdapter } from '../chains/adapter.ts';
import type { WithdrawalsConfig } from '../config/withdrawalsSchema.ts';
import type { NotifyConfig } from '../config/notifySchema.ts';
import type { BallastMetrics } from '../metrics/metrics.ts';
import type { RelayWithdrawalApi } from '../relay/withdrawalApi.ts';
import type { StoreDb } from '../store/db.ts';

/** Step boundaries at which a process death must be survivable (each right after a write). */
export const WITHDRAWAL_CHECKPOINTS = ['created', 'attested', 'signed', 'job', 'tx-written', 'tx-sent', 'completed'] as const;
/** One step boundary. */
export type WithdrawalCheckpoint = (typeof WITHDRAWAL_CHECKPOINTS)[number];

/** Everything one withdrawal needs. Times in ms. */
export interface WithdrawalDeps {
  db: StoreDb;
  relay: RelayWithdrawalApi;
  /** The adapter of the deposit chain (the owner signs there and the ready transaction is sent there). */
  adapter: ChainAdapter;
  /** The withdrawal chain's depository, `protocol.v2.depository` of GET /chains; undefined when unlisted. */
  depository: string | undefined;
  config: WithdrawalsConfig;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  logger: Logger;
  metrics?: Pick<BallastMetrics, 'withdrawalsTotal' | 'withdrawalRestartsTotal'>;
  /** The `notify:` section: an ended withdrawal is reported there (src/notify/notify.ts); absent = off. */
  notifyConfig?: NotifyConfig | undefined;
  /** Ends waiting at the next step (shutdown, a lost run lock): the withdrawal is left as written, resumed later. */
  signal?: AbortSignal;
  /** Called after each write (fault injection in tests: a throw here plays a process death at that boundary). */
  checkpoint?: (step: WithdrawalCheckpoint) => void;
}
