import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import { ENV, baseConfig, issueLines, loadErrorIn, tempDirPerTest } from './helpers.ts';

const tmp = tempDirPerTest();

function withLimits(limits: unknown) {
  const config = baseConfig();
  config.policy.limits = limits;
  return config;
}

describe('policy.limits', () => {
  it('loads every limit as written; the kill switch defaults to off', () => {
    const limits = {
      killSwitchFile: './HALT',
      maxTransferUsd: '50000',
      dailyNotional: { USDC: '250000.5' },
      dailyFeesUsd: '12.345678',
      maxTransfersPerHour: 20,
      allowedRecipients: ['treasury'],
    };
    const config = loadConfig(tmp.write(withLimits(limits)), ENV);
    expect(config.policy.limits).toEqual({ killSwitch: false, ...limits });
  });

  it('names the field and the fix for each bad value', () => {
    const error = loadErrorIn(
      tmp,
      withLimits({
        killSwitch: 'yes',
        maxTransferUsd: '1.1234567',
        dailyNotional: { USDC: '-5', DAI: '10' },
        dailyFeesUsd: 5,
        maxTransfersPerHour: 1.5,
        allowedRecipients: ['treasury', 'stranger'],
        typo: 1,
      }),
      ENV,
    );
    const lines = issueLines(error).join('\n');
    expect(lines).toContain('policy.limits.killSwitch: killSwitch must be true or false');
    expect(lines).toContain(
      'policy.limits.maxTransferUsd: maxTransferUsd must be a non-negative USD decimal string with at most 6 decimals',
    );
    expect(lines).toContain('policy.limits.dailyNotional.USDC: expected a non-negative decimal in whole units of the asset');
    expect(lines).toContain('policy.limits.dailyFeesUsd: write dailyFeesUsd as a quoted USD decimal string');
    expect(lines).toContain('policy.limits.maxTransfersPerHour: maxTransfersPerHour must be a whole number');
    expect(lines).toMatch(/policy\.limits.*typo/);
  });

  it('refuses assets and wallets the config does not define', () => {
    const error = loadErrorIn(tmp, withLimits({ dailyNotional: { DAI: '10' }, allowedRecipients: ['treasury', 'stranger'] }), ENV);
    expect(issueLines(error)).toEqual(
      expect.arrayContaining([
        'policy.limits.dailyNotional.DAI: unknown asset "DAI"; use a name defined under assets: or remove the entry',
        'policy.limits.allowedRecipients[1]: unknown wallet "stranger"; list names defined under wallets:',
      ]),
    );
  });
});
