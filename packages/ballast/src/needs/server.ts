/**
 * Serving the needs API (src/needs/api.ts) in `ballast daemon` when `needs.token` is set ({@link needsApiOf}): on a
 * server of its own for `needs.listen` ({@link startNeedsServer}), or on the metrics server beside the webhook
 * receiver ({@link firstHandler}).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BallastError } from '@ballast/protocol/core/errors.ts';
import { serveHandler } from '../metrics/handlerServer.ts';
import type { CycleContext } from '../cycle/context.ts';
import { createNeedsApi, NEEDS_PATH, type NeedsApi } from './api.ts';
import { needHoldingsSource, type NeedHoldingsDeps } from './holdings.ts';

/** An HTTP handler that answers its own paths and returns false for the others. */
export type SharedHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

/** The needs API's server could not listen (address malformed or in use). Code `NEED_LISTEN_FAILED`. */
export class NeedsServerError extends BallastError {
  readonly code = 'NEED_LISTEN_FAILED' as const;
  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
  }
}

/** A running needs API server. */
export interface NeedsServer {
  /** Base URL, e.g. `http://127.0.0.1:9465` (the real port when 0 was asked); the API is `url + /v1/needs`. */
  url: string;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/**
 * One handler trying each given handler in turn (absent ones skipped), for the metrics server's `handle`.
 *
 * @returns undefined when no handler is given (the metrics server then answers its own paths only)
 */
export function firstHandler(handlers: readonly (SharedHandler | null | undefined)[]): { handle?: SharedHandler } {
  const list = handlers.filter((h): h is SharedHandler => typeof h === 'function');
  if (list.length === 0) return {};
  return {
    handle: async (req, res) => {
      for (const h of list) if (await h(req, res)) return true;
      return false;
    },
  };
}

/**
 * Starts a server for `api` on `listen`: the API's paths, 404 for anything else.
 *
 * @param listen `host:port` (`needs.listen`; port 0 picks a free port)
 * @throws NeedsServerError when the address is malformed or cannot be bound
 */
export async function startNeedsServer(listen: string, api: NeedsApi): Promise<NeedsServer> {
  return serveHandler({
    listen,
    field: 'needs.listen',
    example: '127.0.0.1:9465',
    handle: (req, res) => api.handle(req, res),
    notFound: `the needs API is ${NEEDS_PATH}`,
    error: (message, cause) => new NeedsServerError(message, cause),
  });
}

/**
 * The needs API of a wired app when `needs.token` is configured, else null (the API is not served).
 *
 * @param ctx the app's runtime: its config, store, clock, logger, and what token decimals are read with
 */
export function needsApiOf(ctx: NeedHoldingsDeps & Pick<CycleContext, 'db' | 'now'>): NeedsApi | null {
  const token = ctx.config.needs?.token;
  if (token === undefined) return null;
  return createNeedsApi({ token, db: ctx.db, holdings: needHoldingsSource(ctx), now: ctx.now, logger: ctx.logger });
}
