/**
 * The webhook receiver on a real loopback HTTP endpoint over a real SQLite file (docs/relay-contract.md "Events" →
 * "Webhooks"): deliveries whose signature, timestamp or shape fail are answered non-2xx and write nothing; accepted
 * events move our transfer at once through the store path polling uses, after the same ownership check; events about
 * requests that are not ours, or naming another deposit, are acknowledged and not written. Signatures here are
 * computed independently with node:crypto over the Relay API's text.
 */
import { createHmac } from 'node:crypto';
import { request } from 'node:http';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMetrics, type BallastMetrics } from '../../../packages/ballast/src/metrics/metrics.ts';
import { startMetricsServer } from '../../../packages/ballast/src/metrics/server.ts';
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import type { SqliteStoreDb } from '../../../packages/ballast/src/store/sqliteDb.ts';
import {
  createTransfer,
  getTransfer,
  markTxConfirmed,
  markTxSent,
  transitionTransfer,
} from '../../../packages/ballast/src/store/transfers.ts';
import { createWebhookReceiver, type WebhookReceiver } from '../../../packages/ballast/src/webhooks/receiver.ts';
import { startWebhookServer, type WebhookServer } from '../../../packages/ballast/src/webhooks/server.ts';
import { StatusFeed } from '../../../packages/ballast/src/webhooks/statusFeed.ts';
import { newTransfer, tempDb, type TempDb } from '../store/helpers.ts';

const SECRET = 'relay-api-key-for-webhook-tests';
const NOW_MS = 1_790_000_000_000;
const REQUEST_ID = `0x${'ab'.repeat(32)}`;
const DEPOSIT = `0x${'22'.repeat(32)}`; // the last transaction of newTransfer(): our deposit
const FILL = `0x${'ee'.repeat(32)}`;
const PATH = '/webhooks/relay';

let t: TempDb;
let db: SqliteStoreDb;
let metrics: BallastMetrics;
let feed: StatusFeed;
let receiver: WebhookReceiver;
let server: WebhookServer;
let transferId: number;

beforeEach(async () => {
  t = tempDb();
  db = t.open();
  metrics = createMetrics();
  feed = new StatusFeed();
  receiver = createWebhookReceiver({
    path: PATH,
    secret: SECRET,
    toleranceSec: 300,
    maxBodyBytes: 4096,
    db,
    metrics,
    logger: pino({ level: 'silent' }),
    feed,
    now: () => NOW_MS,
  });
  server = await startWebhookServer('127.0.0.1:0', receiver);
  transferId = await depositedTransfer(db);
});
afterEach(async () => {
  await server.close();
  t.cleanup();
});

/** A transfer whose approval and deposit are mined: `deposited`, tracked by its request id. */
async function depositedTransfer(d: StoreDb, over: Parameters<typeof newTransfer>[1] = {}): Promise<number> {
  const { transferId: id, txIds } = await createTransfer(d, await newTransfer(d, over));
  for (const tx of txIds) {
    await markTxSent(d, tx, 3_000);
    await markTxConfirmed(d, tx, { status: 'confirmed', blockNumber: 10n, nowMs: 4_000 });
  }
  await transitionTransfer(d, id, 'prepared', 'broadcast', { nowMs: 3_000 });
  await transitionTransfer(d, id, 'broadcast', 'deposited', { nowMs: 4_000 });
  return id;
}

type Data = Record<string, unknown>;

/** A `request.status.updated` body for our request (docs/relay-contract.md "Webhooks" payload table). */
function eventBody(status: string, over: Data = {}, top: Data = {}): string {
  return JSON.stringify({
    event: 'request.status.updated',
    timestamp: NOW_MS,
    data: {
      status,
      inTxHashes: [DEPOSIT],
      txHashes: status === 'success' ? [FILL] : [],
      updatedAt: NOW_MS,
      originChainId: 8453,
      destinationChainId: 42161,
      depositAddress: null,
      requestId: REQUEST_ID,
      referrer: 'ballast',
      details: null,
      failReason: 'N/A',
      refundFailReason: 'N/A',
      ...over,
    },
    ...top,
  });
}

