/**
 * What the solver does on one chain, whatever its VM: pay a fill to a recipient (destination chain), return a
 * deposit (origin chain, refunds), and wait for the outcome of what it sent. One implementation per VM:
 * `evmLeg.ts`, `svmLeg.ts`, `bvmLeg.ts`.
 */
import type { ObservedDeposit, OutTx } from '../api/requestStore.ts';
import type { SandboxVmCurrency } from '../quote/vmChains.ts';

/** The solver's actions on one chain. Amounts in base units; addresses in the chain's own form. */
export interface SolverLeg {
  /**
   * Sends `amount` of `currency` to `to` (a fill).
   *
   * @returns the sent transaction's record (kind `fill`; outcome fields null until {@link settle})
   * @throws when it cannot be sent (nothing left the solver's wallet)
   */
  pay(to: string, currency: SandboxVmCurrency, amount: bigint): Promise<OutTx>;
  /**
   * Returns a deposit on its chain to `to` (a refund).
   *
   * @returns the sent transaction's record (kind `refund`)
   * @throws when it cannot be sent
   */
  refund(deposit: ObservedDeposit, to: string): Promise<OutTx>;
  /**
   * Waits for a sent transaction's outcome (only a final outcome decides the request's fate).
   *
   * @returns the record completed with block, time, fee and status, or null when the solver stops first
   */
  settle(sent: OutTx): Promise<OutTx | null>;
}
