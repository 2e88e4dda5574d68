/**
 * Gas top-ups (src/planner/gasTopUp.ts): which low signers get a cross-asset transfer planned, with which floor,
 * and why the others do not (a top-up in flight, a source that cannot pay above its reserve or cannot be read).
 */
import { describe, expect, it } from 'vitest';
import { parseEther } from 'viem';
import { planGasTopUps, type GasTopUpRule, type SignerGas } from '../../../packages/ballast/src/planner/gasTopUp.ts';
import { planRebalance } from '../../../packages/ballast/src/planner/planRebalance.ts';
import type { InFlightTransfer } from '../../../packages/ballast/src/planner/types.ts';
import { reading, target, unreadable, units } from './presets.ts';

const NATIVE = '0x0000000000000000000000000000000000000000';
const TREASURY = '0x1111111111111111111111111111111111111111';
const OPS = '0x2222222222222222222222222222222222222222';
const usdcAlpha = target('alpha', { band: { min: '1000', target: '5000', max: '9000' } });

const rule = (over: Partial<GasTopUpRule> = {}): GasTopUpRule => ({
  chain: 'beta',
  chainId: 1002,
  native: { currency: NATIVE, decimals: 18, symbol: 'ETH' },
  source: usdcAlpha,
  amountIn: units(usdcAlpha, '200'),
  minOut: parseEther('0.05'),
  ...over,
});
const signer = (wallet: string, address: string, eth: string | null): SignerGas => ({
  chain: 'beta',
  wallet,
  address,
  amount: eth === null ? null : parseEther(eth),
  min: parseEther('0.01'),
});
/** A transfer paying native ETH to `address` on beta, in flight. */
const toBeta = (address: string): InFlightTransfer => ({
  asset: 'USDC',
  originChain: 'alpha',
  originCurrency: usdcAlpha.currency,
  originAddress: usdcAlpha.address,
  destinationChain: 'beta',
  destinationCurrency: NATIVE.toUpperCase().replace('0X', '0x'),
  destinationAddress: address.toUpperCase().replace('0X', '0x'),
  amountIn: units(usdcAlpha, '200'),
  guaranteedOut: parseEther('0.06'),
  originSettled: true,
});

