/**
 * A counting JSON-RPC proxy on 127.0.0.1: forwards every HTTP request to an upstream node (anvil) unchanged and
 * counts HTTP round trips and JSON-RPC methods (batched bodies count each call).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/** A running counting proxy. */
export interface RpcCounter {
  /** URL to point a client at. */
  url: string;
  /** HTTP requests forwarded. */
  roundTrips: number;
  /** JSON-RPC calls by method. */
  methods: Map<string, number>;
  /** Zeroes the counts. */
  reset(): void;
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Starts a proxy in front of `upstream` (an http:// JSON-RPC URL). */
export async function startRpcCounter(upstream: string): Promise<RpcCounter> {
  const counter = {
    url: '',
    roundTrips: 0,
    methods: new Map<string, number>(),
    reset() {
      counter.roundTrips = 0;
      counter.methods.clear();
    },
    close: async () => {},
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const raw = await body(req);
      counter.roundTrips += 1;
      try {
        const parsed = JSON.parse(raw.toString('utf8')) as { method?: string } | { method?: string }[];
        for (const call of Array.isArray(parsed) ? parsed : [parsed]) {
          const m = call.method ?? '?';
          counter.methods.set(m, (counter.methods.get(m) ?? 0) + 1);
        }
      } catch {
        counter.methods.set('(unparsable)', (counter.methods.get('(unparsable)') ?? 0) + 1);
      }
      const answer = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: new Uint8Array(raw) });
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(Buffer.from(await answer.arrayBuffer()));
    })().catch((error: unknown) => {
      res.writeHead(502);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port; // listening on TCP: the address is an object
  counter.url = `http://127.0.0.1:${port}`;
  counter.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return counter;
}
