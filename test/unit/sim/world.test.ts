/**
 * The simulated world's two block models: a block every `blockMs`, or (blockMs 0) a block for each transaction the
 * moment after it arrives, as anvil's automine mines (Hyperlane's simulator runs on one such node).
 */
import type { Address } from 'viem';
import { describe, expect, it } from 'vitest';
import { simChains, simIdentity, simToken } from '../../../packages/ballast/src/sim/identity.ts';
import { SIM_AUTOMINE_MS, SIM_BLOCK_MS, SIM_START_MS, SimWorld } from '../../../packages/ballast/src/sim/world.ts';

const seed = 3;
const E6 = 1_000_000n;

function world(blockMs?: number): SimWorld {
  const id = simIdentity(seed);
  return new SimWorld({
    seed,
    chains: simChains(['alpha', 'beta']),
    token: simToken(seed, 'USDC', 6),
    identity: id,
    treasury: { alpha: 100n * E6, beta: 100n * E6 },
    route: () => ({ delayMs: 500, jitterMs: 0, failureRate: 0, fees: { bps: 0, flatUsd: '0' } }),
    ...(blockMs !== undefined ? { blockMs } : {}),
  });
}

/** Pays 5 USDC out of the treasury on alpha at `atMs` after the start; returns when its block was mined (ms after the start). */
function payAt(w: SimWorld, atMs: number): () => number | undefined {
  let hash: `0x${string}` | undefined;
  const payee = '0x000000000000000000000000000000000000beef' as Address;
  w.at(SIM_START_MS + atMs, () => (hash = w.transfer('alpha', w.spec.identity.treasury.address, payee, 5n * E6, 'pay')));
  return () => {
    const hit = hash && w.chain('alpha').minedTx(hash);
    return hit ? hit.block.timestampMs - SIM_START_MS : undefined;
  };
}

describe('the simulated world mines', () => {
  it('on a block cadence by default: a payment sent at 1.1 s is mined in the block at 1.25 s', () => {
    const w = world();
    const mined = payAt(w, 1100);
    w.advance(1100);
    expect(w.treasuryBalance('alpha')).toBe(100n * E6); // sent, not yet mined
    w.advance(SIM_BLOCK_MS);
    expect(mined()).toBe(1250);
    expect(w.treasuryBalance('alpha')).toBe(95n * E6);
    expect(w.chain('alpha').head()).toBe(5n); // blocks at 250, 500, 750, 1000, 1250
  });

  it('with blockMs 0, a block per transaction the moment after it arrives, and none while nothing is sent', () => {
    const w = world(0);
    const mined = payAt(w, 1100);
    w.advance(1100);
    // a read at the instant it was sent sees the state before it
    expect(w.treasuryBalance('alpha')).toBe(100n * E6);
    w.advance(SIM_AUTOMINE_MS);
    expect(mined()).toBe(1100 + SIM_AUTOMINE_MS);
    expect(w.treasuryBalance('alpha')).toBe(95n * E6);
    w.advance(10_000);
    expect(w.chain('alpha').head()).toBe(1n);
    expect(w.chain('beta').head()).toBe(0n);
  });

  it('with blockMs 0, a transaction held back by the fee market is mined when it falls due, with nothing else happening', () => {
    const w = world(0);
    const chain = w.chain('alpha');
    const hash = chain.payout(w.spec.identity.treasury.address, w.spec.token.address, w.spec.identity.counterparty, E6, 'late');
    chain.holdArrivals(SIM_START_MS + 4000); // as a transaction stuck under the fee market until 4 s
    w.advance(3999);
    expect(chain.minedTx(hash)).toBeUndefined();
    w.advance(1);
    expect(chain.minedTx(hash)!.block.timestampMs).toBe(SIM_START_MS + 4000);
  });

  it('refuses a block interval that is not a whole number of ms ≥ 0', () => {
    expect(() => world(-1)).toThrow(/blockMs must be a whole number of ms ≥ 0, got -1/);
    expect(() => world(0.5)).toThrow(/blockMs/);
  });
});
