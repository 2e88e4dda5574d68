/**
 * Balances and in-flight transfers are one snapshot: every balance of a chain is read at one block, in-flight
 * transfers are refreshed after that read and judged against it, so a fill that lands between the two reads is
 * counted once. Counted twice, the destination looks above its band; missed, the same need is paid again.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { IntentStatus } from '../../packages/protocol/src/relay/schemas.ts';
import type { Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { ballastOnSandbox, sandboxPerTest, tempDir, usdcBalance } from './helpers/sandboxBallast.ts';
import { trackingClock } from './trackingClock.ts';

const USDC = 1_000_000n;
const tmp = tempDir('ballast-reads-');
afterAll(() => tmp.cleanup());
const sandboxes = sandboxPerTest();

/** Waits until the treasury's beta USDC balance rises above `before` (the solver's fill is mined). */
async function fillMined(s: Sandbox, before: bigint): Promise<bigint> {
  for (let i = 0; i < 400; i++) {
    const now = await usdcBalance(s, 'beta');
    if (now > before) return now;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the sandbox solver did not fill within 20 s');
}

/**
 * Cycle 1 deposits 20000 USDC alpha → beta and stops tracking before the (slow) fill: the instance's clock moves
 * past `tracking.timeoutSec` at the tracker's first status read (trackingClock), so it times out there.
 * Cycle 2 runs with the status endpoint wrapped: the first status read of the transfer waits until the fill is
 * mined, then answers with the status read before the fill (`stale`) or after it.
 */
async function fillDuringSecondCycle(answer: 'stale' | 'fresh') {
  // The fill lands 4 s after the deposit is indexed: seconds after cycle 2 has read the balances, while its in-flight
  // refresh waits for it.
  const s = await sandboxes.start({ faults: { fillDelayMs: 4_000 } });
  const clock = trackingClock();
  const { ballast } = ballastOnSandbox(s, tmp.dir, { tracking: { pollMs: 200, timeoutSec: 10 } }, {}, { now: clock.now });
  sandboxes.closeAfter(() => ballast.close());
  const relay = ballast.ctx.relay;
  void clock.timeOutAtNextStatusRead(relay, 10_000);
  const first = await ballast.runCycle('once');
  expect(first.attempts.map((a) => a.outcome)).toEqual(['in_flight']);
  expect(clock.aheadMs).toBe(10_000);
  const realGetStatus = relay.getStatus.bind(relay);
  const betaBefore = await usdcBalance(s, 'beta');
  expect(betaBefore).toBe(10_000n * USDC);
  let filledAt: bigint | null = null;
  relay.getStatus = async (requestId: string, checkEndpoint?: string): Promise<IntentStatus> => {
    const before = await realGetStatus(requestId, checkEndpoint);
    if (filledAt !== null) return before;
    filledAt = await fillMined(s, betaBefore);
    if (answer === 'stale') return before;
    for (;;) {
      const after = await realGetStatus(requestId, checkEndpoint);
      if (after.status === 'success') return after;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const second = await ballast.runCycle('once');
  expect(filledAt).not.toBeNull();
  return { second, ballast, s, betaBefore, filledAt: filledAt! };
}

describe('a fill landing between the balance read and the in-flight refresh', () => {
  it('is counted once while the status still says pending: beta is in band, nothing planned', async () => {
    const { second, ballast, betaBefore, filledAt } = await fillDuringSecondCycle('stale');
    const beta = second.balances.find((b) => b.chain === 'beta')!;
    expect(beta.amount).toBe(betaBefore); // read before the fill, at one block
    expect(filledAt).toBeGreaterThan(betaBefore);
    const betaDecision = second.plan.decisions.find((d) => d.chain === 'beta' && ['in_band', 'surplus', 'deficit'].includes(d.kind));
    expect(betaDecision?.kind).toBe('in_band');
    expect(second.plan.transfers).toEqual([]);
    expect(await listRecentTransfers(ballast.db, 5)).toHaveLength(1);
  });

  it('is counted once when the refresh closes the transfer: its fill after the read stays credited, no second payment', async () => {
    const { second, ballast, s, betaBefore } = await fillDuringSecondCycle('fresh');
    expect(second.balances.find((b) => b.chain === 'beta')!.amount).toBe(betaBefore);
    const betaDecision = second.plan.decisions.find((d) => d.chain === 'beta' && ['in_band', 'surplus', 'deficit'].includes(d.kind));
    expect(betaDecision?.kind).toBe('in_band');
    expect(second.plan.transfers).toEqual([]);
    expect(second.attempts).toEqual([]);
    expect((await listRecentTransfers(ballast.db, 5)).map((t) => t.status)).toEqual(['success']);
    expect(await usdcBalance(s, 'alpha')).toBe(70_000n * USDC); // one deposit of 20000, not two
  });
});
