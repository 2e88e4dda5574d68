/**
 * The webhook receiver (docs/relay-contract.md "Events" → "Webhooks"): an HTTP handler for `POST <webhooks.path>` that
 * 1. reads the raw body, capped at `webhooks.maxBodyBytes` (413 beyond);
 * 2. verifies `X-Signature-SHA256` = HMAC-SHA256(`relay.apiKey`, `<X-Signature-Timestamp>.<raw body>`) in
 *    constant time on equal lengths, the timestamp within `webhooks.toleranceSec` of now, and no replay
 *    (src/relay/webhookSignature.ts): 400 for missing or malformed headers, 401 for a signature that does not
 *    verify, a stale timestamp or a replay, each with a short reason;
 * 3. parses the payload (src/relay/webhookSchemas.ts): an `event` kind other than `request.status.updated` is
 *    answered 200 and ignored; a malformed `request.status.updated` is 400;
 * 4. applies the status to our transfer (src/webhooks/applyStatusEvent.ts): ownership check, then the store
 *    path polling uses; events about requests that are not ours are answered 200 and ignored;
 * 5. wakes a tracker following the request in this process (src/webhooks/statusFeed.ts).
 * Every delivery is logged and counted in `ballast_webhooks_received_total{result}`. Answers are JSON:
 * `{ok, result}` or `{ok: false, reason, message}`. A store failure is 500 (the sender retries).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { BallastMetrics } from '../metrics/metrics.ts';
import {
  RequestStatusUpdatedSchema,
  REQUEST_STATUS_UPDATED,
  WebhookEnvelopeSchema,
  statusFromEvent,
} from '@ballast/protocol/relay/webhookSchemas.ts';
import { verifyWebhookSignature, WebhookReplayGuard, type WebhookRejectReason } from '@ballast/protocol/relay/webhookSignature.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import type { StoreDb } from '../store/db.ts';
import { applyStatusEvent, AppliedEvents, type ApplyOutcome } from './applyStatusEvent.ts';
import { readRawBody } from './readRawBody.ts';
import type { StatusFeed } from './statusFeed.ts';

/** Options of {@link createWebhookReceiver}. */
export interface WebhookReceiverOptions {
  /** URL path served, e.g. `/webhooks/relay` (query strings are ignored). */
  path: string;
  /** The HMAC secret: `relay.apiKey`. Never logged. */
  secret: string;
  /** Timestamp window either way, seconds. */
  toleranceSec: number;
  /** Body size cap, bytes. */
  maxBodyBytes: number;
  db: StoreDb;
  metrics: Pick<BallastMetrics, 'webhooksReceivedTotal' | 'transfersTotal'>;
  logger: Logger;
  feed: StatusFeed;
  /** Current time, ms. */
  now: () => number;
}

/** A receiver: `handle` answers requests for its path and returns false for any other (to share a server). */
export interface WebhookReceiver {
  path: string;
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
}

/** Signature refusals answered 400 (the request is malformed); the others are 401. */
const BAD_REQUEST_REASONS: readonly WebhookRejectReason[] = [
  'missing-timestamp',
  'missing-signature',
  'bad-timestamp',
  'malformed-signature',
];

/**
 * Builds the receiver.
 *
 * @throws Error when `secret` is empty (the config loader refuses `webhooks.enabled` without `relay.apiKey`)
 */
