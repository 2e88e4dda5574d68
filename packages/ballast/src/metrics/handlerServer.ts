/**
 * A node:http server of its own for one handler that answers its own paths (the webhook receiver with
 * `webhooks.listen`, the needs API with `needs.listen`): 404 with a pointer for any other path, 500 when the
 * handler fails before answering.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOn, type ListeningServer } from './listen.ts';
import { parseListen } from './server.ts';

/** What {@link serveHandler} serves and how it names its failures. */
export interface HandlerServerOptions {
  /** `host:port` (port 0 picks a free port). */
  listen: string;
  /** The config field it came from and an example, for errors: `webhooks.listen`, `0.0.0.0:8080`. */
  field: string;
  example: string;
  /** Answers its own paths; resolves false for any other. */
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
  /** The 404 body's pointer, e.g. `deliveries go to /webhooks/relay`. */
  notFound: string;
  /** The caller's error for a malformed or unbindable address. */
  error: (message: string, cause: unknown) => Error;
}

/**
 * Starts the server.
 *
 * @throws what `opts.error` returns when the address is malformed or cannot be bound
 */
export async function serveHandler(opts: HandlerServerOptions): Promise<ListeningServer> {
  let host: string;
  let port: number;
  try {
    ({ host, port } = parseListen(opts.listen));
  } catch (error) {
    throw opts.error(`${opts.field} "${opts.listen}" is not host:port (e.g. ${opts.example})`, error);
  }
  const server = createServer((req, res) => {
    opts
      .handle(req, res)
      .then((handled) => {
        if (handled) return;
        req.resume();
        res.statusCode = 404;
        res.setHeader('content-type', 'text/plain; charset=utf-8');
        res.end(`not found; ${opts.notFound}\n`);
      })
      .catch((error: unknown) => {
        if (res.headersSent) res.destroy();
        else {
          res.statusCode = 500;
          res.end(`internal error: ${error instanceof Error ? error.message : String(error)}\n`);
        }
      });
  });
  return listenOn(server, host, port, (err) =>
    opts.error(`cannot listen on ${opts.listen} (${err.code ?? err.message}); change ${opts.field} or free the port`, err),
  );
}
