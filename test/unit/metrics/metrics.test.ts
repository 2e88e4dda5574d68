import { describe, expect, it } from 'vitest';
import { baseUnitsToGauge, createMetrics } from '../../../packages/ballast/src/metrics/metrics.ts';

const EXPECTED_NAMES = [
  'ballast_cycles_total',
  'ballast_cycle_duration_seconds',
  'ballast_last_successful_cycle_timestamp_seconds',
  'ballast_transfers_total',
  'ballast_transfers_in_flight',
  'ballast_quotes_total',
  'ballast_quotes_skipped_total',
  'ballast_quotes_refused_total',
  'ballast_relay_http_requests_total',
  'ballast_balance_base_units',
  'ballast_target_base_units',
  'ballast_chain_read_errors_total',
];

describe('createMetrics', () => {
  it('registers every Ballast metric with its labels, plus default process metrics', async () => {
    const m = createMetrics();
    const json = await m.registry.getMetricsAsJSON();
    const names = json.map((x) => x.name);
    for (const name of EXPECTED_NAMES) expect(names).toContain(name);
    expect(names).toContain('process_cpu_seconds_total');
    expect(names).not.toContain('nodejs_active_handles_total');
    // prom-client keeps the declared label names on the metric instance
    expect((m.transfersTotal as unknown as { labelNames: string[] }).labelNames).toEqual([
      'outcome',
      'asset',
      'origin_chain',
      'destination_chain',
    ]);
  });

  it('starts cycle outcome counters and the in-flight gauge at zero', async () => {
    const text = await createMetrics().registry.metrics();
    expect(text).toContain('ballast_cycles_total{outcome="ok"} 0');
    expect(text).toContain('ballast_cycles_total{outcome="refused"} 0');
    expect(text).toContain('ballast_cycles_total{outcome="error"} 0');
    expect(text).toContain('ballast_transfers_in_flight 0');
  });

  it('keeps separate registries per instance', async () => {
    const a = createMetrics();
    const b = createMetrics();
    a.quotesSkippedTotal.inc({ reason: 'swap_bps' });
    expect(await a.registry.metrics()).toContain('ballast_quotes_skipped_total{reason="swap_bps"} 1');
    expect(await b.registry.metrics()).not.toContain('reason="swap_bps"');
  });

  it('baseUnitsToGauge is exact up to 2^53', () => {
    expect(baseUnitsToGauge(2n ** 53n)).toBe(9007199254740992);
    expect(baseUnitsToGauge(50_000_000_000n)).toBe(5e10);
  });
});