export function createWebhookReceiver(opts: WebhookReceiverOptions): WebhookReceiver {
  if (!opts.secret) throw new Error('webhook receiver needs relay.apiKey as its secret');
  const log = opts.logger.child({ component: 'webhooks' });
  const replays = new WebhookReplayGuard();
  const applied = new AppliedEvents();
  const count = (result: string) => opts.metrics.webhooksReceivedTotal.inc({ result });

  const refuse = (res: ServerResponse, status: number, reason: string, message: string) => {
    count(reason);
    log.warn({ status, reason, detail: message }, 'webhook delivery refused');
    sendJson(res, status, { ok: false, reason, message });
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    if ((req.url ?? '/').split('?')[0] !== opts.path) return false;
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      refuse(res, 405, 'method_not_allowed', `${req.method ?? '?'} not allowed; Relay posts deliveries`);
      return true;
    }
    const body = await readRawBody(req, opts.maxBodyBytes);
    if (body.kind === 'aborted') {
      count('aborted');
      res.destroy();
      return true;
    }
    if (body.kind === 'too-large') {
      res.setHeader('connection', 'close');
      refuse(res, 413, 'too_large', `body over webhooks.maxBodyBytes (${opts.maxBodyBytes} bytes)`);
      return true;
    }
    const signature = header(req, 'x-signature-sha256');
    const verdict = verifyWebhookSignature({
      secret: opts.secret,
      timestampHeader: header(req, 'x-signature-timestamp'),
      signatureHeader: signature,
      rawBody: body.bytes,
      nowMs: opts.now(),
      windowSec: opts.toleranceSec,
      replays,
    });
    if (!verdict.ok) {
      refuse(res, BAD_REQUEST_REASONS.includes(verdict.reason) ? 400 : 401, verdict.reason, verdict.detail);
      return true;
    }
    let json: unknown;
    try {
      json = JSON.parse(body.bytes.toString('utf8'));
    } catch {
      refuse(res, 400, 'invalid_payload', 'body is not JSON');
      return true;
    }
    const envelope = WebhookEnvelopeSchema.safeParse(json);
    if (!envelope.success) {
      refuse(res, 400, 'invalid_payload', 'payload has no event kind');
      return true;
    }
    if (envelope.data.event !== REQUEST_STATUS_UPDATED) {
      count('unknown_event');
      log.info({ event: envelope.data.event }, 'webhook event kind not handled; acknowledged and ignored');
      sendJson(res, 200, { ok: true, result: 'unknown_event' });
      return true;
    }
    const event = RequestStatusUpdatedSchema.safeParse(json);
    if (!event.success) {
      const where = event.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`).join('; ');
      refuse(res, 400, 'invalid_payload', `not a request.status.updated payload (${where})`);
      return true;
    }
    const requestId = event.data.data.requestId;
    const status = statusFromEvent(event.data);
    let outcome: ApplyOutcome;
    try {
      // One transaction per event: it may arrive while a cycle is writing the same transfer (SQLite: it waits for
      // the cycle's transaction; PostgreSQL: the transfer's row is locked from the first read to the commit).
      outcome = await opts.db.transaction(() => applyStatusEvent(opts.db, requestId, status, opts.now(), applied));
    } catch (error) {
      // Not processed: the same delivery may come again and must then be accepted.
      if (signature) replays.release(signature);
      count('error');
      log.error(
        { requestId, status: status.status, err: shortErrorMessage(error) },
        'webhook event could not be stored; answered 500 for a retry',
      );
      sendJson(res, 500, { ok: false, reason: 'error', message: 'the event could not be stored; retry later' });
      return true;
    }
    const tracked =
      outcome.transferId !== undefined && outcome.result !== 'foreign_deposit' && outcome.result !== 'out_of_order'
        ? opts.feed.publish(requestId, status)
        : 0;
    if (outcome.result === 'closed' && tracked === 0 && outcome.row) {
      // No tracker of this process will report it: this is where the transfer's end is counted.
      const r = outcome.row;
      opts.metrics.transfersTotal.inc({
        outcome: status.status,
        asset: r.asset,
        origin_chain: r.originChain,
        destination_chain: r.destinationChain,
      });
    }
    count(outcome.result);
    const fields = {
      requestId,
      status: status.status,
      result: outcome.result,
      transferId: outcome.transferId,
      transferStatus: outcome.transferStatus,
    };
    if (outcome.result === 'foreign_deposit')
      log.error({ ...fields, inTxHashes: status.inTxHashes }, 'webhook status does not name our deposit; not accepted');
    else if (outcome.result === 'not_ours') log.info(fields, 'webhook for a request that is not ours; ignored');
    else log.info(fields, 'webhook status applied');
    sendJson(res, 200, { ok: true, result: outcome.result });
    return true;
  }

  return { path: opts.path, handle };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}

function sendJson(res: ServerResponse, status: number, body: object): void {
  const text = `${JSON.stringify(body)}\n`;
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.setHeader('cache-control', 'no-store');
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(text);
}
