/**
 * Metrics of the Relay API's deprecation signals (`Deprecation`, RFC 9745; `Sunset`, RFC 8594), read from every
 * response by src/relay/deprecation.ts and set by src/app/relayDeprecationWatch.ts. Registered by `createMetrics`
 * (src/metrics/metrics.ts); a series appears once an endpoint's response carried the headers
 * (https://docs.relay.link/references/api/api_guides/migrating-to-quote-v3).
 */
import { Gauge, type Registry } from 'prom-client';

/** The deprecation metrics; part of `BallastMetrics`. */
export interface RelayDeprecationMetrics {
  /**
   * `ballast_relay_endpoint_sunset_timestamp_seconds{endpoint}`: the `Sunset` date last announced for the endpoint
   * (`METHOD /route`), unix seconds; removed when a later notice of the endpoint carries no `Sunset`.
   */
  relayEndpointSunsetTimestampSeconds: Gauge<'endpoint'>;
  /**
   * `ballast_relay_endpoint_deprecated{endpoint}`: 1 when the endpoint's last `Deprecation` date was at or before
   * the time of that response, else 0.
   */
  relayEndpointDeprecated: Gauge<'endpoint'>;
}

/** Creates the deprecation metrics in `registry`. */
export function createRelayDeprecationMetrics(registry: Registry): RelayDeprecationMetrics {
  const registers = [registry];
  return {
    relayEndpointSunsetTimestampSeconds: new Gauge({
      name: 'ballast_relay_endpoint_sunset_timestamp_seconds',
      help: 'Sunset date (RFC 8594 Sunset header) the Relay API last announced for the endpoint, unix seconds.',
      labelNames: ['endpoint'],
      registers,
    }),
    relayEndpointDeprecated: new Gauge({
      name: 'ballast_relay_endpoint_deprecated',
      help: '1 when the Relay API endpoint is deprecated (its RFC 9745 Deprecation date is at or before the response), else 0.',
      labelNames: ['endpoint'],
      registers,
    }),
  };
}
