/**
 * Planner settings in the config: weighted holdings (`weight`, `toleranceBps` instead of min/target/max) and
 * `policy.sweepTo`: how they load, and the errors
 * for mixed or incomplete forms, each naming the YAML path and the fix.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import { ENV, USDC_ARB, USDC_BASE, baseConfig, issueLines, loadErrorIn, tempDirPerTest } from './helpers.ts';

const tmp = tempDirPerTest();

function weightedConfig(): Record<string, any> {
  const c = baseConfig();
  c.assets.USDC = [
    { chain: 'base', currency: USDC_BASE, wallet: 'treasury', weight: 40, toleranceBps: 250 },
    { chain: 'arbitrum', currency: USDC_ARB, wallet: 'treasury', weight: 60 },
  ];
  return c;
}

describe('config weighted holdings', () => {
  it('load with their weight and tolerance (default 100 bps); the band is computed each cycle', () => {
    const entries = loadConfig(tmp.write(weightedConfig()), ENV).assets.USDC!;
    expect(entries.map((e) => [e.chain, e.weight, e.toleranceBps, e.min, e.target, e.max])).toEqual([
      ['base', 40, 250, '0', '0', '0'],
      ['arbitrum', 60, 100, '0', '0', '0'],
    ]);
  });

  it.each([
    [
      'weight beside a band',
      (c: any) => (c.assets.USDC[0].min = '1'),
      'assets.USDC[0].min: set either weight or min/target/max, not both; remove min or weight',
    ],
    [
      'a band missing a field',
      (c: any) => {
        c.assets.USDC = baseConfig().assets.USDC;
        delete c.assets.USDC[1].target;
      },
      'assets.USDC[1].target: missing; a holding needs min, target and max (whole units), or a weight (missing: target)',
    ],
    [
      'weights and bands mixed in one asset',
      (c: any) => (c.assets.USDC[1] = baseConfig().assets.USDC[1]),
      'assets.USDC[1]: USDC mixes weighted holdings ([0]) with min/target/max bands ([1]); give every holding of USDC a weight, or none',
    ],
    [
      'a tolerance without a weight',
      (c: any) => {
        c.assets.USDC = baseConfig().assets.USDC;
        c.assets.USDC[0].toleranceBps = 50;
      },
      'assets.USDC[0].toleranceBps: toleranceBps applies to a weighted holding only; set weight or remove it',
    ],
  ])('%s is refused in one line naming the path', (_name, change, line) => {
    const c = weightedConfig();
    change(c);
    expect(issueLines(loadErrorIn(tmp, c, ENV))).toEqual([line]);
  });

  it('refuses a weight that is not a positive number', () => {
    const c = weightedConfig();
    c.assets.USDC[0].weight = 0;
    expect(issueLines(loadErrorIn(tmp, c, ENV)).join('\n')).toMatch(/assets\.USDC\[0\]\.weight: weight must be above 0/);
  });
});

describe('config policy.sweepTo', () => {
  it('names a holding of the asset; anything else is refused naming the key', () => {
    const c = baseConfig();
    c.policy.sweepTo = { USDC: 'arbitrum' };
    expect(loadConfig(tmp.write(c), ENV).policy.sweepTo).toEqual({ USDC: 'arbitrum' });
    c.policy.sweepTo = { USDC: 'optimism' };
    expect(issueLines(loadErrorIn(tmp, c, ENV))).toEqual([
      'policy.sweepTo.USDC: optimism is not a holding of USDC under assets:; name one of its chains (or <chain>:<wallet>), or remove the entry',
    ]);
  });
});
