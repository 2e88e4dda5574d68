/**
 * The solver's EVM deposit watch with and without the node's announced heads (src/solver/evmHeads.ts): with them it
 * reads the head and logs only when a head at or past the next block was announced, or after the fallback interval;
 * without them it reads on every poll.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { ObservedDeposit } from '../../../../packages/sandbox/src/api/requestStore.ts';
import type { HeadFollower } from '../../../../packages/sandbox/src/solver/evmHeads.ts';
import { HEAD_POLL_FALLBACK_MS, watchEvm } from '../../../../packages/sandbox/src/solver/evmWatch.ts';
import { DEPOSITORY_ALPHA, USDC, USER } from '../quote/fixtures.ts';
import { fakeChain, type FakeChain } from './fakeChain.ts';

const POLL_MS = 10;
const ID = `0x${'ab'.repeat(32)}` as const;

let abort = new AbortController();
let loop: Promise<void> = Promise.resolve();
afterEach(async () => {
  abort.abort();
  await loop;
  abort = new AbortController();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts the watch on a fresh fake chain (head 1, first block to scan 2); `heads` as given. */
function watch(heads?: HeadFollower): { alpha: FakeChain; deposits: ObservedDeposit[] } {
  const alpha = fakeChain(31001, DEPOSITORY_ALPHA);
  const deposits: ObservedDeposit[] = [];
  loop = watchEvm({
    chain: alpha.chain,
    startBlock: 2n,
    signal: abort.signal,
    pollMs: POLL_MS,
    beforePoll: () => undefined,
    onDeposit: (d) => deposits.push(d),
    log: pino({ level: 'silent' }),
    ...(heads ? { heads } : {}),
  });
  return { alpha, deposits };
}

async function until(what: string, check: () => boolean, ms: number): Promise<number> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(5);
  }
  return Date.now() - start;
}

describe('watchEvm', () => {
  it('without announced heads, reads the head on every poll', async () => {
    const { alpha } = watch();
    await sleep(300);
    expect(alpha.headReads).toBeGreaterThan(5);
  });

  it('with announced heads, reads the head only once a new head is announced, and then finds the deposit', async () => {
    let announced: bigint | undefined = 1n;
    const { alpha, deposits } = watch({ latest: () => announced, close: () => undefined });
    await sleep(300); // 30 polls, well within the fallback interval
    expect(alpha.headReads).toBe(1); // the first poll reads; nothing was announced since
    const hash = alpha.depositErc20({ from: USER, token: USDC, amount: 5n, id: ID }, 1_700_000_000);
    announced = 2n;
    await until('the deposit', () => deposits.length === 1, 500);
    expect(deposits[0]).toMatchObject({ txHash: hash, amount: 5n, blockNumber: 2n });
    expect(alpha.headReads).toBe(2);
  });

  it('a deposit whose head was never announced is still found, within the fallback interval', async () => {
    const { alpha, deposits } = watch({ latest: () => 1n, close: () => undefined });
    await sleep(50);
    alpha.depositErc20({ from: USER, token: USDC, amount: 7n, id: ID }, 1_700_000_000);
    const waited = await until('the deposit', () => deposits.length === 1, HEAD_POLL_FALLBACK_MS + 1_000);
    expect(deposits[0]!.amount).toBe(7n);
    expect(waited).toBeGreaterThan(HEAD_POLL_FALLBACK_MS / 2); // found by the fallback read, not at the next poll
  });

  it('a failed subscription (no head) falls back to reading on every poll', async () => {
    const { alpha } = watch({ latest: () => undefined, close: () => undefined });
    await sleep(300);
    expect(alpha.headReads).toBeGreaterThan(5);
  });
});
