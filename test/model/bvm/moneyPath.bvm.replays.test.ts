/**
 * Replays of Bitcoin schedules the model (moneyPath.bvm.property.test.ts) found. Each runs one fixed schedule
 * through the same harness and invariants and must pass; each also checks that its faults still land where
 * they were aimed, so a replay never passes without reproducing its situation.
 *
 * The first two are the double pay the model found when reconciliation still read "unknown to the node and the
 * order deadline has passed" as proof on Bitcoin: an evicted (or never sent) deposit was failed (`origin_failed`)
 * although still valid, the planner paid the need again with other coins, and the old deposit could be mined
 * later from another node's mempool ("the need is paid 2 times", btcInvariants.ts). Now the deposit is replaced
 * by a transaction of ours spending its inputs, and the transfer is failed only once that is mined deep.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelEnv } from '../harness.ts';
import { createBtcModelEnv, runBtcSchedule } from './btcHarness.ts';
import type { BtcSchedule } from './btcSchedule.ts';

let env: ModelEnv;

beforeAll(() => {
  env = createBtcModelEnv(process.env.BALLAST_MODEL_LOG ?? 'silent');
});
afterAll(() => env.close());

/** One need of 1.5 BTC and no faults but those given. */
function oneNeed(faults: Partial<BtcSchedule>): BtcSchedule {
  return {
    need: 150_000_000n,
    gapsMs: [30_000],
    esploraFaults: [],
    broadcastFaults: [],
    reorgs: [],
    relayFaults: [],
    fills: [],
    coinSelection: 'largest',
    crashes: [],
    ...faults,
  };
}

/** Runs a replay; its faults must still hit the calls named in `expected` (journal lines, in any order). */
async function replay(schedule: BtcSchedule, expected: RegExp[]): Promise<void> {
  const outcome = await runBtcSchedule(env, schedule);
  for (const line of expected)
    expect(
      outcome.injected.some((i) => line.test(i)),
      `fault ${line} injected: ${outcome.injected.join(' | ')}`,
    ).toBe(true);
}

describe('Bitcoin money-path replays', () => {
  it('an evicted deposit whose deadline passed is not failed and paid again while it can still be mined elsewhere', async () => {
    // The deposit is taken, then evicted before the next block; another node keeps it and brings it back 25
    // blocks later. The next cycle comes 12 minutes on, past the 10-minute deadline: the node does not know the
    // deposit, its coin is unspent. The Relay picks other coins for the next quote, so both deposits can land.
    await replay(
      oneNeed({
        gapsMs: [30_000, 720_000, 720_000],
        broadcastFaults: [{ at: 0, fault: { kind: 'evict', afterBlocks: 0, backAfterBlocks: 25 } }],
        coinSelection: 'avoidQuoted',
      }),
      [/^broadcast #0: \{"kind":"evict"/],
    );
  });

  it('a deposit written ahead and never sent, whose deadline passed, is not failed while it is still valid', async () => {
    // Found by the property (seed 7): the process dies right after the write-ahead of the deposit; the next
    // cycle comes after the deadline, reconcile fails the transfer and the need is paid with other coins while
    // the signed deposit could still be sent.
    await replay(oneNeed({ coinSelection: 'avoidQuoted', crashAt: [{ point: 'tx:written', hit: 1 }] }), [/^crash at tx:written #1 /]);
  });

  it('a deposit evicted and brought back by another node before its deadline is tracked to its fill', async () => {
    // Evicted before the next block, back one block later: mined before Ballast looks again.
    await replay(
      oneNeed({ gapsMs: [30_000, 300_000], broadcastFaults: [{ at: 0, fault: { kind: 'evict', afterBlocks: 0, backAfterBlocks: 1 } }] }),
      [/^broadcast #0: \{"kind":"evict"/, /^another node brought .* back/],
    );
  });

  it('a lost broadcast is sent again from the write-ahead record, and a lagging Esplora does not fail it', async () => {
    await replay(
      oneNeed({
        gapsMs: [30_000, 120_000, 120_000],
        broadcastFaults: [{ at: 0, fault: { kind: 'lost' } }],
        esploraFaults: [{ at: 0, route: '/tx/:id/status', fault: { kind: 'lag', blocks: 2 } }],
      }),
      [/^broadcast #0: \{"kind":"lost"\}$/, /\/tx\/:id\/status \(#0 of it\): \{"kind":"lag"/],
    );
  });
});
