/**
 * Metrics of monitor-only mode (`daemon --monitor-only`, `monitorOnly: true`): what each planned transfer would
 * have come to in a normal cycle. Registered by `createMetrics` (src/metrics/metrics.ts); samples appear only in
 * monitor-only mode.
 */
import { Counter, type Registry } from 'prom-client';
import type { TransferAttempt } from '../cycle/processTransfer.ts';
import { unitsToGauge } from './units.ts';

/** The monitor-only metrics; part of `BallastMetrics`. */
export interface MonitorMetrics {
  /** `ballast_monitor_transfers_total{asset, origin_chain, destination_chain, outcome}`: planned transfers judged. */
  monitorTransfersTotal: Counter<'asset' | 'origin_chain' | 'destination_chain' | 'outcome'>;
  /** `ballast_monitor_would_move_units_total{asset, origin_chain, destination_chain}`: whole units it would have sent. */
  monitorWouldMoveUnitsTotal: Counter<'asset' | 'origin_chain' | 'destination_chain'>;
}

/** Creates the monitor-only metrics in `registry`. */
export function createMonitorMetrics(registry: Registry): MonitorMetrics {
  const registers = [registry];
  return {
    monitorTransfersTotal: new Counter({
      name: 'ballast_monitor_transfers_total',
      help: 'Monitor-only mode: planned transfers quoted and judged, by what a normal cycle would have done (quoted: it would sign; skipped_fee, skipped_limit, awaiting_approval, refused_verification, quote_error: it would not).',
      labelNames: ['asset', 'origin_chain', 'destination_chain', 'outcome'],
      registers,
    }),
    monitorWouldMoveUnitsTotal: new Counter({
      name: 'ballast_monitor_would_move_units_total',
      help: 'Monitor-only mode: whole units of the origin asset a normal cycle would have sent (planned transfers that passed every gate).',
      labelNames: ['asset', 'origin_chain', 'destination_chain'],
      registers,
    }),
  };
}

/** Counts one monitor-only attempt. */
export function countMonitorAttempt(m: MonitorMetrics, a: Pick<TransferAttempt, 'planned' | 'outcome'>): void {
  const labels = { asset: a.planned.asset, origin_chain: a.planned.from.chain, destination_chain: a.planned.to.chain };
  m.monitorTransfersTotal.inc({ ...labels, outcome: a.outcome });
  if (a.outcome === 'quoted') m.monitorWouldMoveUnitsTotal.inc(labels, unitsToGauge(a.planned.amountIn, a.planned.from.decimals));
}
