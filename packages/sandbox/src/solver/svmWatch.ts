/**
 * Watches the sandbox Solana node for depository deposits (`listDeposits`, polled) and turns each into an
 * {@link ObservedDeposit}: signature, instruction index, slot, the event's depositor, token (the system program
 * id for SOL), amount and order id.
 */
import type { Logger } from 'pino';
import { SYSTEM_PROGRAM_ID } from '@ballast/protocol/protocol/svmDepository.ts';
import type { ObservedDeposit } from '../api/requestStore.ts';
import type { SvmLandedDeposit } from '../svm/ledger.ts';
import type { SolanaSandboxNode } from '../svm/startSolanaNode.ts';
import { sleep } from './sleep.ts';

/**
 * An observed deposit of a landed depository instruction.
 *
 * @param nowSec the time it was seen, unix seconds (the node does not report a slot's time here)
 */
export function solanaDeposit(chainId: number, d: SvmLandedDeposit, nowSec: number): ObservedDeposit {
  return {
    chainId,
    txHash: d.signature,
    logIndex: d.instructionIndex,
    blockNumber: BigInt(d.slot),
    from: d.event.depositor,
    currency: d.event.token ?? SYSTEM_PROGRAM_ID,
    amount: d.event.amount,
    id: d.event.id,
    blockTimestamp: nowSec,
  };
}

/** Options of {@link watchSolana}. */
export interface WatchSolanaOptions {
  node: SolanaSandboxNode;
  chainId: number;
  /** Deposits landed from this slot on are reported. */
  fromSlot: number;
  signal: AbortSignal;
  pollMs: number;
  nowSec: () => number;
  /** Called once per poll for every deposit from `fromSlot` on (the caller de-duplicates). */
  onDeposit: (deposit: ObservedDeposit) => void;
  log: Logger;
}

/** Polls until `signal` aborts. Never rejects: a failed poll is logged and retried. */
export async function watchSolana(o: WatchSolanaOptions): Promise<void> {
  let from = o.fromSlot;
  while (!o.signal.aborted) {
    try {
      for (const d of o.node.listDeposits(from)) {
        o.onDeposit(solanaDeposit(o.chainId, d, o.nowSec()));
        from = Math.max(from, d.slot);
      }
    } catch (error) {
      o.log.warn({ err: error, chainId: o.chainId }, 'Solana deposit poll failed; retrying');
    }
    await sleep(o.pollMs, o.signal);
  }
}
