/**
 * A server of the webhook receiver's own, for `webhooks.listen` (without it the receiver shares the metrics
 * server, src/metrics/server.ts `handle`). It answers the receiver's path and 404 for anything else.
 */
import { BallastError } from '@ballast/protocol/core/errors.ts';
import { serveHandler } from '../metrics/handlerServer.ts';
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
  return serveHandler({
    listen,
    field: 'webhooks.listen',
    example: '0.0.0.0:8080',
    handle: (req, res) => receiver.handle(req, res),
    notFound: `deliveries go to ${receiver.path}`,
    error: (message, cause) => new WebhookServerError(message, cause),
  });
}
