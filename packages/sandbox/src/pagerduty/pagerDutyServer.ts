/**
 * A local PagerDuty Events API v2 endpoint: the documented wire protocol of `POST /v2/enqueue`
 * (https://developer.pagerduty.com/docs/events-api-v2/trigger-events/), so a sender pointed at it with its URL
 * sees what PagerDuty would answer, and a test sees the incidents PagerDuty would hold.
 *
 * - An event is checked by the rules of src/sandbox/pagerduty/eventRules.ts: a valid one is answered 202
 *   `{status: "success", message: "Event processed", dedup_key}` (a trigger without `dedup_key` gets a fresh one);
 *   an invalid one 400 `{status: "invalid event", message: "Event object is invalid", errors}`; a body that is not
 *   JSON 400 `{status: "Unrecognized object", message: "Event object format is unrecognized", errors: ["JSON parse
 *   error"]}`.
 * - {@link LocalPagerDuty.answerNext} makes the next requests answer 429 (throttled) or 5xx before anything is
 *   checked or kept, as PagerDuty does under load: a sender must retry them.
 * - Incidents are kept per `dedup_key` as PagerDuty keeps alerts: a trigger opens one unless one is open under the
 *   same key (then it is merged into it and counted), `acknowledge` marks the open one, `resolve` closes it (and is
 *   ignored when none is open); a trigger after a resolve opens a new one.
 *
 * Loopback only; everything lives in memory.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkEvent, type ValidEvent } from './eventRules.ts';

/** Path of the endpoint. */
export const ENQUEUE_PATH = '/v2/enqueue';
/** Largest body read, bytes (larger ones are answered 413 unread). */
const MAX_BODY_BYTES = 1024 * 1024;

/** One request as received, with the status it was answered. `body` is the parsed JSON, or the raw text when not JSON. */
export interface ReceivedRequest {
  body: unknown;
  status: number;
  atMs: number;
}

/** One incident: the alerts of one `dedup_key` from the trigger that opened it to the resolve that closed it. */
export interface LocalIncident {
  dedupKey: string;
  status: 'triggered' | 'acknowledged' | 'resolved';
  /** `payload` of the trigger that opened it. */
  payload: Record<string, unknown>;
  /** Triggers merged into it, the opening one included. */
  triggers: number;
  openedAtMs: number;
  resolvedAtMs: number | null;
}

/** A running local endpoint. */
export interface LocalPagerDuty {
  /** `http://127.0.0.1:<port>/v2/enqueue`: the sink's `url`. */
  url: string;
  /** Every request so far, in arrival order. */
  readonly requests: readonly ReceivedRequest[];
  /** Every event accepted (202) so far, in arrival order. */
  readonly events: readonly ValidEvent[];
  /** Every incident so far (resolved ones included), in opening order. */
  incidents(): LocalIncident[];
  /** The incidents of one `dedup_key`, oldest first. */
  incidentsOf(dedupKey: string): LocalIncident[];
  /** Answers the next `count` requests with `status` (429, 500, 502, 503 or 504), keeping nothing of them. */
  answerNext(status: 429 | 500 | 502 | 503 | 504, count?: number): void;
  close(): Promise<void>;
}

/**
 * Starts the endpoint on 127.0.0.1 and a free port.
 *
 * @param opts.now the clock of `atMs` / `openedAtMs`, ms (default `Date.now`)
 */
export async function startLocalPagerDuty(opts: { now?: () => number } = {}): Promise<LocalPagerDuty> {
  const now = opts.now ?? Date.now;
  const requests: ReceivedRequest[] = [];
  const events: ValidEvent[] = [];
  const incidents: LocalIncident[] = [];
  const scripted: number[] = [];

  const open = (key: string): LocalIncident | undefined => incidents.find((i) => i.dedupKey === key && i.status !== 'resolved');
  const apply = (event: ValidEvent): string => {
    const key = event.dedupKey ?? randomBytes(16).toString('hex');
    const current = open(key);
    if (event.action === 'trigger') {
      if (current) current.triggers++;
      else
        incidents.push({
          dedupKey: key,
          status: 'triggered',
          payload: event.payload ?? {},
          triggers: 1,
          openedAtMs: now(),
          resolvedAtMs: null,
        });
    } else if (current && event.action === 'acknowledge') current.status = 'acknowledged';
    else if (current && event.action === 'resolve') {
      current.status = 'resolved';
      current.resolvedAtMs = now();
    }
    return key;
  };

  const answer = (res: ServerResponse, status: number, body: unknown, received: unknown): void => {
    requests.push({ body: received, status, atMs: now() });
    res.writeHead(status, { 'content-type': 'application/json' }).end(body === undefined ? '' : JSON.stringify(body));
  };

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string): void => {
    const status = scripted.shift();
    if (status !== undefined) return answer(res, status, status === 429 ? undefined : { status: 'error', message: 'Internal error' }, raw);
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return answer(
        res,
        400,
        { status: 'Unrecognized object', message: 'Event object format is unrecognized', errors: ['JSON parse error'] },
        raw,
      );
    }
    const checked = checkEvent(body);
    if (!checked.ok) return answer(res, 400, { status: 'invalid event', message: 'Event object is invalid', errors: checked.errors }, body);
    events.push(checked.event);
    answer(res, 202, { status: 'success', message: 'Event processed', dedup_key: apply(checked.event) }, body);
  };

  const server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== ENQUEUE_PATH) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'not found', message: 'Not found' }));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) res.writeHead(413).end();
      else handle(req, res, Buffer.concat(chunks).toString('utf8'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo; // a TCP listener
  return {
    url: `http://127.0.0.1:${port}${ENQUEUE_PATH}`,
    requests,
    events,
    incidents: () => [...incidents],
    incidentsOf: (key) => incidents.filter((i) => i.dedupKey === key),
    answerNext(status, count = 1) {
      for (let i = 0; i < count; i++) scripted.push(status);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
