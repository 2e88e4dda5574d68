/**
 * How much of a deposit a withdrawal has brought back and how much is still open. Pure; amounts are bigint base
 * units (wei, lamports, token units).
 *
 * The service's prepare answers the amount a job will pay (docs/relay-contract.md "Withdrawal endpoints": "at execute use
 * the amount returned by prepare"), and nothing in docs/relay-contract.md promises it equals the amount asked. A job that
 * executed for less than what was still open leaves the rest in the hub balance: the withdrawal records what came back
 * (`received_amount`, migration 9), stays open for the remainder, and its transfer becomes `withdrawn` only once
 * the whole deposit is back (src/store/withdrawals.ts, src/withdraw/advance.ts).
 */

/** What one executed job leaves: the total received so far and what is still open. */
export interface JobSettlement {
  /** Base units returned by every executed job of the withdrawal, this one included. */
  received: bigint;
  /** Base units of the deposit still in the hub (0 when everything came back). */
  remainder: bigint;
}

/**
 * The part of the deposit still to withdraw: `amount - received`, never below 0 (a service that paid more than
 * the deposit leaves nothing open).
 *
 * @param amount the deposit, base units
 * @param received what executed jobs returned so far, base units
 * @throws RangeError when either is negative (a corrupt row)
 */
export function remainingToWithdraw(amount: bigint, received: bigint): bigint {
  if (amount < 0n || received < 0n)
    throw new RangeError(`withdrawal amounts must be >= 0 base units (amount ${amount}, received ${received})`);
  return amount > received ? amount - received : 0n;
}

/**
 * Settles one executed job against the deposit.
 *
 * @param amount the deposit, base units
 * @param receivedBefore what earlier executed jobs of this withdrawal returned, base units
 * @param jobAmount what this job paid (the amount prepare offered and the owner signed); null when unknown (a job
 *   adopted from a 409 after a crash, whose prepare answer was never written): it is taken to pay everything still
 *   open, as the only job the service let run for this deposit
 * @returns the new total received and the remainder still open
 * @throws RangeError on negative amounts
 */
export function settleJob(amount: bigint, receivedBefore: bigint, jobAmount: bigint | null): JobSettlement {
  const open = remainingToWithdraw(amount, receivedBefore);
  if (jobAmount !== null && jobAmount < 0n) throw new RangeError(`a withdrawal job cannot pay ${jobAmount} base units`);
  const paid = jobAmount ?? open;
  const received = receivedBefore + paid;
  return { received, remainder: remainingToWithdraw(amount, received) };
}

/**
 * The remainder an operator must know about: what is still open of a withdrawal that has brought part of the
 * deposit back but not all of it (0 when nothing came back yet, or everything did).
 *
 * @param w the withdrawal's deposit amount, received total and state
 */
export function openRemainder(w: { amount: bigint; receivedAmount: bigint; state: string }): bigint {
  if (w.state === 'executed' || w.receivedAmount === 0n) return 0n;
  return remainingToWithdraw(w.amount, w.receivedAmount);
}

/**
 * The withdrawal's network fee total once one more ready transaction of ours was mined.
 *
 * @param total the fees recorded so far, base units; null when one is not known
 * @param fee the mined transaction's fee, base units; null when it could not be read (the total becomes unknown)
 * @returns the new total, or null when not known
 * @throws RangeError when `fee` is negative
 */
export function addNetworkFee(total: bigint | null, fee: bigint | null): bigint | null {
  if (fee !== null && fee < 0n) throw new RangeError(`a network fee cannot be ${fee} base units`);
  return total === null || fee === null ? null : total + fee;
}
