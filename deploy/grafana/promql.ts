/**
 * PromQL building blocks of the Ballast dashboard: selectors filtered by the `job`, `chain` and `asset`
 * template variables (regexes; "All" is `.*`) and Grafana's `$__rate_interval`. Pure.
 */

/** `metric{job=~"$job", extra...}` */
export function sel(metric: string, ...extra: string[]): string {
  return `${metric}{${['job=~"$job"', ...extra].join(', ')}}`;
}
/** Matcher on the `chain` variable. */
export const CHAIN = 'chain=~"$chain"';
/** Matcher on the `asset` variable. */
export const ASSET = 'asset=~"$asset"';
/** Range of rates and per-interval increases. */
export const RI = '[$__rate_interval]';
/**
 * Appended to aggregations of labelled counters that only appear once something happened (skips, refusals,
 * errors): the panel shows 0 instead of "No data", and nothing extra once real series exist.
 */
export const ZERO = ' or on() vector(0)';
/** Relay API calls that count as errors: 5xx, 429 and network failures (`status` label of ballast_relay_http_requests_total). */
export const API_ERRORS = 'status=~"5..|429|network_error"';

/** `histogram_quantile(q, sum by (le, ...by) (rate(metric_bucket{job}[$__rate_interval])))` */
export function quantile(q: number, metric: string, by: string[] = []): string {
  return `histogram_quantile(${q}, sum by (${['le', ...by].join(', ')}) (rate(${sel(`${metric}_bucket`)}${RI})))`;
}
