/**
 * Metrics export of `ballast run --once` (flags `--pushgateway`, `--push-job`, `--push-instance`,
 * `--metrics-textfile`): both exports are attempted; each failure becomes one warning line and never changes the
 * run's exit code (the cycle's outcome decides it; a missing push shows up as a stale
 * `ballast_last_cycle_timestamp_seconds` on the Pushgateway).
 *
 * Only the `ballast_*` metrics are exported: the process metrics (`process_*`, `nodejs_*`) of a process that has
 * exited mean nothing, and in a textfile they would clash with node_exporter's own `process_*` series.
 */
import { Registry } from 'prom-client';
import { pushMetrics } from './push.ts';
import { writeMetricsTextfile } from './textfile.ts';

/** A registry holding the `ballast_*` metrics of `registry` (the same metric objects, not copies). */
export function ballastOnly(registry: Registry): Registry {
  const out = new Registry();
  for (const { name } of registry.getMetricsAsArray()) {
    const metric = name.startsWith('ballast_') ? registry.getSingleMetric(name) : undefined;
    if (metric) out.registerMetric(metric);
  }
  return out;
}

/** The export flags of `run --once`. */
export interface RunMetricsFlags {
  pushgateway?: string;
  pushJob?: string;
  pushInstance?: string;
  metricsTextfile?: string;
}

/**
 * Pushes and/or writes the registry as the flags ask.
 *
 * @param warn receives one line per failed export (`ballast: warning: …`)
 * @returns which exports failed (empty when all asked ones succeeded); never throws
 */
export async function exportRunMetrics(registry: Registry, flags: RunMetricsFlags, warn: (line: string) => void): Promise<string[]> {
  const failed: string[] = [];
  const exported = ballastOnly(registry);
  if (flags.pushgateway !== undefined) {
    try {
      await pushMetrics(exported, {
        url: flags.pushgateway,
        ...(flags.pushJob !== undefined ? { job: flags.pushJob } : {}),
        ...(flags.pushInstance !== undefined ? { instance: flags.pushInstance } : {}),
      });
    } catch (error) {
      failed.push('pushgateway');
      warn(`ballast: warning: ${error instanceof Error ? error.message : String(error)} (exit code unchanged)`);
    }
  }
  if (flags.metricsTextfile !== undefined) {
    try {
      await writeMetricsTextfile(exported, flags.metricsTextfile);
    } catch (error) {
      failed.push('textfile');
      warn(`ballast: warning: ${error instanceof Error ? error.message : String(error)} (exit code unchanged)`);
    }
  }
  return failed;
}
