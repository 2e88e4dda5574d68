/**
 * A JSON-RPC proxy on 127.0.0.1 between Ballast and an anvil node that misbehaves on command, like the load
 * balanced nodes operators meet: a call can be forwarded and then answered with an error (the node accepted a
 * transaction but the answer says otherwise, e.g. a transport retry's "already known"), answered with an error
 * without forwarding, or answered "not found" (`result: null`, a backend that lags).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What to do with the `nth` call (1-based) of `method`. */
export interface RpcFault {
  method: string;
  nth: number;
  action: 'forward-then-error' | 'error' | 'not-found';
  /** JSON-RPC error of the answer (default -32000 "already known"). */
  error?: { code: number; message: string };
  /** Once this fault fired, the next `count` calls of `method` get `action` too (e.g. lookups that lag). */
  then?: { method: string; count: number; action: 'not-found' | 'error' };
}

/**
 * A send retried after a timeout, as behind a load balancer: the 2nd raw transaction (the deposit, after the
 * approve) reaches the node but the answer is "already known", and the next 3 transaction lookups say "not
 * found", as a lagging backend would.
 */
export const DEPOSIT_SEND_ALREADY_KNOWN: readonly RpcFault[] = [
  {
    method: 'eth_sendRawTransaction',
    nth: 2,
    action: 'forward-then-error',
    then: { method: 'eth_getTransactionByHash', count: 3, action: 'not-found' },
  },
];

/** A running proxy. `calls` counts every method seen; `applied` lists the faults that fired. */
export interface RpcFaultProxy {
  url: string;
  calls: Map<string, number>;
  applied: RpcFault[];
  close(): Promise<void>;
}

interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: number | string | null;
  method: string;
  params?: unknown[];
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Starts a proxy in front of `upstream`.
 *
 * @param upstream the anvil JSON-RPC URL
 * @param faults the misbehaviours, each firing once on its call
 */
export async function startRpcFaultProxy(upstream: string, faults: RpcFault[]): Promise<RpcFaultProxy> {
  const calls = new Map<string, number>();
  const applied: RpcFault[] = [];
  /** Follow-up faults armed by a fault that fired: method → remaining count and action. */
  const armed = new Map<string, { count: number; action: 'not-found' | 'error' }>();

  async function forward(text: string): Promise<unknown> {
    const res = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
    return res.json();
  }

  async function handle(request: JsonRpcRequest): Promise<unknown> {
    const n = (calls.get(request.method) ?? 0) + 1;
    calls.set(request.method, n);
    const follow = armed.get(request.method);
    if (follow && follow.count > 0) {
      follow.count -= 1;
      if (follow.action === 'not-found') return { jsonrpc: '2.0', id: request.id, result: null };
      return { jsonrpc: '2.0', id: request.id, error: { code: -32603, message: 'transaction indexing is in progress' } };
    }
    const fault = faults.find((f) => f.method === request.method && f.nth === n);
    if (!fault) return forward(JSON.stringify(request));
    applied.push(fault);
    if (fault.then) armed.set(fault.then.method, { count: fault.then.count, action: fault.then.action });
    const error = fault.error ?? { code: -32000, message: 'already known' };
    if (fault.action === 'not-found') return { jsonrpc: '2.0', id: request.id, result: null };
    if (fault.action === 'forward-then-error') await forward(JSON.stringify(request));
    return { jsonrpc: '2.0', id: request.id, error };
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      try {
        const parsed = JSON.parse(await body(req)) as JsonRpcRequest | JsonRpcRequest[];
        const answer = Array.isArray(parsed) ? await Promise.all(parsed.map(handle)) : await handle(parsed);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      } catch (error) {
        res.writeHead(502, { 'content-type': 'text/plain' }).end(String(error));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo; // listening on a TCP port, so an AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    applied,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
