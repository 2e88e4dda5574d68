import { describe, expect, it } from 'vitest';
import { evaluateFees, FeePolicyConfigError, type FeeCaps, type FeeDecision } from '../../../packages/ballast/src/policy/feePolicy.ts';
import type { QuoteDetails } from '../../../packages/protocol/src/relay/schemas.ts';
import { offlineQuote } from '../../fixtures/offlineQuote.ts';
import { QUOTE_CASES } from '../../fixtures/quoteCase.ts';
import { loadQuoteFixture, relayFixturesPresent } from '../../fixtures/relay.ts';

/**
 * Genuine fixture fees (input 99.9832 USD): total 0.049092 USD (4.91 bps), execution 0.02294 (2.29 bps),
 * swap 0.016154 (1.61 bps), platform keyed `relay` 0.009997 (0.99 bps), app 0, sponsored 0.072433.
 */
function details(): QuoteDetails {
  return loadQuoteFixture().details;
}

/** Details of the offline quote: a realistic base for tests that set their own numbers. */
function baseDetails(): QuoteDetails {
  return offlineQuote().quote.details;
}

/** Details with a round input of 200 USD and the given component USD values (negative = cost). */
function synthetic(components: Record<string, string>, totalUsd?: string): QuoteDetails {
  const d = baseDetails();
  d.currencyIn.amountUsd = '200';
  d.expandedPriceImpact = Object.fromEntries(Object.entries(components).map(([k, usd]) => [k, { usd }]));
  if (totalUsd === undefined) delete d.totalImpact;
  else d.totalImpact = { usd: totalUsd };
  return d;
}

function skipped(decision: FeeDecision) {
  if (decision.accepted)
    throw new Error(`expected a skip, got accepted: ${JSON.stringify(decision, (_k, v) => (typeof v === 'bigint' ? `${v}` : v))}`);
  return decision;
}

/** A decimal USD string (at most 6 fractional digits) in micro-USD; a test-side reading, independent of the policy's. */
function usdMicros(usd: string): bigint {
  const m = /^(-?)([0-9]+)(?:\.([0-9]{0,6}))?$/.exec(usd);
  if (!m) throw new Error(`test cannot read USD "${usd}"`);
  const micros = BigInt(m[2]!) * 1_000_000n + BigInt((m[3] ?? '').padEnd(6, '0'));
  return m[1] === '-' ? -micros : micros;
}

/** micro-USD as a decimal string. */
function usdString(micros: bigint): string {
  return `${micros / 1_000_000n}.${(micros % 1_000_000n).toString().padStart(6, '0')}`;
}

/** The cost a details object states for each capped subject, micro-USD (a positive USD value is no cost). */
function statedCosts(d: QuoteDetails): Record<'total' | 'execution' | 'swap' | 'platform' | 'app', bigint> {
  const cost = (usd: string | undefined) => (usd === undefined ? 0n : usdMicros(usd) < 0n ? -usdMicros(usd) : 0n);
  const e = d.expandedPriceImpact ?? {};
  const platform = e['relay'] ?? e['service'] ?? e['platform'];
  return {
    total: cost(d.totalImpact?.usd),
    execution: cost(e['execution']?.usd),
    swap: cost(e['swap']?.usd),
    platform: cost(platform?.usd),
    app: cost(e['app']?.usd),
  };
}

function usdCap(subject: string, usd: string): FeeCaps {
  return subject === 'total' ? { totalUsd: usd } : { components: { [subject]: { usd } } };
}

function bpsCap(subject: string, bps: number): FeeCaps {
  return subject === 'total' ? { totalBps: bps } : { components: { [subject]: { bps } } };
}

