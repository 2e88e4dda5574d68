/**
 * One-shot metrics export for `ballast run --once` (which serves no /metrics): push the registry to a
 * Prometheus Pushgateway (prom-client `Pushgateway`, HTTP PUT `/metrics/job/<job>/instance/<instance>`, so the
 * group holds exactly this run's metrics), or write it for node_exporter's textfile collector.
 */
import { hostname } from 'node:os';
import { Pushgateway, type Registry } from 'prom-client';
import { BallastError } from '@ballast/protocol/core/errors.ts';

/** Default `--push-job`. */
export const DEFAULT_PUSH_JOB = 'ballast';

/** A push to the Pushgateway failed (unreachable, refused, non-2xx). Code `METRICS_PUSH_FAILED`. */
export class MetricsPushError extends BallastError {
  readonly code = 'METRICS_PUSH_FAILED' as const;
}

/** Where and under which grouping labels to push. */
export interface PushTarget {
  /** Pushgateway base URL, e.g. `http://127.0.0.1:9091`. */
  url: string;
  /** `job` grouping label (default {@link DEFAULT_PUSH_JOB}). */
  job?: string;
  /** `instance` grouping label (default this host's name). */
  instance?: string;
  /** Request time limit, ms (default 10000). */
  timeoutMs?: number;
}

/**
 * Replaces the metrics of the group `{job, instance}` on the Pushgateway with `registry`'s.
 *
 * @returns the grouping labels used
 * @throws MetricsPushError naming the URL and the cause when the URL is not http(s) or the push fails
 */
export async function pushMetrics(registry: Registry, target: PushTarget): Promise<{ job: string; instance: string }> {
  const job = target.job ?? DEFAULT_PUSH_JOB;
  const instance = target.instance ?? hostname();
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    throw new MetricsPushError(`--pushgateway "${target.url}" is not a URL; give the Pushgateway's base URL, e.g. http://127.0.0.1:9091`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new MetricsPushError(`--pushgateway "${target.url}" is not an http(s) URL; e.g. http://127.0.0.1:9091`);
  }
  if (job === '' || instance === '') throw new MetricsPushError('--push-job and --push-instance must not be empty');
  const gateway = new Pushgateway(target.url.replace(/\/+$/, ''), { timeout: target.timeoutMs ?? 10_000 }, registry);
  try {
    await gateway.push({ jobName: job, groupings: { instance } });
  } catch (error) {
    throw new MetricsPushError(`pushing metrics to ${url.origin} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return { job, instance };
}
