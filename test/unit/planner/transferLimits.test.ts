import { describe, expect, it } from 'vitest';
import { planRebalance } from '../../../packages/ballast/src/planner/planRebalance.ts';
import { PlanInputError } from '../../../packages/ballast/src/planner/errors.ts';
import { reading, target, unreadable, units } from './presets.ts';

const ETH_BAND = { min: '10', target: '20', max: '30' };
const eth = (chain: string) =>
  target(chain, { asset: 'ETH', decimals: 18, band: ETH_BAND, currency: '0x0000000000000000000000000000000000000000' });

describe('per-asset transfer limits', () => {
  it('applies an asset’s own bounds and the defaults to the others', () => {
    const [ea, eb, ua, ub] = [eth('alpha'), eth('beta'), target('alpha'), target('beta')];
    const plan = planRebalance({
      targets: [ea, eb, ua, ub],
      balances: [reading(ea, '50'), reading(eb, '5'), reading(ua, '90000'), reading(ub, '10000')],
      inFlight: [],
      minTransfer: '100',
      maxTransfer: '50000',
      transferLimits: { ETH: { minTransfer: '0.1', maxTransfer: '12' } },
    });
    const byAsset = Object.fromEntries(plan.transfers.map((t) => [t.asset, t.amountIn]));
    expect(byAsset.ETH).toBe(units(ea, '12')); // 15 needed, capped by the ETH maxTransfer
    expect(byAsset.USDC).toBe(units(ua, '40000')); // USDC keeps the defaults
  });

  it('without its own bounds, the default 100-unit minimum blocks a 15 ETH move', () => {
    const [ea, eb] = [eth('alpha'), eth('beta')];
    const plan = planRebalance({
      targets: [ea, eb],
      balances: [reading(ea, '50'), reading(eb, '5')],
      inFlight: [],
      minTransfer: '100',
      maxTransfer: '50000',
    });
    expect(plan.transfers).toHaveLength(0);
    expect(plan.decisions.map((d) => d.kind)).toContain('below_min_transfer');
  });

  it('one unreadable balance blocks every asset on that chain', () => {
    const [ea, eb, ua, ub] = [eth('alpha'), eth('beta'), target('alpha'), target('beta')];
    const plan = planRebalance({
      targets: [ea, eb, ua, ub],
      balances: [reading(ea, '50'), reading(eb, '5'), unreadable(ua), reading(ub, '10000')],
      inFlight: [],
      minTransfer: '100',
      maxTransfer: '50000',
      transferLimits: { ETH: { minTransfer: '0.1', maxTransfer: '20' } },
    });
    expect(plan.transfers).toHaveLength(0);
  });

  it('rejects inverted per-asset bounds naming the field', () => {
    const [ea, eb] = [eth('alpha'), eth('beta')];
    expect(() =>
      planRebalance({
        targets: [ea, eb],
        balances: [reading(ea, '50'), reading(eb, '5')],
        inFlight: [],
        minTransfer: '1',
        maxTransfer: '2',
        transferLimits: { ETH: { minTransfer: '5', maxTransfer: '1' } },
      }),
    ).toThrow(PlanInputError);
  });
});
