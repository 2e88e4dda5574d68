/**
 * `chains.<name>.gasReserve` (src/config/chainSchema.ts): the native balance the planner never moves out of a
 * signer wallet (src/planner/planRebalance.ts, TargetBand.reserve).
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import { ENV, baseConfig, issueLines, loadErrorIn, tempDirPerTest } from './helpers.ts';

const tmp = tempDirPerTest();

describe('config chains.<name>.gasReserve', () => {
  it('is kept as written; a malformed one names the key and the form', () => {
    const c = baseConfig();
    c.chains.base.gasReserve = '0.25';
    expect(loadConfig(tmp.write(c), ENV).chains.base?.gasReserve).toBe('0.25');
    c.chains.base.gasReserve = 0.25;
    expect(issueLines(loadErrorIn(tmp, c, ENV)).join('\n')).toMatch(/chains\.base\.gasReserve: .*quoted decimal string/);
  });
});
