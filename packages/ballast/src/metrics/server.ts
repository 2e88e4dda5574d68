/**
 * The metrics HTTP server (node:http): `GET /metrics` serves the Prometheus text exposition of a
 * {@link BallastMetrics} registry, `GET /healthz` reports liveness as JSON (200 healthy, 503 not), `GET /readyz`
 * readiness as JSON (200 ready, 503 not; see src/metrics/readiness.ts), anything else is 404 (405 for a wrong
 * method on a known path). An optional extra handler lets other components (a
 * webhook receiver) share the port.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOn } from './listen.ts';
import type { BallastMetrics } from './metrics.ts';
import { BallastError } from '@ballast/protocol/core/errors.ts';

/** What `/healthz` reports. `detail` is serialised as JSON (bigints as decimal strings). */
export interface HealthReport {
  ok: boolean;
  detail: object;
}

/** Options of {@link startMetricsServer}. */
export interface MetricsServerOptions {
  /** `host:port`; port 0 picks a free port. IPv6 hosts in brackets: `[::1]:9464`. */
  listen: string;
  metrics: Pick<BallastMetrics, 'registry'>;
  /** Called on every `/healthz` request; a throw is reported as unhealthy. */
  health: () => HealthReport | Promise<HealthReport>;
  /** Called on every `/readyz` request; a throw is reported as not ready. Absent: `/readyz` answers like `/healthz`. */
  ready?: () => HealthReport | Promise<HealthReport>;
  /** Extra routes, tried after the built-in ones; return true when the request was handled. */
  handle?: (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;
}

/** A running metrics server. */
export interface MetricsServer {
  /** Base URL, e.g. `http://127.0.0.1:9464` (with the real port when 0 was asked). */
  url: string;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/** The server could not listen (address in use, bad host...). Code `METRICS_LISTEN_FAILED`. */
export class MetricsServerError extends BallastError {
  readonly code = 'METRICS_LISTEN_FAILED' as const;
  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
  }
}

/**
 * Splits a `host:port` listen address.
 *
 * @throws MetricsServerError when it is not `host:port` with a port of 0-65535
 */
export function parseListen(listen: string): { host: string; port: number } {
  const m = /^(\[([0-9A-Fa-f:.]+)\]|[A-Za-z0-9.-]+):([0-9]{1,5})$/.exec(listen);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) {
    throw new MetricsServerError(`metrics.listen "${listen}" is not host:port (e.g. 127.0.0.1:9464)`);
  }
  return { host: m[2] ?? m[1] ?? '', port };
}

/**
 * Starts the server.
 *
 * @returns the server's URL and a `close()`
 * @throws MetricsServerError when the address cannot be bound (e.g. already in use)
 */
export async function startMetricsServer(opts: MetricsServerOptions): Promise<MetricsServer> {
  const { host, port } = parseListen(opts.listen);
  const server = createServer((req, res) => {
    route(opts, req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', `internal error: ${message(err)}\n`);
      else res.destroy();
    });
  });
  return listenOn(
    server,
    host,
    port,
    (err) =>
      new MetricsServerError(`cannot listen on ${opts.listen} (${err.code ?? err.message}); change metrics.listen or free the port`, err),
  );
}

async function route(opts: MetricsServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  const method = req.method ?? 'GET';
  if (path === '/metrics' || path === '/healthz' || path === '/readyz') {
    if (method !== 'GET' && method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      send(res, 405, 'text/plain; charset=utf-8', `${method} not allowed on ${path}; use GET\n`);
      return;
    }
    if (path === '/metrics') {
      const body = await opts.metrics.registry.metrics();
      send(res, 200, opts.metrics.registry.contentType, body, method === 'HEAD');
      return;
    }
    const report = await health(path === '/readyz' && opts.ready ? opts.ready : opts.health);
    send(res, report.ok ? 200 : 503, 'application/json', `${jsonText(report)}\n`, method === 'HEAD');
    return;
  }
  if (opts.handle && (await opts.handle(req, res))) return;
  send(res, 404, 'text/plain; charset=utf-8', 'not found; try /metrics, /healthz or /readyz\n');
}

async function health(check: () => HealthReport | Promise<HealthReport>): Promise<HealthReport> {
  try {
    const r = await check();
    return { ok: r.ok === true, detail: r.detail };
  } catch (err) {
    return { ok: false, detail: { error: message(err) } };
  }
}

function send(res: ServerResponse, status: number, contentType: string, body: string, headOnly = false): void {
  res.statusCode = status;
  res.setHeader('content-type', contentType);
  res.setHeader('cache-control', 'no-store');
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(headOnly ? undefined : body);
}

function jsonText(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString(10) : v));
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