describe.each(QUOTE_CASES.map((c) => [c.name, c] as const))('evaluateFees on the %s quote', (_name, c) => {
  const d = () => c.load().quote.details;
  const costs = statedCosts(d());
  const inputMicros = usdMicros(d().currencyIn.amountUsd!); // both quotes state the input USD
  const charged = Object.entries(costs).filter(([, micros]) => micros > 0n);

  it('extracts the breakdown the details state, in micro-USD', () => {
    const decision = evaluateFees(d(), { totalBps: 10_000 });
    expect(decision.accepted).toBe(true);
    expect(decision.breakdown).toEqual({
      inputUsdMicros: inputMicros,
      components: { execution: costs.execution, swap: costs.swap, platform: costs.platform, app: costs.app },
      sponsoredMicros: usdMicros(d().expandedPriceImpact!['sponsored']!.usd),
      totalMicros: costs.total,
    });
    expect(charged.length).toBeGreaterThan(1); // the total and at least one component cost something
  });

  it.each(charged)('%s_usd: a cap at the stated cost passes, one micro-USD below skips', (subject, micros) => {
    expect(evaluateFees(d(), usdCap(subject, usdString(micros))).accepted).toBe(true);
    const decision = skipped(evaluateFees(d(), usdCap(subject, usdString(micros - 1n))));
    expect(decision.reason).toBe(`${subject}_usd`);
    expect(decision.exceeded).toEqual([`${subject}_usd`]);
  });

  it.each(charged)('%s_bps: the smallest integer cap at or above the cost passes, the one below skips', (subject, micros) => {
    const atOrAbove = Number((micros * 10_000n + inputMicros - 1n) / inputMicros); // ceil(cost / input in bps)
    expect(evaluateFees(d(), bpsCap(subject, atOrAbove)).accepted).toBe(true);
    const decision = skipped(evaluateFees(d(), bpsCap(subject, atOrAbove - 1)));
    expect(decision.reason).toBe(`${subject}_bps`);
    expect(decision.exceeded).toEqual([`${subject}_bps`]);
  });

  it('accepts anything when no cap is configured', () => {
    const x = d();
    delete x.expandedPriceImpact;
    delete x.totalImpact;
    expect(evaluateFees(x, {}).accepted).toBe(true);
  });
});

describe.skipIf(!relayFixturesPresent)('evaluateFees: the genuine fixture', () => {
  it('extracts the breakdown in micro-USD, reading the live `relay` key as the platform component', () => {
    const decision = evaluateFees(details(), { totalBps: 100 });
    expect(decision.accepted).toBe(true);
    expect(decision.breakdown).toEqual({
      inputUsdMicros: 99_983_200n,
      components: { execution: 22_940n, swap: 16_154n, platform: 9_997n, app: 0n },
      sponsoredMicros: 72_433n,
      totalMicros: 49_092n,
    });
  });

  it('passes generous caps on everything', () => {
    const caps: FeeCaps = {
      totalBps: 10,
      totalUsd: '1',
      components: {
        execution: { usd: '0.05', bps: 5 },
        swap: { usd: '0.05', bps: 5 },
        platform: { usd: '0.05', bps: 5 },
        app: { usd: '0.01', bps: 1 },
      },
    };
    expect(evaluateFees(details(), caps).accepted).toBe(true);
  });

  const usdCases: Array<[string, FeeCaps, FeeCaps]> = [
    ['total_usd', { totalUsd: '0.049092' }, { totalUsd: '0.049091' }],
    ['execution_usd', { components: { execution: { usd: '0.02294' } } }, { components: { execution: { usd: '0.022939' } } }],
    ['swap_usd', { components: { swap: { usd: '0.016154' } } }, { components: { swap: { usd: '0.016153' } } }],
    ['platform_usd', { components: { platform: { usd: '0.009997' } } }, { components: { platform: { usd: '0.009996' } } }],
  ];
  it.each(usdCases)('%s: at the value passes, one micro-USD below skips', (reason, at, below) => {
    expect(evaluateFees(details(), at).accepted).toBe(true);
    const decision = skipped(evaluateFees(details(), below));
    expect(decision.reason).toBe(reason);
    expect(decision.exceeded).toEqual([reason]);
  });

  // Fixture bps are fractional, so the integer cap just above passes and the one just below skips.
  const bpsCases: Array<[string, FeeCaps, FeeCaps]> = [
    ['total_bps', { totalBps: 5 }, { totalBps: 4 }],
    ['execution_bps', { components: { execution: { bps: 3 } } }, { components: { execution: { bps: 2 } } }],
    ['swap_bps', { components: { swap: { bps: 2 } } }, { components: { swap: { bps: 1 } } }],
    ['platform_bps', { components: { platform: { bps: 1 } } }, { components: { platform: { bps: 0 } } }],
  ];
  it.each(bpsCases)('%s: the integer cap above passes, the one below skips', (reason, above, below) => {
    expect(evaluateFees(details(), above).accepted).toBe(true);
    const decision = skipped(evaluateFees(details(), below));
    expect(decision.reason).toBe(reason);
    expect(decision.exceeded).toEqual([reason]);
  });

  it('uses the sum of the component costs when totalImpact is absent', () => {
    const d = details();
    delete d.totalImpact;
    const decision = skipped(evaluateFees(d, { totalUsd: '0.049' }));
    expect(decision.breakdown?.totalMicros).toBe(22_940n + 16_154n + 9_997n);
    expect(decision.reason).toBe('total_usd');
  });

  it('reports every exceeded cap in the fixed order and names the first as reason', () => {
    const caps: FeeCaps = {
      totalBps: 4,
      totalUsd: '0.04',
      components: { swap: { bps: 1, usd: '0.01' }, execution: { usd: '0.01' }, platform: { bps: 1 } },
    };
    const decision = skipped(evaluateFees(details(), caps));
    expect(decision.exceeded).toEqual(['total_usd', 'total_bps', 'execution_usd', 'swap_usd', 'swap_bps']);
    expect(decision.reason).toBe('total_usd');
    expect(decision.detail.split('; ')).toHaveLength(5);
    expect(decision.detail).toMatch(/^total fee 0\.049092 USD \(4\.91 bps of 99\.9832 USD\) exceeds cap 0\.04 USD; /);
  });
});

