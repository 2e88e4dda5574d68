/**
 * The JSON-RPC 2.0 envelope of the sandbox Solana node (single and batch requests, notifications, the
 * standard error codes, fault injection) and its HTTP server (POST any path; `GET /health` answers `ok`
 * like a validator).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { NodeFaults } from './nodeFaults.ts';
import type { RpcMethodTable } from './rpcContext.ts';
import { RPC_ERROR, RpcError, toJsonText, type RpcErrorBody } from './rpcError.ts';

/** Largest request body accepted, bytes. */
export const MAX_RPC_BODY_BYTES = 1_000_000;

/** A JSON-RPC response object. */
export type JsonRpcResponse =
  { jsonrpc: '2.0'; id: string | number | null; result: unknown } | { jsonrpc: '2.0'; id: string | number | null; error: RpcErrorBody };

/** Handles one parsed JSON-RPC request object (or batch); null when nothing is to be answered. */
export type RpcDispatcher = (body: unknown) => JsonRpcResponse | JsonRpcResponse[] | null;

function errorResponse(id: string | number | null, error: RpcErrorBody): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error };
}

/**
 * Runs one request object against `methods`: `faults` may fail it first; unknown methods answer -32601
 * naming the method; a handler's RpcError becomes the error; anything else is -32603 and is logged.
 */
export function dispatchOne(methods: RpcMethodTable, faults: NodeFaults, logger: Logger, request: unknown): JsonRpcResponse | null {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    return errorResponse(null, { code: RPC_ERROR.INVALID_REQUEST, message: 'Invalid request' });
  }
  const r = request as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown }; // members checked one by one below
  const idOk = r.id === undefined || r.id === null || typeof r.id === 'string' || typeof r.id === 'number';
  const id = idOk && r.id !== undefined ? (r.id as string | number | null) : null; // narrowed by idOk
  if (r.jsonrpc !== '2.0' || typeof r.method !== 'string' || !idOk) {
    return errorResponse(id, { code: RPC_ERROR.INVALID_REQUEST, message: 'Invalid request' });
  }
  const isNotification = r.id === undefined;
  const method = r.method;
  let response: JsonRpcResponse;
  if (faults.takeRpcFailure(method)) {
    logger.info({ method }, 'JSON-RPC call failed on purpose (fault)');
    response = errorResponse(id, { code: RPC_ERROR.INTERNAL_ERROR, message: 'Internal error' });
  } else {
    const handler = Object.hasOwn(methods, method) ? methods[method] : undefined;
    if (handler === undefined) {
      response = errorResponse(id, { code: RPC_ERROR.METHOD_NOT_FOUND, message: `Method not found: ${method}` });
    } else {
      try {
        response = { jsonrpc: '2.0', id, result: handler(r.params) };
      } catch (error) {
        if (error instanceof RpcError) {
          response = errorResponse(id, error.toBody());
        } else {
          logger.error({ err: error, method }, 'JSON-RPC handler threw');
          response = errorResponse(id, {
            code: RPC_ERROR.INTERNAL_ERROR,
            message: `Internal error: ${error instanceof Error ? error.message : String(error)}`,
          });
        }
      }
    }
  }
  return isNotification ? null : response;
}

/** A dispatcher for single and batch bodies. */
export function createDispatcher(methods: RpcMethodTable, faults: NodeFaults, logger: Logger): RpcDispatcher {
  return (body) => {
    if (!Array.isArray(body)) return dispatchOne(methods, faults, logger, body);
    if (body.length === 0) return errorResponse(null, { code: RPC_ERROR.INVALID_REQUEST, message: 'Invalid request' });
    const out = body.map((r) => dispatchOne(methods, faults, logger, r)).filter((r): r is JsonRpcResponse => r !== null);
    return out.length === 0 ? null : out;
  };
}

async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer; // node:http yields Buffers when no encoding is set
    size += buf.length;
    if (size > MAX_RPC_BODY_BYTES) return null;
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, text: string, contentType = 'application/json; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A listening HTTP JSON-RPC server. */
export interface RpcHttpServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/**
 * Starts the HTTP JSON-RPC server on `host:port` (port 0: a free port the kernel picks).
 *
 * @throws Error from `listen` (e.g. EADDRINUSE)
 */
export async function startRpcHttpServer(host: string, port: number, dispatch: RpcDispatcher, logger: Logger): Promise<RpcHttpServer> {
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/health') return send(res, 200, 'ok', 'text/plain; charset=utf-8');
    if (req.method !== 'POST')
      return send(res, 405, toJsonText(errorResponse(null, { code: RPC_ERROR.INVALID_REQUEST, message: 'Invalid request: use POST' })));
    readBody(req).then(
      (text) => {
        if (text === null)
          return send(res, 413, toJsonText(errorResponse(null, { code: RPC_ERROR.INVALID_REQUEST, message: 'Request body too large' })));
        let body: unknown;
        try {
          body = JSON.parse(text) as unknown; // untrusted: dispatchOne checks its shape
        } catch {
          return send(res, 200, toJsonText(errorResponse(null, { code: RPC_ERROR.PARSE_ERROR, message: 'Parse error' })));
        }
        const response = dispatch(body);
        if (response === null) {
          res.writeHead(204);
          res.end();
          return;
        }
        send(res, 200, toJsonText(response));
      },
      (error: unknown) => {
        logger.warn({ err: error }, 'reading a JSON-RPC request failed');
        if (!res.headersSent)
          send(res, 400, toJsonText(errorResponse(null, { code: RPC_ERROR.INVALID_REQUEST, message: 'Invalid request' })));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo; // a TCP listener always reports an AddressInfo
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}`,
    server,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}
