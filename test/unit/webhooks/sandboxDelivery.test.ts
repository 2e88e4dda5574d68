/**
 * The sandbox's webhook delivery (packages/sandbox/src/webhooks/sender.ts, docs/relay-contract.md "Events" → "Webhooks"), against a
 * real loopback HTTP receiver: each status change is posted as a signed `request.status.updated` payload that the
 * verification of docs/relay-contract.md "Webhooks" accepts; non-2xx answers and network errors are retried (up to 10
 * retries, exponential backoff, signed afresh) until a 2xx; deliveries of one request arrive in order; the drop and
 * duplicate faults.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import { RequestStatusUpdatedSchema } from '../../../packages/protocol/src/relay/webhookSchemas.ts';
import { verifyWebhookSignature, WebhookReplayGuard } from '../../../packages/protocol/src/relay/webhookSignature.ts';
import { RequestStore, type ObservedDeposit } from '../../../packages/sandbox/src/api/requestStore.ts';
import { DEFAULT_SANDBOX_FAULTS, type SandboxFaults } from '../../../packages/sandbox/src/faults.ts';
import { WebhookSender } from '../../../packages/sandbox/src/webhooks/sender.ts';

const SECRET = 'sandbox-api-key';
const REQUEST_ID: Hex = `0x${'ab'.repeat(32)}`;
const DEPOSIT: ObservedDeposit = {
  chainId: 31001,
  txHash: `0x${'22'.repeat(32)}`,
  logIndex: 0,
  blockNumber: 5n,
  from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
  currency: '0x0000000000000000000000000000000000000000',
  amount: 10n,
  id: `0x${'cd'.repeat(32)}`,
  blockTimestamp: 1_700_000_000,
};

/** One delivery as the receiver saw it, with its verification verdict and what it answered. */
interface Received {
  status: string | null;
  verified: boolean;
  answered: number | 'dropped-connection';
  timestamp: string;
}

let server: Server | null = null;
let sender: WebhookSender | null = null;
afterEach(async () => {
  await sender?.stop();
  sender = null;
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server?.closeAllConnections();
  server = null;
});

/**
 * A receiver that verifies each delivery like Ballast does and answers with `answer(n)` for the n-th request
 * (0-based): an HTTP status, or `drop` to cut the connection (a network error for the sender).
 */
async function receiver(answer: (n: number, status: string | null) => number | 'drop') {
  const received: Received[] = [];
  const guard = new WebhookReplayGuard();
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const timestamp = String(req.headers['x-signature-timestamp']);
      const verdict = verifyWebhookSignature({
        secret: SECRET,
        timestampHeader: timestamp,
        signatureHeader: req.headers['x-signature-sha256'] as string | undefined, // a single header
        rawBody: body,
        nowMs: Date.now(),
        windowSec: 300,
        replays: guard,
      });
      const parsed = RequestStatusUpdatedSchema.safeParse(JSON.parse(body.toString('utf8')));
      const status = parsed.success ? parsed.data.data.status : null;
      const a = answer(received.length, status);
      received.push({ status, verified: verdict.ok && parsed.success, answered: a === 'drop' ? 'dropped-connection' : a, timestamp });
      if (a === 'drop') req.socket.destroy();
      else res.writeHead(a).end();
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server!.address() as AddressInfo).port}/webhooks/relay`;
  return { url, received };
}

function start(url: string, faults: Partial<SandboxFaults> = {}, maxRetries?: number) {
  sender = new WebhookSender(
    { url, secret: SECRET, baseDelayMs: 2, maxDelayMs: 16, ...(maxRetries !== undefined ? { maxRetries } : {}) },
    { logger: pino({ level: 'silent' }), faults: () => ({ ...DEFAULT_SANDBOX_FAULTS, ...faults }), nowMs: () => Date.now() },
  );
  const store = new RequestStore();
  const s = sender;
  store.onChange((r) => s.enqueue(r));
  const record = store.addUnmatchedDeposit(REQUEST_ID, DEPOSIT, Date.now()); // starts `pending`, no event
  return { store, record, sender: s };
}

describe('sandbox webhook delivery', () => {
  it('posts a signed spec payload on a status change, retrying non-2xx answers until one is accepted', async () => {
    const rx = await receiver((n) => [500, 503, 200][n] ?? 200);
    const { store, record, sender: s } = start(rx.url);
    store.advance(record, 'success', { txHashes: [`0x${'ee'.repeat(32)}`] }, Date.now());
    await s.idle();
    expect(rx.received.map((r) => [r.status, r.verified, r.answered])).toEqual([
      ['success', true, 500],
      ['success', true, 503],
      ['success', true, 200],
    ]);
    expect(s.attempts().map((a) => [a.attempt, a.httpStatus])).toEqual([
      [1, 500],
      [2, 503],
      [3, 200],
    ]);
    const sent = JSON.parse(s.attempts().at(-1)!.sent!.body) as { data: Record<string, unknown> };
    expect(sent.data).toMatchObject({
      requestId: REQUEST_ID,
      inTxHashes: [DEPOSIT.txHash],
      depositAddress: null,
      referrer: null,
      failReason: 'N/A',
    });
  });

  it('retries a network error', async () => {
    const rx = await receiver((n) => (n === 0 ? 'drop' : 200));
    const { store, record, sender: s } = start(rx.url);
    store.advance(record, 'failure', { failReason: 'UNKNOWN' }, Date.now());
    await s.idle();
    expect(rx.received.map((r) => r.answered)).toEqual(['dropped-connection', 200]);
    expect(s.attempts()[0]!.httpStatus).toBeNull();
    expect(s.attempts()[0]!.error).toBeTruthy();
  });

  it('gives up after 10 retries (11 attempts) against a receiver that never accepts', async () => {
    const rx = await receiver(() => 500);
    const { store, record, sender: s } = start(rx.url);
    store.advance(record, 'success', {}, Date.now());
    await s.idle();
    expect(rx.received).toHaveLength(11);
    expect(rx.received.every((r) => r.verified)).toBe(true);
  });

  it('delivers the changes of one request in order, the next after the previous was accepted', async () => {
    // The first delivery (submitted) is refused twice; success must not overtake it.
    const rx = await receiver((n) => (n < 2 ? 500 : 200));
    const { store, record, sender: s } = start(rx.url);
    store.advance(record, 'submitted', {}, Date.now());
    store.advance(record, 'success', {}, Date.now());
    await s.idle();
    expect(rx.received.map((r) => [r.status, r.answered])).toEqual([
      ['submitted', 500],
      ['submitted', 500],
      ['submitted', 200],
      ['success', 200],
    ]);
  });

  it('drops or duplicates deliveries under the webhookDrop and webhookDuplicate faults', async () => {
    const rx = await receiver(() => 200);
    const dropped = start(rx.url, { webhookDrop: true });
    dropped.store.advance(dropped.record, 'success', {}, Date.now());
    await dropped.sender.idle();
    expect(rx.received).toHaveLength(0);
    expect(dropped.sender.attempts()).toEqual([expect.objectContaining({ dropped: true, httpStatus: null })]);
    await dropped.sender.stop();

    const twice = start(rx.url, { webhookDuplicate: true });
    twice.store.advance(twice.record, 'success', {}, Date.now());
    await twice.sender.idle();
    expect(rx.received.map((r) => [r.status, r.verified])).toEqual([
      ['success', true],
      ['success', true],
    ]);
  });
});
