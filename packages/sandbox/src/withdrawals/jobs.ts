/**
 * Withdrawal jobs (docs/relay-contract.md "Withdrawal job status"): created by a successful execute with the amount locked
 * in the hub, they move processing → initiating → attesting → ready one step per `stepMs`; `ready` carries the
 * transaction the owner broadcasts; then `executed` (the depository marked the call request used), or
 * `expired` / `failed` (the amount returns to the hub). Types and the pure progress rule.
 */
import type { Address } from 'viem';
import type { HubKey } from './hubLedger.ts';
import type { ReadyTransaction } from './readyTransaction.ts';

/** Statuses a job reports. */
export type WithdrawalJobStatus = 'processing' | 'initiating' | 'attesting' | 'ready' | 'executed' | 'expired' | 'failed';

/** Statuses after which a job never changes. */
export const FINAL_JOB_STATUSES: ReadonlySet<WithdrawalJobStatus> = new Set(['executed', 'expired', 'failed']);

/** How a job ends before `ready`, decided from the faults when it is created (`withdrawalFail`, `withdrawalExpire`). */
export type JobOutcome = 'normal' | 'fail' | 'expire';

/** Where an EVM job's transaction goes: numeric chain id, depository, currency (zero = native), recipient. */
export interface EvmJobTarget {
  chainId: number;
  depository: Address;
  currency: Address;
  recipient: Address;
}

/** One job. Amount in base units; times unix ms. */
export interface WithdrawalJob {
  id: string;
  key: HubKey;
  amount: bigint;
  /** The EVM target, or null for a non-EVM withdrawal chain (no transaction is built for it). */
  evm: EvmJobTarget | null;
  createdAtMs: number;
  outcome: JobOutcome;
  status: WithdrawalJobStatus;
  /** Why it failed (status `failed`). */
  reason?: string;
  /** Set once `ready`: the transaction, its call request id and expiration (unix seconds). */
  ready?: ReadyTransaction & { expirationSec: bigint };
}

/**
 * The status a job has reached by `nowMs` on its way to `ready`: one step per `stepMs` from creation
 * (processing, initiating, attesting), then `due` (time to become ready, or to end per its outcome).
 */
export function progressStatus(createdAtMs: number, nowMs: number, stepMs: number): 'processing' | 'initiating' | 'attesting' | 'due' {
  const step = stepMs <= 0 ? 3 : Math.floor(Math.max(0, nowMs - createdAtMs) / stepMs);
  if (step <= 0) return 'processing';
  if (step === 1) return 'initiating';
  if (step === 2) return 'attesting';
  return 'due';
}

/** The GET /withdrawals/status body of a job: `{status, reason?, transaction?}` (transaction only while `ready`). */
export function jobStatusBody(job: WithdrawalJob) {
  return {
    status: job.status,
    ...(job.reason !== undefined ? { reason: job.reason } : {}),
    ...(job.status === 'ready' && job.ready ? { transaction: job.ready.transaction } : {}),
  };
}
