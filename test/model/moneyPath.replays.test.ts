/**
 * Minimal replays of schedules the money-path property (moneyPath.property.test.ts) shrank to. Each runs one
 * fixed schedule through the same harness and invariants and must pass; each also checks that its faults still
 * land where they were aimed (call counts shift when the code changes its calls), so a replay never passes
 * without reproducing its situation. Each failed on the code it was found against:
 *
 * 1. a reorg that drops a deposit whose receipt was already seen leaves the transfer `deposited` forever
 *    (src/cycle/reorgs.ts re-checks only transactions whose recorded block is not yet `confirmations` deep at
 *    the next cycle, by which time it always is);
 * 2. a transfer left `broadcast` whose deposit landed and was filled is counted twice by the planner (origin
 *    debited again, destination credited again) when one lookup fails during reconciliation, and the planner
 *    sends the money back the other way (src/cycle/plannerInFlight.ts, src/cycle/reconcile.ts txState);
 * 3. a deposit proof read from a backend one block behind misses a speed-up that was just mined: the transfer
 *    is failed, re-planned on the balances read before the rebroadcast, and the need is paid twice
 *    (src/cycle/reconcile.ts depositProof, src/chains/evm/findDeposits.ts `toBlock: 'latest'`);
 * 4. a reorg drops a mined approve while the deposit signed after it waits in the mempool behind the gap; the
 *    order deadline passes and the transfer is failed, the next transfer's approve takes the free nonce, and the
 *    old deposit lands after all (src/cycle/reconcile.ts failed a transfer while a later transaction of it
 *    could still land);
 * 5. the same guard must not wait on a later transaction that was mined and reverted (it can never land again):
 *    the transfer stayed `broadcast` for good;
 * 6. a reorg drops a mined approve, the deposit sent again behind the gap is sped up by the operator (another
 *    hash), and once the deadline passes the unknown approve was taken as proof: the transfer is failed while the
 *    speed-up waits on the free nonce, and it lands once the next transfer's approve takes it
 *    (src/cycle/reconcile.ts looked only for the recorded hashes of later transactions; it now sends the earlier
 *    one again, past the deadline too, so the gap closes while the transfer is in flight);
 * 7. an operator's speed-up of a lost deposit is found on chain and recorded as the transfer's deposit; a reorg
 *    removes it, our own deposit is sent again to close the nonce gap and is mined instead. Reconciliation found
 *    that deposit too and tried to record it under the same step id (a unique-constraint error every cycle), and
 *    the tracker kept judging statuses against the vanished speed-up: the transfer stayed `broadcast`, then
 *    `deposited`, for good (src/cycle/foundDeposit.ts, `depositTxOf` in src/store/transferRows.ts);
 * 8. a reorg removes the approve of a transfer that had already ended; the next transfer relies on that
 *    allowance and signs only its deposit, at the nonce above the one now free. The deposit waits behind the gap,
 *    the operator speeds it up (another hash), and once the deadline passes the transfer was failed as "unknown to
 *    the node": the following transfer's approve then took the free nonce, the speed-up landed, and the deposit
 *    of a failed transfer was stranded in the depository (src/cycle/nonceGap.ts: a transaction above a free nonce
 *    proves nothing; the recorded approve is sent again to close the gap).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelEnv, runSchedule, type ModelEnv } from './harness.ts';
import { UNIT, type Schedule } from './schedule.ts';

let env: ModelEnv;

beforeAll(() => {
  env = createModelEnv(process.env.BALLAST_MODEL_LOG ?? 'silent');
});
afterAll(() => env.close());

/** A schedule with one need of 20 000 USDC from alpha to beta and no faults but those given. */
function oneNeed(faults: Partial<Schedule>): Schedule {
  return {
    needs: [{ asset: 'USDC', from: 'alpha', amount: 20_000n * UNIT }],
    gapsMs: [20_000, 20_000],
    lookupFaults: [],
    reorgs: [],
    sendFaults: [],
    relayFaults: [],
    fills: [],
    crashes: [],
    ...faults,
  };
}