describe('evaluateFees: exact boundaries', () => {
  it('app: a zero cost passes a zero cap; a 0.01 USD (0.5 bps of 200 USD) app fee skips either cap', () => {
    const none = synthetic({ execution: '-0.01', swap: '0', relay: '0', app: '0' }, '-0.01');
    expect(evaluateFees(none, { components: { app: { usd: '0', bps: 0 } } }).accepted).toBe(true);
    const d = synthetic({ execution: '0', swap: '0', relay: '0', app: '-0.01' });
    expect(evaluateFees(d, { components: { app: { usd: '0.01' } } }).accepted).toBe(true);
    expect(skipped(evaluateFees(d, { components: { app: { usd: '0.009999' } } })).reason).toBe('app_usd');
    expect(skipped(evaluateFees(d, { components: { app: { bps: 0 } } })).reason).toBe('app_bps');
    expect(evaluateFees(d, { components: { app: { bps: 1 } } }).accepted).toBe(true);
  });

  it('bps boundary is exact: 0.52 USD of 200 USD is 26 bps, passing cap 26 and skipping cap 25', () => {
    const d = synthetic({ execution: '0', swap: '-0.52', relay: '0', app: '0' });
    expect(evaluateFees(d, { components: { swap: { bps: 26 } } }).accepted).toBe(true);
    const decision = skipped(evaluateFees(d, { components: { swap: { bps: 25 } } }));
    expect(decision.reason).toBe('swap_bps');
    // One micro-USD more than 26 bps already exceeds cap 26.
    const over = synthetic({ execution: '0', swap: '-0.520001', relay: '0', app: '0' });
    expect(skipped(evaluateFees(over, { components: { swap: { bps: 26 } } })).reason).toBe('swap_bps');
  });

  it('writes a detail naming the cost, its bps of the input and the cap', () => {
    const d = synthetic({ execution: '0', swap: '-0.52', relay: '0', app: '0' });
    const decision = skipped(evaluateFees(d, { components: { swap: { bps: 20 } } }));
    expect(decision.detail).toBe('swap fee 0.52 USD (26 bps of 200 USD) exceeds cap 20 bps');
  });
});

