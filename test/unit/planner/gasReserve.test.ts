/**
 * The gas reserve of a native holding (`chains.<name>.gasReserve`, TargetBand.reserve): a surplus gives down to its
 * target or its reserve, whichever is higher, so a signer always keeps what pays for its next transactions.
 */
import { describe, expect, it } from 'vitest';
import { planRebalance } from '../../../packages/ballast/src/planner/planRebalance.ts';
import type { TargetBand } from '../../../packages/ballast/src/planner/types.ts';
import { wholeToBaseUnits } from '../../../packages/protocol/src/core/units.ts';
import { reading, target } from './presets.ts';

const band = { min: '1', target: '2', max: '3' };
const eth = (chain: string, reserve?: string): TargetBand => ({
  ...target(chain, { asset: 'ETH', decimals: 18, band, currency: '0x0000000000000000000000000000000000000000' }),
  ...(reserve === undefined ? {} : { reserve: wholeToBaseUnits(reserve, 18) }),
});
const plan = (targets: TargetBand[], balances: string[]) =>
  planRebalance({
    targets,
    balances: targets.map((t, i) => reading(t, balances[i]!)),
    inFlight: [],
    minTransfer: '0.01',
    maxTransfer: '100',
  });

describe('gas reserve', () => {
  it('a reserve below the target changes nothing: the surplus gives down to target', () => {
    const p = plan([eth('alpha', '0.5'), eth('beta')], ['6', '0']);
    expect(p.transfers.map((t) => t.amountIn)).toEqual([wholeToBaseUnits('2', 18)]); // beta's need: 2, alpha could give 4
  });

  it('a reserve above the target caps what the holding gives and says why', () => {
    const p = plan([eth('alpha', '5'), eth('beta')], ['6', '0']);
    expect(p.transfers.map((t) => [t.from.chain, t.to.chain, t.amountIn])).toEqual([['alpha', 'beta', wholeToBaseUnits('1', 18)]]);
    expect(p.decisions.find((d) => d.kind === 'surplus')?.detail).toBe(
      'alpha above max: 6 > 3 ETH; can give 1 down to its gas reserve 5 (above target 2)',
    );
    expect(p.decisions.find((d) => d.kind === 'deficit_unmet')?.chain).toBe('beta');
  });

  it('a holding at or under its reserve gives nothing, even above max', () => {
    const p = plan([eth('alpha', '10'), eth('beta')], ['6', '0']);
    expect(p.transfers).toEqual([]);
    expect(p.decisions.find((d) => d.chain === 'alpha')?.detail).toBe('alpha above max: 6 > 3 ETH; gives nothing: its gas reserve is 10');
  });
});
