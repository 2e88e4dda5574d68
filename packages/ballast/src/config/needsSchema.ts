/**
 * Known outflows ("needs", docs/needs.md) in `ballast.yaml`:
 * - `policy.needsHorizonSec` and `policy.needsGraceSec` ({@link NeedsHorizonSecSchema}, {@link NeedsGraceSecSchema}):
 *   how far ahead the planner holds open needs on their holdings, and how long after its due time an open need is
 *   taken as paid and closed;
 * - the `needs:` section ({@link NeedsSectionSchema}): the authenticated HTTP API `ballast daemon` serves to record
 *   and cancel needs, only when `needs.token` is set; on `needs.listen` when given, else on the metrics server.
 *
 * The token is a bearer credential: write it as `${VAR}`. It is kept out of error messages (`needsSecrets`), and
 * out of spread, JSON and logs once loaded (`loadNeeds` makes it non-enumerable).
 */
import { z } from 'zod';
import type { ConfigIssue } from './errors.ts';
import { LISTEN_RE } from './patterns.ts';

/** Default `policy.needsHorizonSec`: open needs due within a day are held. */
export const DEFAULT_NEEDS_HORIZON_SEC = 86_400;
/** Default `policy.needsGraceSec`: an open need is closed 15 minutes after its due time. */
export const DEFAULT_NEEDS_GRACE_SEC = 900;
/** Fewest characters of `needs.token`. */
export const NEEDS_TOKEN_MIN_CHARS = 16;

/** `metrics.listen` when the config leaves it out (src/config/schema.ts). */
const DEFAULT_METRICS_LISTEN = '127.0.0.1:9464';

const seconds = (field: string, max: number, maxText: string) =>
  z
    .number({ error: `${field} must be a whole number of seconds, e.g. 86400` })
    .int(`${field} must be a whole number of seconds, e.g. 86400`)
    .min(0, `${field} must be between 0 and ${max} seconds (${maxText})`)
    .max(max, `${field} must be between 0 and ${max} seconds (${maxText})`);

/** `policy.needsHorizonSec`: seconds ahead; an open need due within it is held on its holding (0: needs are not planned). */
export const NeedsHorizonSecSchema = seconds('needsHorizonSec', 90 * 86_400, '90 days')
  .default(DEFAULT_NEEDS_HORIZON_SEC)
  .describe(
    'hold every open need (docs/needs.md) due within this many seconds on its holding, on top of min, so it is funded before it is due; 0 disables needs planning (default 86400)',
  );

/** `policy.needsGraceSec`: seconds after its due time an open need is closed as paid by the payment system. */
export const NeedsGraceSecSchema = seconds('needsGraceSec', 7 * 86_400, '7 days')
  .default(DEFAULT_NEEDS_GRACE_SEC)
  .describe(
    'an open need whose due time plus this many seconds has passed is closed (taken as paid by the payment system) and no longer held (default 900)',
  );

/** `needs:` section. */
export const NeedsSectionSchema = z
  .strictObject({
    token: z
      .string({ error: 'needs.token must be a string; write it as ${BALLAST_NEEDS_TOKEN}' })
      .min(
        NEEDS_TOKEN_MIN_CHARS,
        `token must be at least ${NEEDS_TOKEN_MIN_CHARS} characters; generate one (e.g. openssl rand -hex 32) and write it as \${BALLAST_NEEDS_TOKEN}`,
      )
      .regex(/^[\x21-\x7e]+$/, 'token must be printable ASCII without spaces (it travels as Authorization: Bearer <token>)')
      .optional()
      .describe(
        'bearer token of the needs HTTP API (Authorization: Bearer <token>); the API is served only when it is set. A secret: write it as ${BALLAST_NEEDS_TOKEN}, at least 16 characters',
      ),
    listen: z
      .string({ error: 'listen must be host:port such as 127.0.0.1:9465' })
      .regex(LISTEN_RE, 'listen must be host:port such as 127.0.0.1:9465')
      .refine((v) => Number(v.slice(v.lastIndexOf(':') + 1)) <= 65535, 'listen: the port must be between 0 and 65535')
      .optional()
      .describe('address of a server of its own for the needs API; absent = served on the metrics server (metrics.listen)'),
  })
  .describe('the needs HTTP API (docs/needs.md): POST, GET /v1/needs and DELETE /v1/needs/{id}, served by ballast daemon');

/** The `needs:` section as parsed. */
export type NeedsSection = z.output<typeof NeedsSectionSchema>;

/** The `needs:` section as loaded: `token` is non-enumerable (kept out of spread, JSON and logs). */
export interface NeedsConfig {
  /** Bearer token of the HTTP API; absent: the API is not served. */
  readonly token?: string;
  /** `host:port` of the API's own server; absent: the metrics server. */
  listen?: string;
}

/** Builds the loaded section from the parsed one, hiding the token. */
export function loadNeeds(section: NeedsSection): NeedsConfig {
  const loaded: NeedsConfig = section.listen !== undefined ? { listen: section.listen } : {};
  if (section.token !== undefined) Object.defineProperty(loaded, 'token', { value: section.token, enumerable: false, writable: false });
  return loaded;
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The token of the raw (env-resolved) tree, to keep out of error messages. */
export function needsSecrets(tree: unknown): string[] {
  const token = record(record(tree).needs).token;
  return typeof token === 'string' && token.length > 0 ? [token] : [];
}

/**
 * Cross checks of the raw (env-resolved) `needs:` section: `listen` without `token` serves nothing; `listen` must
 * differ from `metrics.listen` and from the webhook receiver's own `webhooks.listen` (leave it out to share the
 * metrics server); port 0 (a free port) collides with nothing.
 *
 * @param issues problems found are appended here (path `needs.listen`)
 */
export function checkNeeds(tree: unknown, issues: ConfigIssue[]): void {
  const root = record(tree);
  const needs = record(root.needs);
  if (needs.listen === undefined) return;
  if (needs.token === undefined) {
    issues.push({
      path: 'needs.listen',
      message: 'is set but needs.token is not, so no API is served; set token: "${BALLAST_NEEDS_TOKEN}" or remove listen',
    });
    return;
  }
  if (typeof needs.listen === 'string' && needs.listen.endsWith(':0')) return; // port 0: a free port of its own
  const metricsListen = record(root.metrics).listen ?? DEFAULT_METRICS_LISTEN;
  if (needs.listen === metricsListen) {
    issues.push({
      path: 'needs.listen',
      message: `is metrics.listen (${String(metricsListen)}); remove needs.listen to serve the needs API on the metrics server, or give it another port`,
    });
  }
  const webhooks = record(root.webhooks);
  if (webhooks.enabled === true && webhooks.listen !== undefined && webhooks.listen === needs.listen) {
    issues.push({
      path: 'needs.listen',
      message: `is webhooks.listen (${String(needs.listen)}); give the needs API another port, or remove needs.listen to share the metrics server`,
    });
  }
}