/** Runs a replay; its faults must still hit the calls named in `expected` (journal lines, in any order). */
async function replay(schedule: Schedule, expected: RegExp[]): Promise<void> {
  const outcome = await runSchedule(env, schedule);
  for (const line of expected)
    expect(
      outcome.injected.some((i) => line.test(i)),
      `fault ${line} injected: ${outcome.injected.join(' | ')}`,
    ).toBe(true);
}

describe('money-path replays', () => {
  it('a deposit a reorg removes after its receipt was seen is found missing and sent again (not left deposited forever)', async () => {
    // The deposit (second mined transaction) is in block B; when B+1 is mined the chain reorgs B and B+1 away
    // and the node forgets their transactions. Nothing re-checks B at the next cycle: it is 3 blocks deep by then.
    await replay(oneNeed({ gapsMs: [20_000], reorgs: [{ afterMined: 1, delayBlocks: 1, depth: 2, mode: 'vanish' }] }), [
      /^mined #1 .* on alpha: reorg/,
    ]);
  });

  it('a transfer whose deposit landed while its record says broadcast is not counted twice when one receipt lookup fails', async () => {
    // The process dies right after the node accepted the deposit (the second tx:sent); the deposit is mined and
    // filled; at the next cycle the receipt lookup of the deposit fails once, the transfer stays `broadcast`,
    // alpha is debited and beta credited a second time, and 20 000 USDC are quoted and sent back beta → alpha.
    await replay(
      oneNeed({
        crashAt: [{ point: 'tx:sent', hit: 2 }],
        lookupFaults: [{ at: 0, method: 'getTransactionReceipt', fault: { kind: 'error' } }],
      }),
      [/^crash at tx:sent #2 /, /getTransactionReceipt \(#0 of getTransactionReceipt\): \{"kind":"error"\}$/],
    );
  });

  it('a deposit proof answered by a backend one block behind does not fail a transfer whose speed-up was just mined', async () => {
    // The deposit's broadcast is lost; the next cycle sends it again and the operator speeds it up; the speed-up
    // is mined; the depository logs come from a backend one block behind and the Relay has not indexed it yet.
    await replay(
      oneNeed({
        sendFaults: [
          { at: 1, fault: 'lost' },
          { at: 2, fault: 'speedUp' },
        ],
        lookupFaults: [{ at: 0, method: 'getLogs', fault: { kind: 'lag', blocks: 1 } }],
        fills: [{ outcome: 'success', payMinimum: false, delayMs: 0, indexDelayMs: 8_000 }],
      }),
      [/^send #1: lost$/, /^send #2: speedUp$/, /getLogs \(#0 of getLogs\): \{"kind":"lag","blocks":1\}$/],
    );
  });

  it('a transfer is not failed while a deposit signed after a reorged approve still waits behind the nonce gap', async () => {
    await replay(
      {
        needs: [
          { asset: 'USDC', from: 'alpha', amount: 15_001n * UNIT },
          { asset: 'USDT', from: 'beta', amount: 15_001n * UNIT },
        ],
        gapsMs: [20_000],
        lookupFaults: [{ at: 3, method: 'estimateFeesPerGas', fault: { kind: 'reorg', chain: 'beta', depth: 1, mode: 'vanish' } }],
        reorgs: [],
        sendFaults: [],
        relayFaults: [],
        fills: [],
        crashes: [],
      },
      [/estimateFeesPerGas .*"kind":"reorg","chain":"beta"/],
    );
  });

  it('a later transaction that was mined and reverted does not keep its transfer in flight for good', async () => {
    await replay(
      {
        needs: [
          { asset: 'USDC', from: 'alpha', amount: 15_001n * UNIT },
          { asset: 'USDT', from: 'alpha', amount: 15_001n * UNIT },
        ],
        gapsMs: [20_000],
        lookupFaults: [
          { at: 0, method: 'estimateGas', fault: { kind: 'error' } },
          { at: 1, method: 'estimateFeesPerGas', fault: { kind: 'reorg', chain: 'alpha', depth: 1, mode: 'vanish' } },
        ],
        reorgs: [],
        sendFaults: [],
        relayFaults: [],
        fills: [],
        crashes: [],
      },
      [/estimateGas .*"kind":"error"/, /estimateFeesPerGas .*"kind":"reorg","chain":"alpha"/],
    );
  });

  it('a transfer is not failed while a speed-up of its deposit waits behind the nonce of an approve a reorg erased', async () => {
    // Alpha: the approve is mined; a reorg drops it while the deposit waits for its receipt, and the node loses
    // its pool. The next cycle's reorg re-check fails, so the deposit is sent again and the operator speeds it up
    // (same nonce, another hash). Once the deadline has passed, the approve is unknown to the node and the speed-up
    // waits behind its free nonce: the next transfer's approve would take that nonce and let the old deposit land.
    await replay(
      {
        needs: [
          { asset: 'USDC', from: 'beta', amount: 15_001n * UNIT },
          { asset: 'USDT', from: 'alpha', amount: 15_001n * UNIT },
        ],
        gapsMs: [20_000, 20_000],
        lookupFaults: [
          { at: 0, method: 'waitForTransactionReceipt', fault: { kind: 'notFound' } },
          { at: 2, method: 'waitForTransactionReceipt', fault: { kind: 'reorg', chain: 'alpha', depth: 1, mode: 'vanish' } },
          { at: 4, method: 'getBlockNumber', fault: { kind: 'error' } },
        ],
        reorgs: [],
        sendFaults: [{ at: 3, fault: 'speedUp' }],
        relayFaults: [],
        fills: [],
        crashes: [],
      },
      [
        /waitForTransactionReceipt \(#0 of waitForTransactionReceipt\): \{"kind":"notFound"\}$/,
        /waitForTransactionReceipt \(#2 of waitForTransactionReceipt\): .*"kind":"reorg","chain":"alpha"/,
        /getBlockNumber \(#4 of getBlockNumber\): \{"kind":"error"\}$/,
        /^send #3: speedUp$/,
      ],
    );
  });

  it('a recorded speed-up a reorg removed gives way to our own deposit mined in its place (found once, tracked by it)', async () => {
    // Our beta deposit's send is lost and the operator speeds it up (another hash); reconciliation finds the
    // speed-up on chain and records it. A reorg then drops it and the node forgets it; our own deposit, sent again
    // to close the nonce gap, is mined instead, and the service fills that one.
    await replay(
      {
        needs: [
          { asset: 'USDC', from: 'beta', amount: 15_001n * UNIT },
          { asset: 'USDT', from: 'alpha', amount: 15_001n * UNIT },
        ],
        gapsMs: [20_000, 20_000, 20_000],
        lookupFaults: [
          { at: 52, fault: { kind: 'reorg', chain: 'beta', depth: 1, mode: 'vanish' } },
          { at: 6, fault: { kind: 'notFound' } },
          { at: 32, fault: { kind: 'notFound' } },
        ],
        reorgs: [],
        sendFaults: [
          { at: 3, fault: 'speedUp' },
          { at: 1, fault: 'lost' },
        ],
        relayFaults: [],
        fills: [],
        crashes: [],
      },
      [/^send #1: lost$/, /^send #3: speedUp$/, /^lookup #52 .*"kind":"reorg","chain":"beta"/],
    );
  });

  it("a deposit waiting above a nonce an earlier transfer's reorged approve left free is not failed, and the gap is closed", async () => {
    // Transfer 1's approve is slow, so its cycle ends before the deposit is signed (origin_failed, nothing
    // deposited); the approve is then mined and removed by a reorg. Transfer 3 finds the allowance, signs its
    // deposit at nonce 1 above the now free nonce 0, and the operator's speed-up replaces it in the pool.
    await replay(
      {
        needs: [
          { asset: 'USDC', from: 'alpha', amount: 15_001n * UNIT },
          { asset: 'USDT', from: 'beta', amount: 15_001n * UNIT },
        ],
        gapsMs: [20_000, 700_000, 20_000],
        lookupFaults: [],
        reorgs: [{ afterMined: 3, delayBlocks: 1, depth: 2, mode: 'vanish' }],
        sendFaults: [
          { at: 4, fault: 'speedUp' },
          { at: 0, fault: 'slow' },
        ],
        relayFaults: [],
        fills: [],
        crashes: [],
      },
      [/^send #0: slow$/, /^mined #3 .* on alpha: reorg/, /^send #4: speedUp$/],
    );
  });
});
