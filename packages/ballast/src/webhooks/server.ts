/**
 * A server of the webhook receiver's own, for `webhooks.listen` (without it the receiver shares the metrics
 * server, src/metrics/server.ts `handle`). It answers the receiver's path and 404 for anything else.
 */
import { createServer } from 'node:http';
import { listenOn } from '../metrics/listen.ts';
import { BallastError } from '@ballast/protocol/core/errors.ts';
import { parseListen } from '../metrics/server.ts';
import type { WebhookReceiver } from './receiver.ts';

/** The receiver's server could not listen (address in use, bad host). Code `WEBHOOK_LISTEN_FAILED`. */
export class WebhookServerError extends BallastError {
  readonly code = 'WEBHOOK_LISTEN_FAILED' as const;
  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
  }
}

/** A running receiver server. */
export interface WebhookServer {
  /** Base URL, e.g. `http://127.0.0.1:8080` (the real port when 0 was asked); the endpoint is `url + path`. */
  url: string;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/**
 * Starts a server for `receiver` on `listen`.
 *
 * @param listen `host:port` (`webhooks.listen`; port 0 picks a free port)
 * @throws WebhookServerError when the address is malformed or cannot be bound
 */
export async function startWebhookServer(listen: string, receiver: WebhookReceiver): Promise<WebhookServer> {
  let host: string;
  let port: number;
  try {
    ({ host, port } = parseListen(listen));
  } catch (error) {
    throw new WebhookServerError(`webhooks.listen "${listen}" is not host:port (e.g. 0.0.0.0:8080)`, error);
  }
  const server = createServer((req, res) => {
    receiver
      .handle(req, res)
      .then((handled) => {
        if (handled) return;
        res.statusCode = 404;
        res.setHeader('content-type', 'text/plain; charset=utf-8');
        res.end(`not found; deliveries go to ${receiver.path}\n`);
      })
      .catch((error: unknown) => {
        if (res.headersSent) res.destroy();
        else {
          res.statusCode = 500;
          res.end(`internal error: ${error instanceof Error ? error.message : String(error)}\n`);
        }
      });
  });
  return listenOn(
    server,
    host,
    port,
    (err) =>
      new WebhookServerError(`cannot listen on ${listen} (${err.code ?? err.message}); change webhooks.listen or free the port`, err),
  );
}