describe('evaluateFees: reading the components', () => {
  it.each(['platform', 'service', 'relay'])('reads the platform component keyed %s', (key) => {
    const d = synthetic({ execution: '0', swap: '0', [key]: '-0.3', app: '0' });
    const decision = skipped(evaluateFees(d, { components: { platform: { usd: '0.2' } } }));
    expect(decision.reason).toBe('platform_usd');
    expect(decision.breakdown?.components.platform).toBe(300_000n);
  });

  it('counts a positive component (rebate) and a positive total as zero cost', () => {
    const d = synthetic({ execution: '-0.02', swap: '0.5', relay: '0', app: '0' }, '0.48');
    const decision = evaluateFees(d, { totalUsd: '0', components: { swap: { usd: '0' } } });
    expect(decision.accepted).toBe(true);
    expect(decision.breakdown?.components.swap).toBe(0n);
    expect(decision.breakdown?.totalMicros).toBe(0n);
  });

  it('uses totalImpact as the total, and the sum of component costs when it is absent', () => {
    const d = synthetic({ execution: '-0.02', swap: '-0.03', relay: '-0.01', app: '0' }, '-0.07');
    expect(evaluateFees(d, {}).breakdown?.totalMicros).toBe(70_000n);
    delete d.totalImpact;
    const decision = skipped(evaluateFees(d, { totalUsd: '0.059999' }));
    expect(decision.breakdown?.totalMicros).toBe(60_000n);
    expect(decision.reason).toBe('total_usd');
  });

  it('reports every exceeded cap in the fixed order and names the first as reason', () => {
    // 200 USD input: total 0.31 USD (15.5 bps), execution 0.1 (5 bps), swap 0.2 (10 bps), platform 0.01 (0.5 bps)
    const d = synthetic({ execution: '-0.1', swap: '-0.2', relay: '-0.01', app: '0' }, '-0.31');
    const caps: FeeCaps = {
      totalBps: 15,
      totalUsd: '0.3',
      components: { swap: { bps: 9, usd: '0.1' }, execution: { usd: '0.05' }, platform: { bps: 1 } },
    };
    const decision = skipped(evaluateFees(d, caps));
    expect(decision.exceeded).toEqual(['total_usd', 'total_bps', 'execution_usd', 'swap_usd', 'swap_bps']);
    expect(decision.reason).toBe('total_usd');
    expect(decision.detail.split('; ')).toHaveLength(5);
    expect(decision.detail).toMatch(/^total fee 0\.31 USD \(15\.5 bps of 200 USD\) exceeds cap 0\.3 USD; /);
  });
});

describe('evaluateFees: missing data fails closed', () => {
  it('fee_data_missing: a component cap without expandedPriceImpact', () => {
    const d = baseDetails();
    delete d.expandedPriceImpact;
    const decision = skipped(evaluateFees(d, { components: { execution: { usd: '100' } } }));
    expect(decision.reason).toBe('fee_data_missing');
    expect(decision.breakdown).toBeNull();
    // A total cap alone still works from totalImpact.
    expect(evaluateFees(d, { totalUsd: '1' }).accepted).toBe(true);
  });

  it('fee_data_missing: a capped component absent from expandedPriceImpact', () => {
    const d = synthetic({ execution: '0', relay: '0', app: '0' }, '-0.1');
    const decision = skipped(evaluateFees(d, { components: { swap: { bps: 1000 } } }));
    expect(decision.reason).toBe('fee_data_missing');
    expect(decision.detail).toContain('expandedPriceImpact swap');
    expect(evaluateFees(d, { components: { execution: { bps: 1000 } } }).accepted).toBe(true);
  });

  it('fee_data_missing: a total cap with neither totalImpact nor a complete breakdown', () => {
    const d = synthetic({ execution: '-0.01' });
    expect(skipped(evaluateFees(d, { totalUsd: '100' })).reason).toBe('fee_data_missing');
  });

  it.each([
    ['missing', undefined],
    ['zero', '0'],
  ])('input_usd_missing: a bps cap with the input USD %s', (_name, amountUsd) => {
    const d = baseDetails();
    if (amountUsd === undefined) delete d.currencyIn.amountUsd;
    else d.currencyIn.amountUsd = amountUsd;
    expect(skipped(evaluateFees(d, { components: { swap: { bps: 10_000 } } })).reason).toBe('input_usd_missing');
    expect(skipped(evaluateFees(d, { totalBps: 10_000 })).reason).toBe('input_usd_missing');
    expect(evaluateFees(d, { totalUsd: '1' }).accepted).toBe(true);
  });
});

