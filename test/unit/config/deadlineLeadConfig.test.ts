/**
 * `chains.<name>.minDeadlineLeadSec` (all VMs): loaded as written, handed to the chain's adapter, whose
 * `minDeadlineLeadSec` then uses it instead of the VM default; a lead that is not a positive whole number of
 * seconds is a configuration error naming the key.
 */
import { describe, expect, it } from 'vitest';
import { createChainAdapters } from '../../../packages/ballast/src/app/chainAdapters.ts';
import { loadConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import { issueLines, loadErrorIn, MULTI_ENV, multiVmConfig, tempDirPerTest } from './helpers.ts';

const tmp = tempDirPerTest();

describe('chains.<name>.minDeadlineLeadSec', () => {
  it('overrides the VM default per chain; chains without it keep the default', () => {
    const c = multiVmConfig();
    c.chains.bitcoin.minDeadlineLeadSec = 3000;
    c.chains.base.minDeadlineLeadSec = 200;
    const config = loadConfig(tmp.write(c), MULTI_ENV);
    expect(config.chains.bitcoin?.minDeadlineLeadSec).toBe(3000);
    expect(config.chains.solana?.minDeadlineLeadSec).toBeUndefined();
    const adapters = createChainAdapters(config);
    // The configured lead is the deposit's; each transaction before it adds 30 s.
    expect(adapters.get('bitcoin')!.minDeadlineLeadSec(1n, 1)).toBe(3000);
    expect(adapters.get('bitcoin')!.minDeadlineLeadSec(10n ** 9n, 1)).toBe(3000); // high value too: the operator's number
    expect(adapters.get('base')!.minDeadlineLeadSec(1n, 2)).toBe(230);
    expect(adapters.get('solana')!.minDeadlineLeadSec(1n, 1)).toBe(90);
  });

  it('without it, Bitcoin defaults to 600 s a block × the confirmations the amount needs + 600 s', () => {
    const c = multiVmConfig();
    c.chains.bitcoin.confirmations = 2;
    c.chains.bitcoin.highValueConfirmations = 3;
    c.chains.bitcoin.highValueSats = '50000000';
    const adapters = createChainAdapters(loadConfig(tmp.write(c), MULTI_ENV));
    expect(adapters.get('bitcoin')!.minDeadlineLeadSec(49_999_999n, 1)).toBe(600 * 2 + 600);
    expect(adapters.get('bitcoin')!.minDeadlineLeadSec(50_000_000n, 1)).toBe(600 * 3 + 600);
    expect(adapters.get('base')!.minDeadlineLeadSec(1n, 1)).toBe(90);
  });

  it.each([0, 1.5, -10, '600'])('refuses %j with a message naming the key', (value) => {
    const c = multiVmConfig();
    c.chains.bitcoin.minDeadlineLeadSec = value;
    const lines = issueLines(loadErrorIn(tmp, c, MULTI_ENV));
    expect(lines.some((l) => l.startsWith('chains.bitcoin.minDeadlineLeadSec: '))).toBe(true);
  });
});
