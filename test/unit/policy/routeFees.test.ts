/**
 * Fee caps per route (src/policy/routeFees.ts): the matching `policy.routes` entry's `maxFees` keys replace the
 * global ones one by one, and the result judges both the fee breakdown and the guaranteed-output floor.
 */
import { describe, expect, it } from 'vitest';
import { feeCapsFor } from '../../../packages/ballast/src/policy/routeFees.ts';
import { evaluateFees, type FeeCaps } from '../../../packages/ballast/src/policy/feePolicy.ts';
import { minimumAcceptableOutput } from '../../../packages/ballast/src/cycle/expectations.ts';
import type { QuoteDetails } from '../../../packages/protocol/src/relay/schemas.ts';
import type { RouteRule } from '../../../packages/ballast/src/planner/types.ts';
import { target } from '../planner/presets.ts';

const alpha = target('alpha');
const beta = target('beta');
const gamma = target('gamma');
const GLOBAL: FeeCaps = { totalBps: 30, totalUsd: '25', components: { execution: { usd: '2' }, swap: { bps: 20 } } };

describe('feeCapsFor', () => {
  it('keeps the global caps when no entry with maxFees matches', () => {
    expect(feeCapsFor({ maxFees: GLOBAL }, { from: alpha, to: beta })).toBe(GLOBAL);
    expect(feeCapsFor({ maxFees: GLOBAL, routes: [{ from: 'alpha', to: 'beta', minTransfer: '5' }] }, { from: alpha, to: beta })).toBe(
      GLOBAL,
    );
  });

  it('replaces only the keys the entry gives, down to usd/bps of one component', () => {
    const routes: RouteRule[] = [
      { from: 'alpha', to: 'beta', maxFees: { totalBps: 10, components: { execution: { bps: 5 }, platform: { bps: 1 } } } },
    ];
    expect(feeCapsFor({ maxFees: GLOBAL, routes }, { from: alpha, to: beta })).toEqual({
      totalBps: 10,
      totalUsd: '25',
      components: { execution: { usd: '2', bps: 5 }, swap: { bps: 20 }, platform: { bps: 1 } },
    });
    // Another route keeps the global caps.
    expect(feeCapsFor({ maxFees: GLOBAL, routes }, { from: gamma, to: beta })).toBe(GLOBAL);
  });

  it('takes the first matching entry, even if a later one has caps', () => {
    const routes: RouteRule[] = [
      { from: 'alpha', to: '*' },
      { from: '*', to: 'beta', maxFees: { totalBps: 5 } },
    ];
    expect(feeCapsFor({ maxFees: GLOBAL, routes }, { from: alpha, to: beta })).toBe(GLOBAL);
    expect(feeCapsFor({ maxFees: GLOBAL, routes }, { from: gamma, to: beta }).totalBps).toBe(5);
  });

  it("a route's stricter cap skips a quote the global caps accept", () => {
    // 1000 USD in, execution 0.02 USD (the Relay API's flat fee), total 0.02 USD.
    const details = {
      currencyIn: { amountUsd: '1000' },
      totalImpact: { usd: '-0.02', percent: '-0.002' },
      expandedPriceImpact: { execution: { usd: '-0.02' }, swap: { usd: '0' }, relay: { usd: '0' }, app: { usd: '0' } },
    } as unknown as QuoteDetails; // only the fields extractFees reads
    const routes: RouteRule[] = [{ from: 'alpha', to: 'beta', maxFees: { components: { execution: { usd: '0.01' } } } }];
    expect(evaluateFees(details, feeCapsFor({ maxFees: GLOBAL, routes }, { from: gamma, to: beta })).accepted).toBe(true);
    const skipped = evaluateFees(details, feeCapsFor({ maxFees: GLOBAL, routes }, { from: alpha, to: beta }));
    expect(skipped).toMatchObject({ accepted: false, reason: 'execution_usd' });
  });

  it("a route's totalBps sets the guaranteed-output floor of its transfers", () => {
    const routes: RouteRule[] = [{ from: 'alpha', to: 'beta', maxFees: { totalBps: 100 } }];
    const planned = { asset: 'USDC', from: alpha, to: beta, amountIn: 1_000_000_000n, reason: '' };
    const floor = (caps: FeeCaps) => minimumAcceptableOutput(planned, { slippageBps: 50, totalFeeBps: caps.totalBps ?? 0 });
    expect(floor(feeCapsFor({ maxFees: GLOBAL }, planned))).toBe(992_000_000n); // 1000 less 80 bps
    expect(floor(feeCapsFor({ maxFees: GLOBAL, routes }, planned))).toBe(985_000_000n); // 1000 less 150 bps
  });
});
