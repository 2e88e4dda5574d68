/**
 * Replays of Solana schedules for the model (moneyPath.svm.property.test.ts). Each runs one fixed schedule
 * through the same harness and invariants and must pass; each also checks that its faults still land where
 * they were aimed and how the transfers ended, so a replay never passes without reproducing its situation.
 * They pin the Solana proofs: a transaction is dropped only once its blockhash expired at the finalized block
 * height and a node at least that far along still does not know it, and a transfer is failed only once no
 * deposit for its order is found on chain (a node that forgets a landed signature must not cost a second
 * payment).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelEnv } from '../harness.ts';
import { createSolModelEnv, runSolSchedule } from './solHarness.ts';
import type { SolSchedule } from './solSchedule.ts';

let env: ModelEnv;

beforeAll(() => {
  env = createSolModelEnv(process.env.BALLAST_MODEL_LOG ?? 'silent');
});
afterAll(() => env.close());

/** One need of 20 000.123456 USDC and no faults but those given. */
function oneNeed(faults: Partial<SolSchedule>): SolSchedule {
  return { need: 20_000_123_456n, gapsMs: [20_000], rpcFaults: [], sendFaults: [], relayFaults: [], fills: [], crashes: [], ...faults };
}

/** Runs a replay; its faults must still hit the calls named in `expected` (journal lines, in any order). */
async function replay(schedule: SolSchedule, expected: RegExp[]) {
  const outcome = await runSolSchedule(env, schedule);
  for (const line of expected)
    expect(
      outcome.injected.some((i) => line.test(i)),
      `fault ${line} injected: ${outcome.injected.join(' | ')}`,
    ).toBe(true);
  expect(outcome.unknownMethods).toEqual([]);
  return outcome;
}

describe('Solana money-path replays', () => {
  it('a deposit without faults is filled and the treasury ends in band', async () => {
    const outcome = await replay(oneNeed({}), []);
    expect(outcome.statuses).toEqual({ success: 1 });
  });

  it('a landed deposit the node forgets after its blockhash expired is found on chain, not failed and paid again', async () => {
    // The send lands 60 slots late, after the executor's wait; the next cycle comes after the blockhash expired
    // and the node answers null for the signature on four status reads: the lookup proves "dropped", and
    // reconciliation must find the deposit by the wallet's signatures before failing anything.
    const outcome = await replay(
      oneNeed({
        gapsMs: [20_000, 180_000],
        sendFaults: [{ at: 0, fault: { kind: 'slow', slots: 60 } }],
        rpcFaults: [{ at: 1, method: 'getSignatureStatuses', fault: { kind: 'forget', reads: 4 } }],
      }),
      [/^send #0: \{"kind":"slow"/, /getSignatureStatuses \(#1 of it\): \{"kind":"forget"/],
    );
    expect(outcome.statuses).toEqual({ success: 1 });
  });

  it('a send that outlives its blockhash is proven dropped, failed once, and the need paid exactly once again', async () => {
    const outcome = await replay(
      oneNeed({ gapsMs: [20_000, 180_000, 180_000], sendFaults: [{ at: 0, fault: { kind: 'slow', slots: 400 } }] }),
      [/^send #0: \{"kind":"slow","slots":400\}$/],
    );
    expect(outcome.statuses).toEqual({ origin_failed: 1, success: 1 });
  });

  it('a send outliving a stale blockhash is not proven dropped by a lagging node, only by a current one, and is paid once', async () => {
    // The blockhash is handed out 110 slots old (8 slots left after the send), the send would land 60 slots
    // later: it never lands. The next cycle's first two status reads come from a node 200 slots behind, whose
    // "unknown" proves nothing; a later cycle's current node proves the expiry, the transfer fails once and the
    // need is paid by one new deposit.
    const outcome = await replay(
      oneNeed({
        gapsMs: [20_000, 60_000, 180_000],
        sendFaults: [{ at: 0, fault: { kind: 'slow', slots: 60 } }],
        rpcFaults: [
          { at: 0, method: 'getLatestBlockhash', fault: { kind: 'staleBlockhash', ageSlots: 110 } },
          { at: 1, method: 'getSignatureStatuses', fault: { kind: 'lag', slots: 200 } },
          { at: 2, method: 'getSignatureStatuses', fault: { kind: 'lag', slots: 200 } },
        ],
      }),
      [
        /getLatestBlockhash \(#0 of it\): \{"kind":"staleBlockhash"/,
        /getSignatureStatuses \(#1 of it\): \{"kind":"lag"/,
        /getSignatureStatuses \(#2 of it\): \{"kind":"lag"/,
      ],
    );
    expect(outcome.statuses).toEqual({ origin_failed: 1, success: 1 });
  });

  it('a simulation answered by a node behind the blockhash refuses before signing: nothing signed can land, the need is paid once', async () => {
    // Seed 223742542, shrunk. The fifth JSON-RPC call, the simulation of the deposit, is answered by a node 32
    // slots behind, below the slot the blockhash was read at. When the signed deposit was simulated, that node
    // answered BlockhashNotFound, read as "not sent": transfer #1 failed while its signed deposit could still land
    // (any node that saw it may forward it), and #2 paid the need again. Simulated unsigned, with the blockhash's
    // slot as minContextSlot, the node refuses to answer (-32016): nothing is signed, the attempt fails at no
    // cost, and the next cycle pays the need once.
    const outcome = await replay(
      oneNeed({ need: 15_001_123_456n, gapsMs: [20_000, 20_000], rpcFaults: [{ at: 4, fault: { kind: 'lag', slots: 32 } }] }),
      [/^rpc #4 simulateTransaction \(#0 of it\): \{"kind":"lag","slots":32\}$/],
    );
    expect(outcome.statuses).toEqual({ origin_failed: 1, success: 1 });
  });

  it('a refund and then a slow fill, each as late as the solver plans, are both waited for before the end is judged', async () => {
    // Seed 449390578, shrunk. The first quote is lost to a crash; the next order is refunded 400 s after its
    // deposit, the need is paid again, and that order is filled 400 s after its deposit. The end must be judged
    // once the solver has had the time its plans take (the deposit then filled, the treasury in band), not while
    // the second transfer is still, rightly, waiting for its fill.
    const outcome = await replay(
      oneNeed({
        need: 15_001_123_456n,
        crashes: [4],
        fills: [
          { outcome: 'success', payMinimum: false, delayMs: 0, indexDelayMs: 0 },
          { outcome: 'refund', payMinimum: false, delayMs: 400_000, indexDelayMs: 0 },
          { outcome: 'success', payMinimum: false, delayMs: 400_000, indexDelayMs: 0 },
        ],
      }),
      [/^crash at quote:recorded #1 \(pass 4\)$/],
    );
    expect(outcome.orders).toBe(3);
    expect(outcome.statuses).toEqual({ refund: 1, success: 1 });
  });

  it('a deposit written ahead whose send was lost and whose process died is sent again from the record', async () => {
    const outcome = await replay(
      oneNeed({ gapsMs: [20_000, 20_000], sendFaults: [{ at: 0, fault: { kind: 'lost' } }], crashAt: [{ point: 'tx:written', hit: 1 }] }),
      [/^crash at tx:written #1 /],
    );
    expect(outcome.statuses.success).toBe(1);
  });
});
