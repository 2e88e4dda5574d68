/**
 * What `ballast transfer --queue` checks before it queues (src/cycle/queuedTransfers.ts `checkQueuedRequest`): the
 * holdings, one asset, the route rules and the route's (else the asset's) maxTransfer, as the lock holder will.
 */
import { describe, expect, it } from 'vitest';
import type { LoadedConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import { checkQueuedRequest } from '../../../packages/ballast/src/cycle/queuedTransfers.ts';

const config = (policy: Partial<LoadedConfig['policy']> = {}) =>
  ({
    assets: {
      USDC: [
        { chain: 'alpha', wallet: 'treasury' },
        { chain: 'beta', wallet: 'treasury' },
        { chain: 'beta', wallet: 'ops' },
      ],
    },
    policy: { minTransfer: '100', maxTransfer: '50000', ...policy },
  }) as unknown as Pick<LoadedConfig, 'assets' | 'policy'>; // only the fields the check reads
const req = (to: string, amount: string) => ({
  from: { chain: 'alpha', asset: 'USDC' },
  to: { chain: 'beta', asset: 'USDC', wallet: to },
  amount,
});

describe('checkQueuedRequest', () => {
  it("accepts up to the route's own maxTransfer, above the asset's", () => {
    const c = config({ routes: [{ from: 'alpha', to: 'beta', allow: true, maxTransfer: '80000' }] });
    expect(() => checkQueuedRequest(c, req('treasury', '70000'))).not.toThrow();
    expect(() => checkQueuedRequest(c, req('treasury', '80000.5'))).toThrow(
      '--amount 80000.5: above policy.routes[0].maxTransfer (80000 USDC)',
    );
    expect(() => checkQueuedRequest(config(), req('treasury', '70000'))).toThrow('above policy.maxTransfer (50000 USDC)');
  });

  it('refuses a route the rules refuse, naming the rule', () => {
    const c = config({ routes: [{ from: 'alpha', to: 'beta:ops', allow: false }] });
    expect(() => checkQueuedRequest(c, req('ops', '10'))).toThrow(
      '--from alpha --to beta: not allowed by policy.routes[0]; nothing was queued',
    );
    expect(() => checkQueuedRequest(c, req('treasury', '10'))).not.toThrow();
  });

  it('needs the wallet where several hold the asset, and a configured holding', () => {
    expect(() => checkQueuedRequest(config(), { ...req('ops', '10'), to: { chain: 'beta', asset: 'USDC' } })).toThrow(
      '--to beta:USDC: 2 wallets hold it there',
    );
    expect(() => checkQueuedRequest(config(), { ...req('ops', '10'), from: { chain: 'gamma', asset: 'USDC' } })).toThrow(
      '--from gamma:USDC: no such holding under assets:',
    );
    expect(() => checkQueuedRequest(config(), req('ops', '0'))).toThrow('--amount must be above 0');
  });
});
