/**
 * Registers the SIGKILL cases of one non-EVM origin on a sandbox shared by the file (each case with a fresh
 * config and store) and asserts, per case: the killed run died by SIGKILL at its boundary with the store as
 * expected there; every recovery run completed; the need was paid exactly once (one depository payment since
 * the case started, by the one transfer that ended `success`); every other transfer ended `origin_failed`
 * without a payment; nothing is left in flight; the treasury's origin balance moved by exactly what was paid
 * (amount + fees) and the destination received at least the guaranteed minimum. The killed runs are child
 * processes; the recovery runs are too in the first case, and run in the test's process in the others
 * (`RecoveryRuns`, crashCase.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../../packages/sandbox/src/startSandbox.ts';
import { CANCEL_STEP_SUFFIX } from '../../../../packages/ballast/src/store/transferRows.ts';
import { tempDir } from '../../helpers/sandboxBallast.ts';
import { stopChildren } from './cliChild.ts';
import {
  CANCEL_CASE_MIN_MS,
  NEED_OF,
  NON_EVM_STATE_AT_KILL,
  NON_EVM_TARGETS,
  crashNonEvm,
  minerFeeSats,
  solanaPaidLamports,
  type NonEvmOrigin,
} from './nonEvmCrash.ts';

/**
 * Recovery budget from the kill, ms. A `tx:*` case needs one or two runs; `cancel:written` about five (send the
 * replacement, first and second proof of absence, pay again, track), with the second proof at least
 * ABSENCE_RECHECK_MS after the first. A run is a fresh Node process: ~3 s idle, up to ~15 s on a busy machine.
 */
const RECOVERY_BUDGET_MS = 60_000;
const CANCEL_RECOVERY_BUDGET_MS = CANCEL_CASE_MIN_MS + 120_000;
/** Longest a case may take (setup, kill, recovery runs, audit), ms. */
const CASE_TIMEOUT_MS = 240_000;

/** Registers one `it` per target of {@link NON_EVM_TARGETS}[origin] inside a `describe` titled `title`. */
export function describeNonEvmCrashCases(title: string, origin: NonEvmOrigin): void {
  describe(title, () => {
    const tmp = tempDir(`ballast-faults-crash-${origin}-`);
    let sandbox: Sandbox | null = null;

    beforeAll(async () => {
      sandbox = await startSandbox({ solana: true, bitcoin: true, bitcoinBlockMs: 0 }); // the treasury config names both
    }, 120_000);
    afterAll(async () => {
      stopChildren();
      await sandbox?.stop();
      tmp.cleanup();
    });

    for (const [index, target] of NON_EVM_TARGETS[origin].entries()) {
      const cancel = target === 'cancel:written';
      it(
        `SIGKILL at ${target}: the need paid once, the transfer(s) final, the treasury moved by what was paid`,
        async () => {
          const s = sandbox!;
          const budgetMs = cancel ? CANCEL_RECOVERY_BUDGET_MS : RECOVERY_BUDGET_MS;
          const r = await crashNonEvm(s, tmp.dir, origin, target, budgetMs, index === 0 ? 'process' : 'inProcess');
          const tail = (x: { stderr: string }) => x.stderr.slice(-1500);
          for (const run of r.setup) expect(run.code, tail(run)).toBe(0);
          // The run died by SIGKILL at its boundary, so the case cannot pass without the fault.
          expect(r.kill.signal, tail(r.kill)).toBe('SIGKILL');
          expect(r.kill.code).toBeNull();
          expect(r.stateAtKill).toEqual(NON_EVM_STATE_AT_KILL[target]);
          for (const rec of r.recoveries) expect(rec.code, tail(rec)).toBe(0);

          // Exactly one payment into the depository, by the one transfer that ended success; nothing in flight.
          expect(r.inFlight).toEqual([]);
          const paid = r.transfers.filter((t) => t.status === 'success');
          expect(paid).toHaveLength(1);
          const winner = paid[0]!;
          const deposit = winner.txs.at(-1)!;
          expect(r.payments).toEqual([{ txId: deposit.txHash, amount: winner.amountIn }]);
          if (cancel) {
            // Quoted again once the replacement's miner fee was paid: what the planner saw spare, at most the need.
            expect(winner.amountIn).toBeGreaterThan(0n);
            expect(winner.amountIn).toBeLessThanOrEqual(NEED_OF[origin]);
          } else {
            expect(winner.amountIn).toBe(NEED_OF[origin]);
          }
          // Any other transfer never paid: it ended origin_failed and none of its transactions reached the depository.
          const others = r.transfers.filter((t) => t !== winner);
          for (const other of others) {
            expect(other.status).toBe('origin_failed');
            for (const tx of other.txs) expect(r.payments.map((p) => p.txId)).not.toContain(tx.txHash);
          }
          if (cancel) {
            // The lost deposit was ended by its replacement, mined, not by a passed deadline.
            expect(others).toHaveLength(1);
            const [lost] = others;
            expect(lost!.cancels.map((c) => c.stepId)).toEqual([`${lost!.txs[0]!.stepId}${CANCEL_STEP_SUFFIX}`]);
            // Read on chain, not from the store (which may still say `sent` when the run after the restart found
            // the replacement already at the reorg depth): it pays our wallet back, in a block.
            const back = s.bitcoin!.node.listPayments(s.bitcoin!.treasury.address).find((p) => p.txid === lost!.cancels[0]!.txHash);
            expect(back?.blockHeight ?? null).not.toBeNull();
          } else {
            expect(r.transfers.flatMap((t) => t.cancels)).toEqual([]);
          }

          // The treasury paid the amount once, plus the miner or network fees of what landed.
          if (origin === 'bitcoin') {
            const replacementFees = others.flatMap((t) => t.cancels).reduce((sum, c) => sum + minerFeeSats(c), 0n);
            expect(r.fromBefore - r.fromAfter).toBe(winner.amountIn + minerFeeSats(deposit) + replacementFees);
          } else {
            expect(r.fromBefore - r.fromAfter).toBe(winner.amountIn);
            // SOL: exactly what the one deposit took from its fee payer, the treasury (fee, and rent of an account it opened).
            expect(r.lamportsBefore! - r.lamportsAfter!).toBe(await solanaPaidLamports(s, deposit.txHash, s.solana!.treasury.address));
          }
          expect(r.toAfter - r.toBefore).toBeGreaterThanOrEqual(winner.minOut);
          console.log(
            `fault ${origin} ${target.padEnd(20)} payments=${r.payments.length} recoveries=${r.recoveries.length} transfers ${r.transfers
              .map((t) => t.status)
              .reverse()
              .join(', ')}`,
          );
        },
        CASE_TIMEOUT_MS,
      );
    }
  });
}
