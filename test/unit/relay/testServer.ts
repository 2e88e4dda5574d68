/**
 * A real node:http server on 127.0.0.1:0 answering canned responses, for Relay client tests.
 * Handlers are queued per path (without query); the last handler of a path repeats.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface CannedResponse {
  status: number;
  body?: unknown;
  /** Raw body text (wins over `body`). */
  text?: string;
  headers?: Record<string, string>;
  /** Never answer (to exercise timeouts). */
  hang?: boolean;
}

export interface TestServer {
  url: string;
  requests: RecordedRequest[];
  /** Queues responses for `path`; the last one repeats. */
  on(path: string, ...responses: CannedResponse[]): void;
  close(): Promise<void>;
}

export async function startTestServer(): Promise<TestServer> {
  const routes = new Map<string, CannedResponse[]>();
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '/';
      const path = url.split('?')[0] ?? '/';
      requests.push({ method: req.method ?? '', url, path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const queue = routes.get(path);
      const canned = queue === undefined ? undefined : queue.length > 1 ? queue.shift() : queue[0];
      if (canned === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ message: `no route ${path}` }));
        return;
      }
      if (canned.hang === true) return;
      const text = canned.text ?? (canned.body === undefined ? '' : JSON.stringify(canned.body));
      res.writeHead(canned.status, { 'content-type': 'application/json', ...canned.headers }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo; // listening on TCP, so address() is an AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    on(path, ...responses) {
      routes.set(path, responses);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
