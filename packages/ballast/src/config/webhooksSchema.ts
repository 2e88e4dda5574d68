/**
 * `webhooks:` section of `ballast.yaml`: the receiver of Relay's signed `request.status.updated` deliveries
 * (docs/relay-contract.md "Events" → "Webhooks"). The daemon serves it on the metrics server (`metrics.listen`) unless
 * `webhooks.listen` names an address of its own. The HMAC secret is the API key (docs/relay-contract.md "Authentication" 1:
 * "The key is also the HMAC secret for webhook verification"), so enabling webhooks needs `relay.apiKey`:
 * {@link checkWebhooks} reports that as a configuration problem.
 */
import { z } from 'zod';
import type { ConfigIssue } from './errors.ts';
import { LISTEN_RE } from './patterns.ts';

/** An absolute URL path without query or fragment, e.g. `/webhooks/relay`. */
const PATH_RE = /^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/;
/** Paths the metrics server answers itself; a webhook path sharing its port must differ. */
const RESERVED_PATHS = ['/metrics', '/healthz', '/readyz'];

/** `metrics.listen` when the config leaves it out (src/config/schema.ts). */
const DEFAULT_METRICS_LISTEN = '127.0.0.1:9464';

/** Defaults of the section (also its value when the section is absent: webhooks off). */
export const DEFAULT_WEBHOOKS = Object.freeze({
  enabled: false,
  path: '/webhooks/relay',
  toleranceSec: 300,
  maxBodyBytes: 65_536,
});

/** `webhooks:` section. */
export const WebhooksSectionSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(DEFAULT_WEBHOOKS.enabled)
      .describe('serve the webhook receiver in `ballast daemon` (needs relay.apiKey: it is the HMAC secret)'),
    listen: z
      .string()
      .regex(LISTEN_RE, 'expected host:port such as 0.0.0.0:8080')
      .refine((v) => Number(v.slice(v.lastIndexOf(':') + 1)) <= 65535, 'port must be between 0 and 65535')
      .optional()
      .describe('address of a server of its own for the receiver; absent = served on the metrics server (metrics.listen)'),
    path: z
      .string()
      .regex(PATH_RE, 'expected a URL path starting with /, e.g. /webhooks/relay')
      .refine((p) => !RESERVED_PATHS.includes(p), 'must differ from /metrics and /healthz and /readyz')
      .default(DEFAULT_WEBHOOKS.path)
      .describe('URL path Relay posts to (the dashboard URL ends with it)'),
    toleranceSec: z
      .number()
      .int()
      .min(10)
      .max(3600)
      .default(DEFAULT_WEBHOOKS.toleranceSec)
      .describe('refuse deliveries whose X-Signature-Timestamp lies further than this from now, either way (seconds)'),
    maxBodyBytes: z
      .number()
      .int()
      .min(1024)
      .max(10 * 1024 * 1024)
      .default(DEFAULT_WEBHOOKS.maxBodyBytes)
      .describe('largest delivery body accepted, bytes; larger ones are answered 413'),
  })
  .describe('Relay webhook receiver (docs/relay-contract.md "Events" → "Webhooks"); polling stays the fallback');

/** The `webhooks` section as loaded (defaults applied). */
export type WebhooksConfig = z.output<typeof WebhooksSectionSchema>;

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * Cross checks of the raw (env-resolved) config tree: `webhooks.enabled: true` needs `relay.apiKey`, the secret
 * every delivery is verified with; `webhooks.listen` must not be the metrics server's address (leave it out to
 * share that server).
 *
 * @param tree the configuration after `${VAR}` resolution, before the shape check
 * @param issues problems found are appended here (paths `webhooks.enabled`, `webhooks.listen`)
 */
export function checkWebhooks(tree: unknown, issues: ConfigIssue[]): void {
  const root = record(tree);
  const webhooks = record(root.webhooks);
  if (webhooks.enabled !== true) return;
  const metricsListen = record(root.metrics).listen ?? DEFAULT_METRICS_LISTEN;
  if (webhooks.listen !== undefined && webhooks.listen === metricsListen) {
    issues.push({
      path: 'webhooks.listen',
      message: `is metrics.listen (${String(metricsListen)}); remove webhooks.listen to serve webhooks on the metrics server, or give it another port`,
    });
  }
  const apiKey = record(root.relay).apiKey;
  if (typeof apiKey === 'string' && apiKey.length > 0) return;
  issues.push({
    path: 'webhooks.enabled',
    message:
      'webhooks are verified with the API key (HMAC-SHA256 secret) but relay.apiKey is not set; ' +
      'set relay.apiKey: "${RELAY_API_KEY}" (the key whose dashboard webhook points here) or set webhooks.enabled: false',
  });
}
