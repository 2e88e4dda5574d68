/**
 * `policy.strategy.<asset>` (src/config/strategySchema.ts): the flow-aware strategy loads with its defaults, and
 * every mistake is refused naming the YAML path and the fix.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import { ENV, baseConfig, issueLines, loadErrorIn, tempDirPerTest } from './helpers.ts';

const tmp = tempDirPerTest();

describe('config policy.strategy', () => {
  it('loads a flow strategy with deadbandPerHour "0" and minSamples 3 by default', () => {
    const c = baseConfig();
    c.policy.strategy = { USDC: { kind: 'flow', halfLifeSec: 3600, horizonSec: 900 } };
    expect(loadConfig(tmp.write(c), ENV).policy.strategy).toEqual({
      USDC: { kind: 'flow', halfLifeSec: 3600, horizonSec: 900, deadbandPerHour: '0', minSamples: 3 },
    });
  });

  it('is absent unless configured', () => {
    expect(loadConfig(tmp.write(baseConfig()), ENV).policy.strategy).toBeUndefined();
  });

  it.each([
    [{ kind: 'ema', halfLifeSec: 3600, horizonSec: 900 }, /policy\.strategy\.USDC\.kind: kind must be "flow"/],
    [{ kind: 'flow', horizonSec: 900 }, /policy\.strategy\.USDC\.halfLifeSec: required but missing/],
    [
      { kind: 'flow', halfLifeSec: 3600, horizonSec: 0 },
      /policy\.strategy\.USDC\.horizonSec: horizonSec must be between 1 and 604800 seconds/,
    ],
    [
      { kind: 'flow', halfLifeSec: 3600, horizonSec: 1.5 },
      /policy\.strategy\.USDC\.horizonSec: horizonSec must be a whole number of seconds/,
    ],
    [
      { kind: 'flow', halfLifeSec: 3600, horizonSec: 900, deadbandPerHour: -5 },
      /policy\.strategy\.USDC\.deadbandPerHour: write deadbandPerHour as a quoted decimal string/,
    ],
    [
      { kind: 'flow', halfLifeSec: 3600, horizonSec: 900, minSamples: -1 },
      /policy\.strategy\.USDC\.minSamples: minSamples must be between 0 and 1000/,
    ],
    [{ kind: 'flow', halfLifeSec: 3600, horizonSec: 900, horizon: 900 }, /policy\.strategy\.USDC/],
  ])('refuses %j naming the field', (entry, message) => {
    const c = baseConfig();
    c.policy.strategy = { USDC: entry };
    expect(issueLines(loadErrorIn(tmp, c, ENV)).join('\n')).toMatch(message);
  });

  it('refuses a strategy for an asset that is not under assets:', () => {
    const c = baseConfig();
    c.policy.strategy = { DAI: { kind: 'flow', halfLifeSec: 3600, horizonSec: 900 } };
    expect(issueLines(loadErrorIn(tmp, c, ENV))).toEqual([
      'policy.strategy.DAI: unknown asset "DAI"; use a name defined under assets: or remove the entry',
    ]);
  });
});
