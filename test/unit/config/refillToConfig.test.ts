/**
 * `policy.refillTo` (src/config/schema.ts): per asset, `target` or a share of the band such as "40%"; a malformed
 * share or an asset not under `assets:` is named with its fix.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import { ENV, baseConfig, issueLines, loadErrorIn, tempDirPerTest } from './helpers.ts';

const tmp = tempDirPerTest();

function withRefill(refillTo: unknown) {
  const config = baseConfig();
  (config.policy as Record<string, unknown>).refillTo = refillTo;
  return config;
}

describe('policy.refillTo', () => {
  it('loads target and band shares', () => {
    expect(loadConfig(tmp.write(withRefill({ USDC: '40%' })), ENV).policy.refillTo).toEqual({ USDC: '40%' });
    expect(loadConfig(tmp.write(withRefill({ USDC: 'target' })), ENV).policy.refillTo).toEqual({ USDC: 'target' });
    expect(loadConfig(tmp.write(baseConfig()), ENV).policy.refillTo).toBeUndefined();
  });

  it('names a malformed share and an unknown asset', () => {
    expect(issueLines(loadErrorIn(tmp, withRefill({ USDC: '140%' }), ENV)).join('\n')).toContain(
      'expected target or a share of the band such as "40%" (0% is min, 100% is max)',
    );
    expect(issueLines(loadErrorIn(tmp, withRefill({ DOGE: '40%' }), ENV))).toContain(
      'policy.refillTo.DOGE: unknown asset "DOGE"; use a name defined under assets: or remove the entry',
    );
  });
});