const hmac = (secret: string, ts: string, body: string) => createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex');

/** Headers of a genuine delivery of `body` sent at `atMs` (timestamp in unix seconds). */
function signed(body: string, atMs = NOW_MS, secret = SECRET): Record<string, string> {
  const ts = String(Math.floor(atMs / 1000));
  return { 'content-type': 'application/json', 'x-signature-timestamp': ts, 'x-signature-sha256': hmac(secret, ts, body) };
}

async function post(body: string, headers: Record<string, string>, base = server.url) {
  const res = await fetch(`${base}${PATH}`, { method: 'POST', headers, body });
  const json = (await res.json()) as { ok: boolean; result?: string; reason?: string; message?: string };
  return { status: res.status, json };
}

/** What a delivery could have written: the transfer's status, relay status, fill hashes and history length. */
async function state(id = transferId) {
  const row = (await getTransfer(db, id))!;
  return { status: row.status, relayStatus: row.relayStatus, outTxHashes: row.outTxHashes, events: row.events.length };
}

async function webhookCount(result: string): Promise<number> {
  const m = await metrics.webhooksReceivedTotal.get();
  return m.values.find((v) => v.labels.result === result)?.value ?? 0;
}

describe('webhook receiver: refused deliveries write nothing', () => {
  const body = eventBody('success');
  const genuine = signed(body);
  const cases: [string, () => Promise<{ status: number; json: { reason?: string } }>, number, string][] = [
    ['forged with another key', () => post(body, signed(body, NOW_MS, 'not-our-api-key')), 401, 'mismatch'],
    ['a body tampered after signing', () => post(body.replace('"success"', '"refund"'), genuine), 401, 'mismatch'],
    [
      'a timestamp header changed after signing',
      () => post(body, { ...genuine, 'x-signature-timestamp': String(NOW_MS / 1000 + 1) }),
      401,
      'mismatch',
    ],
    [
      'a truncated signature',
      () => post(body, { ...genuine, 'x-signature-sha256': genuine['x-signature-sha256']!.slice(0, 40) }),
      401,
      'wrong-length',
    ],
    [
      'a signature one byte too long',
      () => post(body, { ...genuine, 'x-signature-sha256': `${genuine['x-signature-sha256']}ab` }),
      401,
      'wrong-length',
    ],
    [
      'an odd-length signature',
      () => post(body, { ...genuine, 'x-signature-sha256': genuine['x-signature-sha256']!.slice(1) }),
      400,
      'malformed-signature',
    ],
    ['a stale delivery (older than the window)', () => post(body, signed(body, NOW_MS - 301_000)), 401, 'stale'],
    ['a delivery from the future (beyond the window)', () => post(body, signed(body, NOW_MS + 301_000)), 401, 'stale'],
    [
      'no timestamp header',
      () => post(body, { 'content-type': 'application/json', 'x-signature-sha256': genuine['x-signature-sha256']! }),
      400,
      'missing-timestamp',
    ],
    [
      'no signature header',
      () => post(body, { 'content-type': 'application/json', 'x-signature-timestamp': genuine['x-signature-timestamp']! }),
      400,
      'missing-signature',
    ],
    ['a timestamp that is not a number', () => post(body, { ...genuine, 'x-signature-timestamp': 'yesterday' }), 400, 'bad-timestamp'],
  ];

  it.each(cases)('refuses %s', async (_name, send, httpStatus, reason) => {
    const before = await state();
    const res = await send();
    expect(res.status).toBe(httpStatus);
    expect(res.json.reason).toBe(reason);
    expect(await state()).toEqual(before);
    expect(before.status).toBe('deposited');
    expect(await webhookCount(reason)).toBe(1);
  });

  it('refuses a replay of an accepted delivery', async () => {
    const pending = eventBody('pending');
    const headers = signed(pending);
    expect((await post(pending, headers)).json.result).toBe('recorded');
    const after = await state();
    const replay = await post(pending, headers);
    expect(replay.status).toBe(401);
    expect(replay.json.reason).toBe('replay');
    expect(await state()).toEqual(after);
  });

  it('refuses a body over the size cap with 413', async () => {
    const big = eventBody('success', { details: { padding: 'x'.repeat(5000) } });
    const res = await post(big, signed(big));
    expect(res.status).toBe(413);
    expect(res.json.reason).toBe('too_large');
    expect((await state()).status).toBe('deposited');
  });

  it('refuses a streamed body (no content-length) once it grows over the cap', async () => {
    const url = new URL(`${server.url}${PATH}`);
    const answer = await new Promise<{ status: number; reason: string }>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: signed('x') }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, reason: (JSON.parse(text) as { reason: string }).reason }));
      });
      req.on('error', reject);
      for (let i = 0; i < 5; i++) req.write('y'.repeat(1000)); // chunked: the size is only known while reading
      req.end();
    });
    expect(answer).toEqual({ status: 413, reason: 'too_large' });
    expect((await state()).status).toBe('deposited');
  });

  it('refuses a signed body that is not a request.status.updated payload', async () => {
    const bad = eventBody('success', { requestId: 42 });
    const res = await post(bad, signed(bad));
    expect(res.status).toBe(400);
    expect(res.json.reason).toBe('invalid_payload');
    expect(res.json.message).toContain('data.requestId');
    expect((await state()).status).toBe('deposited');
  });

  it('answers 405 to anything but POST', async () => {
    const res = await fetch(`${server.url}${PATH}`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('webhook receiver: accepted events', () => {
  it('closes our deposited transfer at once on success, with the fill hashes, through the store path', async () => {
    const body = eventBody('success');
    const res = await post(body, signed(body));
    expect(res).toEqual({ status: 200, json: { ok: true, result: 'closed' } });
    const row = (await getTransfer(db, transferId))!;
    expect(row.status).toBe('success');
    expect(row.relayStatus).toBe('success');
    expect(row.outTxHashes).toEqual([FILL]);
    expect(row.events.at(-1)).toMatchObject({ fromStatus: 'deposited', toStatus: 'success', atMs: NOW_MS });
    expect(row.events.at(-1)!.detail).toBe(`closed by webhook; ${FILL}`);
    const ends = await metrics.transfersTotal.get();
    expect(ends.values).toEqual([
      expect.objectContaining({ value: 1, labels: expect.objectContaining({ outcome: 'success', asset: 'USDC' }) }),
    ]);
  });

  it('records the failure reasons of a failed fill', async () => {
    const body = eventBody('failure', { failReason: 'DOUBLE_SPEND' });
    expect((await post(body, signed(body))).json.result).toBe('closed');
    const row = (await getTransfer(db, transferId))!;
    expect(row.status).toBe('failure');
    expect(row.events.at(-1)!.detail).toBe('closed by webhook; failReason DOUBLE_SPEND');
  });

  it('is idempotent under redelivery: the same event sent again later changes nothing', async () => {
    const body = eventBody('success');
    expect((await post(body, signed(body))).json.result).toBe('closed');
    const after = await state();
    const again = await post(body, signed(body, NOW_MS + 2000)); // a retry: new timestamp, new signature
    expect(again).toEqual({ status: 200, json: { ok: true, result: 'already_final' } });
    expect(await state()).toEqual(after);
  });

  it('stores a non-final status without moving the transfer, and skips an older one arriving late', async () => {
    const submitted = eventBody('submitted', { updatedAt: NOW_MS - 1000 });
    expect((await post(submitted, signed(submitted))).json.result).toBe('recorded');
    expect(await state()).toMatchObject({ status: 'deposited', relayStatus: 'submitted' });
    const late = eventBody('pending', { updatedAt: NOW_MS - 5000 });
    expect((await post(late, signed(late))).json.result).toBe('out_of_order');
    expect(await state()).toMatchObject({ status: 'deposited', relayStatus: 'submitted' });
  });

  it('acknowledges an event about a request that is not ours and writes nothing', async () => {
    const before = await state();
    const body = eventBody('success', { requestId: `0x${'99'.repeat(32)}` });
    expect(await post(body, signed(body))).toEqual({ status: 200, json: { ok: true, result: 'not_ours' } });
    expect(await state()).toEqual(before);
    expect(await webhookCount('not_ours')).toBe(1);
  });

  it('does not write a status whose inTxHashes name another deposit (same check as polled statuses)', async () => {
    const before = await state();
    const body = eventBody('success', { inTxHashes: [`0x${'77'.repeat(32)}`] });
    expect(await post(body, signed(body))).toEqual({ status: 200, json: { ok: true, result: 'foreign_deposit' } });
    expect(await state()).toEqual(before);
  });

  it('stores, but does not close on, a terminal status that names no deposit', async () => {
    const body = eventBody('success', { inTxHashes: [] });
    expect((await post(body, signed(body))).json.result).toBe('recorded');
    expect(await state()).toMatchObject({ status: 'deposited', relayStatus: 'success' });
  });

  it('acknowledges and ignores an event kind it does not handle', async () => {
    const before = await state();
    const body = eventBody('success', {}, { event: 'request.created' });
    expect(await post(body, signed(body))).toEqual({ status: 200, json: { ok: true, result: 'unknown_event' } });
    expect(await state()).toEqual(before);
  });

  it('wakes a tracker following the request with the pushed status', async () => {
    const sub = feed.subscribe(REQUEST_ID.toUpperCase().replace('0X', '0x'));
    const waiting = sub.next(60_000);
    const body = eventBody('success');
    expect((await post(body, signed(body))).json.result).toBe('closed');
    const pushed = await waiting;
    sub.close();
    expect(pushed).toMatchObject({ status: 'success', inTxHashes: [DEPOSIT], txHashes: [FILL] });
    // The tracker's cycle counts the transfer's end, not the receiver.
    expect((await metrics.transfersTotal.get()).values).toEqual([]);
  });

  it('answers 500 when the event cannot be stored, and accepts the same delivery again once it can', async () => {
    const body = eventBody('success');
    const headers = signed(body);
    db.sqlite.exec("CREATE TRIGGER refuse_updates BEFORE UPDATE ON transfers BEGIN SELECT RAISE(ABORT, 'disk says no'); END");
    const failed = await post(body, headers);
    expect(failed.status).toBe(500);
    expect((await state()).status).toBe('deposited');
    db.sqlite.exec('DROP TRIGGER refuse_updates');
    expect(await post(body, headers)).toEqual({ status: 200, json: { ok: true, result: 'closed' } });
    expect((await state()).status).toBe('success');
  });

  it('is served on the metrics server when it has no address of its own', async () => {
    const shared = await startMetricsServer({
      listen: '127.0.0.1:0',
      metrics,
      health: () => ({ ok: true, detail: {} }),
      handle: receiver.handle,
    });
    try {
      const body = eventBody('refund', { failReason: 'UNKNOWN' });
      expect(await post(body, signed(body), shared.url)).toEqual({ status: 200, json: { ok: true, result: 'closed' } });
      expect((await state()).status).toBe('refund');
      const exposition = await (await fetch(`${shared.url}/metrics`)).text();
      expect(exposition).toMatch(/ballast_webhooks_received_total\{result="closed"\} 1/);
      expect((await fetch(`${shared.url}/elsewhere`)).status).toBe(404);
    } finally {
      await shared.close();
    }
  });
});
