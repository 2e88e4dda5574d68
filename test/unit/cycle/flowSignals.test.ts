/**
 * The flow observations of a cycle (src/cycle/flowSignals.ts): a holding is observed at its effective balance, and
 * the transfers Ballast created since its previous observation are taken out of the change, so a rebalance is no
 * flow while outside traffic is; a failed read records nothing; without a flow strategy the store is not touched.
 */
import { describe, expect, it } from 'vitest';
import { cycleFlows, observeFlows, ownMoves } from '../../../packages/ballast/src/cycle/flowSignals.ts';
import type { CycleContext } from '../../../packages/ballast/src/cycle/context.ts';
import { locationKey } from '../../../packages/ballast/src/planner/effective.ts';
import type { FlowStrategy, InFlightTransfer, TargetBand } from '../../../packages/ballast/src/planner/types.ts';
import type { OwnTransfer, StoredFlowState } from '../../../packages/ballast/src/store/flowStates.ts';

const USDC = 1_000_000n;
const ADDR = '0xAbCd000000000000000000000000000000000001';
const band = (chain: string): TargetBand => ({
  asset: 'USDC',
  chain,
  chainId: chain === 'alpha' ? 1 : 2,
  currency: `0xUSDC${chain}`,
  decimals: 6,
  wallet: 'treasury',
  address: ADDR,
  min: 10n * USDC,
  target: 20n * USDC,
  max: 30n * USDC,
});
const alpha = band('alpha');
const beta = band('beta');
const strategy: Record<string, FlowStrategy> = {
  USDC: { kind: 'flow', halfLifeSec: 3600, horizonSec: 900, deadbandPerHour: '0', minSamples: 1 },
};
const key = (t: TargetBand) => locationKey(t.chain, t.currency, t.address);
const state = (t: TargetBand, balance: bigint): StoredFlowState => ({
  chain: t.chain,
  currency: t.currency.toLowerCase(),
  address: t.address.toLowerCase(),
  atMs: 0,
  balance,
  rateScaled: 0n,
  samples: 0,
});
/** 5 USDC from alpha to beta, created at 1 000 ms, delivering at least 4.9. */
const rebalance = (status: string, refunded: bigint | null = null): OwnTransfer => ({
  originChain: 'alpha',
  originCurrency: alpha.currency,
  originAddress: ADDR.toLowerCase(),
  destinationChain: 'beta',
  destinationCurrency: beta.currency,
  destinationAddress: ADDR,
  amountIn: 5n * USDC,
  minOut: 4_900_000n,
  refunded,
  status,
  createdAtMs: 1_000,
});

describe('flow observations', () => {
  it('takes a rebalance out of the change, leaving only outside traffic as flow', () => {
    const previous = new Map([
      [key(alpha), state(alpha, 25n * USDC)],
      [key(beta), state(beta, 15n * USDC)],
    ]);
    // 60 s later: alpha sent 5 to beta (settled on alpha, still in flight to beta) and paid 1 out to a user.
    const inFlight: InFlightTransfer[] = [
      {
        asset: 'USDC',
        originChain: 'alpha',
        originCurrency: alpha.currency,
        originAddress: ADDR,
        destinationChain: 'beta',
        destinationCurrency: beta.currency,
        destinationAddress: ADDR,
        amountIn: 5n * USDC,
        guaranteedOut: 4_900_000n,
        originSettled: true,
      },
    ];
    const input = {
      targets: [alpha, beta],
      balances: [
        { ...alpha, amount: 19n * USDC },
        { ...beta, amount: 15n * USDC },
      ],
      inFlight,
    };
    const { flows, states } = observeFlows(input, strategy, previous, [rebalance('deposited')], 60_000);
    expect(flows.map((f) => [f.chain, f.netFlowPerSec, f.samples])).toEqual([
      ['alpha', -USDC / 60n, 1],
      ['beta', 0n, 1],
    ]);
    expect(states.map((s) => [s.chain, s.address, s.balance, s.samples])).toEqual([
      ['alpha', ADDR.toLowerCase(), 19n * USDC, 1],
      ['beta', ADDR.toLowerCase(), 15n * USDC + 4_900_000n, 1],
    ]);
  });

  it('counts what each transfer status did to the effective balance, inside the window only', () => {
    const a = key(alpha);
    const b = key(beta);
    expect([ownMoves([rebalance('success')], a, 0, 2_000), ownMoves([rebalance('success')], b, 0, 2_000)]).toEqual([
      -5n * USDC,
      4_900_000n,
    ]);
    expect(ownMoves([rebalance('origin_failed')], a, 0, 2_000)).toBe(0n);
    expect([ownMoves([rebalance('failure')], a, 0, 2_000), ownMoves([rebalance('failure')], b, 0, 2_000)]).toEqual([-5n * USDC, 0n]);
    expect(ownMoves([rebalance('refund', 4n * USDC)], a, 0, 2_000)).toBe(-USDC);
    expect(ownMoves([rebalance('refund')], a, 0, 2_000)).toBe(0n);
    expect(ownMoves([rebalance('success')], a, 1_001, 2_000)).toBe(0n);
    expect(ownMoves([rebalance('success')], a, 0, 1_000)).toBe(0n);
  });

  it('records nothing for a failed read, and starts a state for a holding seen the first time', () => {
    const input = {
      targets: [alpha, beta],
      balances: [
        { ...alpha, amount: null, error: 'down' },
        { ...beta, amount: 3n },
      ],
      inFlight: [],
    };
    const { flows, states } = observeFlows(input, strategy, new Map(), [], 5_000);
    expect(flows.map((f) => [f.chain, f.netFlowPerSec, f.samples])).toEqual([['beta', 0n, 0]]);
    expect(states.map((s) => [s.chain, s.atMs, s.balance, s.samples])).toEqual([['beta', 5_000, 3n, 0]]);
  });

  it('without a flow strategy, neither reads nor writes the store', async () => {
    const untouchable = new Proxy(
      {},
      {
        get: () => {
          throw new Error('the store was used');
        },
      },
    ) as CycleContext['db'];
    const ctx = { db: untouchable, config: { policy: {} } as CycleContext['config'], now: () => 1 };
    const input = { targets: [alpha], balances: [{ ...alpha, amount: 1n }], inFlight: [] };
    await expect(cycleFlows(ctx, input, true)).resolves.toBeUndefined();
    const other = {
      db: untouchable,
      config: { policy: { strategy: { ETH: strategy.USDC } } } as unknown as CycleContext['config'],
      now: () => 1,
    };
    await expect(cycleFlows(other, input, true)).resolves.toBeUndefined();
  });
});