describe('evaluateFees: malformed caps', () => {
  it.each<[string, FeeCaps]>([
    ['negative bps', { totalBps: -1 }],
    ['fractional bps', { components: { swap: { bps: 1.5 } } }],
    ['negative usd', { totalUsd: '-1' }],
    ['non-decimal usd', { components: { app: { usd: '1e3' } } }],
  ])('throws FeePolicyConfigError for %s', (_name, caps) => {
    expect(() => evaluateFees(baseDetails(), caps)).toThrow(FeePolicyConfigError);
  });

  it('names the field in the message', () => {
    expect(() => evaluateFees(baseDetails(), { components: { swap: { bps: 1.5 } } })).toThrow(/components\.swap\.bps/);
  });
});

describe('evaluateFees with the origin cost (miner fee, Solana fees, EVM gas)', () => {
  const known = (usdMicros: bigint) => ({ baseUnits: 39_000n, usdMicros, detail: 'PSBT miner fee (inputs − outputs) 39000 sat' });
  const unknown = { baseUnits: null, usdMicros: null, detail: 'no step item carries data.psbt' };

  it('counts the origin cost into the total against totalUsd and totalBps, and records it', () => {
    // API total 0.5 USD on a 200 USD input; a 0.6 USD miner fee makes 1.1 USD = 55 bps.
    const d = synthetic({ execution: '-0.5' }, '-0.5');
    const withOrigin = evaluateFees(d, { totalBps: 50 }, undefined, known(600_000n));
    const skip = skipped(withOrigin);
    expect(skip.reason).toBe('total_bps');
    expect(skip.detail).toBe('total fee 1.1 USD (55 bps of 200 USD), origin cost 0.6 USD included exceeds cap 50 bps');
    expect(skip.breakdown).toMatchObject({ totalMicros: 1_100_000n, originCostMicros: 600_000n });
    // The same quote without the origin cost passes: it is the miner fee that breaks the cap.
    expect(evaluateFees(d, { totalBps: 50 }).accepted).toBe(true);
    expect(skipped(evaluateFees(d, { totalUsd: '1' }, undefined, known(600_000n))).reason).toBe('total_usd');
    const ok = evaluateFees(d, { totalUsd: '1.1' }, undefined, known(600_000n));
    expect(ok).toMatchObject({ accepted: true, breakdown: { totalMicros: 1_100_000n, originCostMicros: 600_000n } });
  });

  it('fails closed with origin_cost_unknown when a total cap needs a cost it cannot tell', () => {
    const d = synthetic({ execution: '-0.5' }, '-0.5');
    for (const caps of [{ totalBps: 50 }, { totalUsd: '5' }] satisfies FeeCaps[]) {
      const skip = skipped(evaluateFees(d, caps, undefined, unknown));
      expect(skip.reason).toBe('origin_cost_unknown');
      expect(skip.detail).toContain('no step item carries data.psbt');
      expect(skip.breakdown).toMatchObject({ totalMicros: 500_000n, originCostMicros: null });
    }
  });

  it('accepts an unknown origin cost when no total cap is configured, recording it as unknown', () => {
    const d = synthetic({ execution: '-0.5' }, '-0.5');
    expect(evaluateFees(d, { components: { execution: { usd: '1' } } }, undefined, unknown)).toMatchObject({
      accepted: true,
      breakdown: { totalMicros: 500_000n, originCostMicros: null },
    });
    expect(evaluateFees(d, {}, undefined, known(250_000n))).toMatchObject({
      accepted: true,
      breakdown: { totalMicros: 750_000n, originCostMicros: 250_000n },
    });
  });
});
