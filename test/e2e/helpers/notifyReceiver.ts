/**
 * A notification receiver for end-to-end tests: a real HTTP server on 127.0.0.1 that records every request (headers
 * and raw body) and answers 200, or never answers (`hang`). {@link closeReceivers} after each test closes them all.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookReplayGuard, verifyWebhookSignature } from '@ballast/protocol/relay/webhookSignature.ts';

/** A running receiver: its URL and what it got, in arrival order. */
export interface Receiver {
  url: string;
  got: Array<{ headers: IncomingMessage['headers']; body: string }>;
}

const servers: Server[] = [];
const hanging: ServerResponse[] = [];

/** Starts a receiver that answers 200, or never answers (`hang`). */
export async function receiver(mode: 'ok' | 'hang'): Promise<Receiver> {
  const got: Receiver['got'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (mode === 'hang') hanging.push(res);
      else res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got };
}

/** Ends every hanging answer and closes every receiver started so far. */
export async function closeReceivers(): Promise<void> {
  for (const res of hanging.splice(0)) res.destroy();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
}

/**
 * Whether a request a receiver got carries a valid signature of its raw body under `secret` (the headers
 * docs/notifications.md names, checked with the protocol's own verifier, 300 s window).
 */
export function signedWith(secret: string, request: Receiver['got'][number]): boolean {
  return verifyWebhookSignature({
    secret,
    timestampHeader: request.headers['x-signature-timestamp'] as string,
    signatureHeader: request.headers['x-signature-sha256'] as string,
    rawBody: request.body,
    nowMs: Date.now(),
    windowSec: 300,
    replays: new WebhookReplayGuard(),
  }).ok;
}