describe('planGasTopUps', () => {
  it('plans one top-up per low signer, with the configured floor, a reason in words and an in-flight entry', () => {
    const p = planGasTopUps({
      rules: [rule()],
      signers: [signer('treasury', TREASURY, '0.002'), signer('ops', OPS, '0.5')],
      balances: [reading(usdcAlpha, '6000')],
      inFlight: [],
    });
    expect(
      p.transfers.map((t) => [t.asset, t.from.chain, t.to.chain, t.to.currency, t.to.address, t.to.decimals, t.amountIn, t.gasTopUp]),
    ).toEqual([['USDC', 'alpha', 'beta', NATIVE, TREASURY, 18, 200_000_000n, { minOut: parseEther('0.05') }]]);
    const reason =
      'gas top-up: treasury holds 0.002 ETH on beta, below minGasBalance 0.01 ETH; buying at least 0.05 ETH with 200 USDC from alpha';
    expect(p.transfers[0]!.reason).toBe(reason);
    expect(p.decisions).toEqual([{ asset: 'USDC', chain: 'beta', kind: 'gas_top_up', detail: reason }]);
    expect(p.inFlight).toEqual([
      {
        asset: 'USDC',
        originChain: 'alpha',
        originCurrency: usdcAlpha.currency,
        originAddress: usdcAlpha.address,
        destinationChain: 'beta',
        destinationCurrency: NATIVE,
        destinationAddress: TREASURY,
        amountIn: 200_000_000n,
        guaranteedOut: parseEther('0.05'),
        originSettled: false,
      },
    ]);
    expect(p.skipped).toEqual([]);
  });

  it('tops up nobody on a chain without a rule, at or above the minimum, or whose read failed', () => {
    const p = planGasTopUps({
      rules: [rule()],
      signers: [
        signer('treasury', TREASURY, '0.01'),
        signer('ops', OPS, null),
        { ...signer('x', TREASURY, '0'), chain: 'gamma' },
        { chain: 'beta', wallet: 'y', address: OPS, amount: 0n },
      ],
      balances: [reading(usdcAlpha, '6000')],
      inFlight: [],
    });
    expect([p.transfers, p.decisions, p.skipped]).toEqual([[], [], []]);
  });

  it('sends no second top-up while a native transfer to that signer is in flight (addresses compared like holdings)', () => {
    const p = planGasTopUps({
      rules: [rule()],
      signers: [signer('treasury', TREASURY, '0'), signer('ops', OPS, '0')],
      balances: [reading(usdcAlpha, '6000')],
      inFlight: [toBeta(TREASURY)],
    });
    expect(p.transfers.map((t) => t.to.wallet)).toEqual(['ops']);
    expect(p.skipped.map((s) => [s.wallet, s.reason])).toEqual([['treasury', 'in_flight']]);
    expect(p.decisions[0]!.detail).toBe(
      'treasury holds 0 ETH on beta, below minGasBalance 0.01 ETH; 0.06 ETH (guaranteed) already on its way from alpha: no second top-up while it is in flight',
    );
  });

  it('never digs into the source: its reserve, transfers in flight from it and earlier top-ups of the cycle count', () => {
    const reserved = { ...usdcAlpha, reserve: units(usdcAlpha, '100') };
    const outgoing: InFlightTransfer = {
      ...toBeta('0x3333333333333333333333333333333333333333'),
      destinationCurrency: usdcAlpha.currency,
      amountIn: units(usdcAlpha, '50'),
      originSettled: false,
    };
    const p = planGasTopUps({
      rules: [rule({ source: reserved })],
      signers: [signer('treasury', TREASURY, '0'), signer('ops', OPS, '0')],
      balances: [reading(reserved, '550')], // 550 − 50 in flight = 500: one top-up of 200 leaves 300, a second 100 = the reserve
      inFlight: [outgoing],
    });
    expect(p.transfers.map((t) => t.to.wallet)).toEqual(['treasury', 'ops']);
    const short = planGasTopUps({
      rules: [rule({ source: reserved })],
      signers: [signer('treasury', TREASURY, '0'), signer('ops', OPS, '0')],
      balances: [reading(reserved, '549')],
      inFlight: [outgoing],
    });
    expect(short.transfers.map((t) => t.to.wallet)).toEqual(['treasury']);
    expect(short.skipped).toEqual([
      {
        chain: 'beta',
        wallet: 'ops',
        reason: 'source_short',
        detail:
          'ops holds 0 ETH on beta, below minGasBalance 0.01 ETH; no top-up: USDC on alpha (treasury) has 299 USDC available (after transfers in flight), too little to pay 200 USDC and keep its reserve of 100 USDC',
      },
    ]);
  });

  it('plans nothing from a source that could not be read', () => {
    const p = planGasTopUps({
      rules: [rule()],
      signers: [signer('treasury', TREASURY, '0')],
      balances: [unreadable(usdcAlpha)],
      inFlight: [],
    });
    expect(p.transfers).toEqual([]);
    expect(p.skipped.map((s) => [s.reason, s.detail])).toEqual([
      [
        'source_unreadable',
        'treasury holds 0 ETH on beta, below minGasBalance 0.01 ETH; no top-up: the source USDC on alpha (treasury) could not be read this cycle',
      ],
    ]);
  });

  it('plans nothing on a route the route rules refuse, and says which rule', () => {
    const p = planGasTopUps({
      rules: [rule()],
      signers: [signer('treasury', TREASURY, '0')],
      balances: [reading(usdcAlpha, '10000')],
      inFlight: [],
      routeRefusal: (source, to) => (source.chain === 'alpha' && to.chain === 'beta' ? 'policy.routes[0]' : undefined),
    });
    expect([p.transfers, p.inFlight]).toEqual([[], []]);
    expect(p.skipped.map((s) => [s.reason, s.detail])).toEqual([
      [
        'route_not_allowed',
        'treasury holds 0 ETH on beta, below minGasBalance 0.01 ETH; no top-up: USDC from alpha (treasury) to beta (treasury) is not allowed by policy.routes[0]',
      ],
    ]);
  });

  it('its in-flight entries keep the rebalancing planner from spending the same source twice', () => {
    const usdcBeta = target('beta', { band: { min: '1000', target: '5000', max: '9000' } });
    const balances = [reading(usdcAlpha, '10000'), reading(usdcBeta, '0')];
    const p = planGasTopUps({ rules: [rule()], signers: [signer('treasury', TREASURY, '0')], balances, inFlight: [] });
    const plan = planRebalance({ targets: [usdcAlpha, usdcBeta], balances, inFlight: p.inFlight, minTransfer: '1', maxTransfer: '100000' });
    // alpha could give 5000 down to its target; 200 of it pays the top-up, so it gives 4800.
    expect(plan.transfers.map((t) => [t.from.chain, t.to.chain, t.amountIn])).toEqual([['alpha', 'beta', units(usdcAlpha, '4800')]]);
  });
});
