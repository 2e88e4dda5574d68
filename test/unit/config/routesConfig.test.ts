/**
 * `policy.routes`, `policy.onlyListedRoutes` and `policy.batchSmallDeficits` in the config: how they load, and
 * the errors (one line each, naming the YAML path and the fix) for unknown names, bounds that leave nothing to
 * move, fee caps outside the global rules, and entries that can never match.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import { ENV, USDC_ARB, baseConfig, issueLines, loadErrorIn, tempDirPerTest } from './helpers.ts';

const tmp = tempDirPerTest();

/** The base config (USDC on base and arbitrum, wallet treasury) with `routes` and extra policy keys. */
function withRoutes(routes: unknown[], policy: Record<string, unknown> = {}): Record<string, any> {
  const c = baseConfig();
  c.policy = { ...c.policy, routes, ...policy };
  return c;
}
const errors = (c: unknown): string[] => issueLines(loadErrorIn(tmp, c, ENV));

describe('config policy.routes', () => {
  it('loads entries with their defaults; batching is on and onlyListedRoutes off unless set', () => {
    const policy = loadConfig(
      tmp.write(
        withRoutes([
          {
            from: 'base',
            to: 'arbitrum:treasury',
            asset: 'USDC',
            minTransfer: '500',
            maxTransfer: '20000',
            maxFees: { totalBps: 10, components: { execution: { usd: '0.5' } } },
          },
          { from: '*', to: 'base', allow: false },
        ]),
      ),
      ENV,
    ).policy;
    expect(policy.routes).toEqual([
      {
        from: 'base',
        to: 'arbitrum:treasury',
        asset: 'USDC',
        allow: true,
        minTransfer: '500',
        maxTransfer: '20000',
        maxFees: { totalBps: 10, components: { execution: { usd: '0.5' } } },
      },
      { from: '*', to: 'base', allow: false },
    ]);
    expect([policy.onlyListedRoutes, policy.batchSmallDeficits]).toEqual([false, true]);
    const plain = loadConfig(tmp.write(baseConfig()), ENV).policy;
    expect([plain.routes, plain.onlyListedRoutes, plain.batchSmallDeficits]).toEqual([undefined, false, true]);
  });

  it.each([
    [
      'an unknown chain',
      [{ from: 'optimism', to: 'base' }],
      'policy.routes[0].from: unknown chain "optimism"; use a name defined under chains:, or "*"',
    ],
    [
      'an unknown wallet',
      [{ from: 'base', to: 'arbitrum:ops' }],
      'policy.routes[0].to: unknown wallet "ops"; use a name defined under wallets:, or write just the chain',
    ],
    [
      'an unknown asset',
      [{ from: 'base', to: 'arbitrum', asset: 'USDT' }],
      'policy.routes[0].asset: unknown asset "USDT"; use a name defined under assets:, or remove asset to match every asset',
    ],
    [
      'min above max',
      [{ from: 'base', to: 'arbitrum', minTransfer: '500', maxTransfer: '100' }],
      'policy.routes[0].minTransfer: minTransfer 500 is above maxTransfer 100; lower it or raise maxTransfer',
    ],
    [
      "a min above the asset's max",
      [{ from: 'base', to: 'arbitrum', minTransfer: '60000' }],
      "policy.routes[0].minTransfer: minTransfer 60000 is above USDC's maxTransfer 50000 (policy), so nothing could move; lower it or give the entry its own maxTransfer",
    ],
    [
      "a max below the asset's min",
      [{ from: 'base', to: 'arbitrum', maxTransfer: '50' }],
      "policy.routes[0].maxTransfer: maxTransfer 50 is below USDC's minTransfer 100 (policy), so nothing could move; raise it or give the entry its own minTransfer",
    ],
    [
      'a zero max',
      [{ from: 'base', to: 'arbitrum', maxTransfer: '0' }],
      'policy.routes[0].maxTransfer: must be above 0; set the largest transfer on this route, or allow: false to refuse it',
    ],
    [
      'bounds on a refused route',
      [{ from: 'base', to: 'arbitrum', allow: false, maxTransfer: '10' }],
      'policy.routes[0].maxTransfer: a route with allow: false moves nothing; remove maxTransfer or allow: false',
    ],
    [
      'fee caps that would accept losing everything',
      [{ from: 'base', to: 'arbitrum', maxFees: { totalBps: 9990 } }],
      'policy.routes[0].maxFees.totalBps: slippageBps + totalBps is 10040 bps on this route, which would accept losing the whole transfer; keep the sum well below 10000',
    ],
    [
      'the same holding at both ends',
      [{ from: 'base', to: 'base' }],
      'policy.routes[0]: can never match: no two holdings under assets: form a route from base to base; fix from, to or asset, or remove the entry',
    ],
    [
      'an entry shadowed by an earlier one',
      [
        { from: '*', to: 'arbitrum' },
        { from: 'base', to: 'arbitrum', asset: 'USDC', allow: false },
      ],
      'policy.routes[1]: can never match: every route from base to arbitrum for USDC is matched first by policy.routes[0] (the first matching entry wins); move it above or remove it',
    ],
    [
      'onlyListedRoutes with nothing allowed',
      { routes: [{ from: 'base', to: 'arbitrum', allow: false }], onlyListedRoutes: true },
      'policy.onlyListedRoutes: true, but no policy.routes entry allows a route, so nothing could ever move; list the allowed routes or set it to false',
    ],
  ])('refuses %s in one line naming the path', (_what, routes, line) => {
    const c = Array.isArray(routes) ? withRoutes(routes) : withRoutes([], routes);
    expect(errors(c)).toEqual([line]);
  });

  it("checks a one-sided bound against the asset's own transferLimits", () => {
    const c = withRoutes([{ from: 'base', to: 'arbitrum', asset: 'USDC', minTransfer: '2000' }], {
      transferLimits: { USDC: { minTransfer: '10', maxTransfer: '1000' } },
    });
    expect(errors(c)).toEqual([
      "policy.routes[0].minTransfer: minTransfer 2000 is above USDC's maxTransfer 1000 (policy.transferLimits.USDC), so nothing could move; lower it or give the entry its own maxTransfer",
    ]);
  });

  it('an entry for one wallet of a chain is reachable; one for a wallet holding nothing there is not', () => {
    const c = withRoutes([{ from: 'base', to: 'arbitrum:treasury2' }]);
    c.wallets.treasury2 = { ...c.wallets.treasury };
    c.assets.USDC.push({ chain: 'arbitrum', currency: USDC_ARB, wallet: 'treasury2', min: '1', target: '2', max: '3' });
    expect(loadConfig(tmp.write(c), ENV).policy.routes).toHaveLength(1);
    c.policy.routes = [{ from: 'base:treasury2', to: 'arbitrum' }];
    expect(errors(c)).toEqual([
      'policy.routes[0]: can never match: no two holdings under assets: form a route from base:treasury2 to arbitrum; fix from, to or asset, or remove the entry',
    ]);
  });

  it('refuses malformed ends and a misspelt key by the schema, naming the path', () => {
    expect(errors(withRoutes([{ from: 'base:', to: 'arbitrum' }])).join('\n')).toMatch(
      /policy\.routes\[0\]\.from: from must be "<chain>", "<chain>:<wallet>" or "\*"/,
    );
    expect(errors(withRoutes([{ from: 'base', to: 'arbitrum', maxFee: { totalBps: 5 } }])).join('\n')).toMatch(/policy\.routes\[0\]/);
    expect(errors(withRoutes([{ from: 'base', to: 'arbitrum', maxFees: { totalBps: 1.5 } }])).join('\n')).toMatch(
      /policy\.routes\[0\]\.maxFees\.totalBps: totalBps must be an integer number of basis points/,
    );
  });
});
