/**
 * The needs HTTP API (docs/needs.md, contract in docs/needs.openapi.yaml), an HTTP handler `ballast daemon` serves
 * on the metrics server or on `needs.listen` (src/needs/server.ts) when `needs.token` is set:
 *
 * - `POST /v1/needs` with `Idempotency-Key: <key>` and a JSON body `{asset, chain, wallet?, amount, dueAt, note?}`
 *   records a need: 201 with it (and `Location`), 200 with the need already recorded under that key with the same
 *   content, 409 when the key is recorded with other content;
 * - `GET /v1/needs` lists the open needs (`?all=true`: every one), in due order;
 * - `DELETE /v1/needs/{id}` cancels an open need: 200 with it, 404 unknown, 409 not open.
 *
 * Every request needs `Authorization: Bearer <needs.token>`, compared in constant time (SHA-256 of both sides,
 * `timingSafeEqual`); without it the answer is 401 and nothing is read or recorded. Bodies are capped at
 * {@link NEEDS_MAX_BODY_BYTES} (413). Errors are `{error: {code, message, field}}` with a `NEED_*` code
 * (docs/errors.md). Every request is logged (method, path, status, code, need id); the token never is.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { z } from 'zod';
import { shortErrorMessage } from '../core/errorMessage.ts';
import type { StoreDb } from '../store/db.ts';
import { addNeed, cancelNeed, findNeedByKey, listNeeds, NeedStoreError } from '../store/needs.ts';
import { readRawBody } from '../webhooks/readRawBody.ts';
import { decimalsOfNeed, needJson } from './needView.ts';
import { checkNeedKey, MAX_NEED_NOTE_CHARS, NeedDecimalsError, NeedInputError, resolveNeed, type NeedHolding } from './resolveNeed.ts';

/** The collection's path; a need is `${NEEDS_PATH}/{id}`. */
export const NEEDS_PATH = '/v1/needs';
/** Largest request body accepted, bytes (413 beyond). */
export const NEEDS_MAX_BODY_BYTES = 16 * 1024;
/** `created_by` of needs recorded and `closed_by` of needs cancelled through the API. */
export const NEEDS_API_ACTOR = 'api';

/** Options of {@link createNeedsApi}. */
export interface NeedsApiOptions {
  /** `needs.token`: the bearer token every request must carry. Never logged. */
  token: string;
  db: StoreDb;
  /** The configured holdings with their decimals (src/needs/holdings.ts `needHoldingsSource`). */
  holdings: () => Promise<NeedHolding[]>;
  /** Current time, ms. */
  now: () => number;
  logger: Logger;
  /** Body cap, bytes (default {@link NEEDS_MAX_BODY_BYTES}). */
  maxBodyBytes?: number;
}

/** The API: `handle` answers requests under {@link NEEDS_PATH} and returns false for any other path (to share a server). */
export interface NeedsApi {
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
}

/** The body of `POST /v1/needs` (strict: an unknown field is refused; the key travels in `Idempotency-Key`). */
export const NeedBodySchema = z.strictObject({
  asset: z
    .string({ error: 'asset must be a string: an asset under assets: in the config, e.g. "USDC"' })
    .min(1, 'asset must not be empty')
    .max(64, 'asset must be at most 64 characters'),
  chain: z
    .string({ error: 'chain must be a string: a chain name under chains: in the config, e.g. "base"' })
    .min(1, 'chain must not be empty')
    .max(64, 'chain must be at most 64 characters'),
  wallet: z
    .string({ error: 'wallet must be a string: a wallet name under wallets: in the config' })
    .min(1, 'wallet must not be empty; leave it out when the asset has one holding on the chain')
    .max(64, 'wallet must be at most 64 characters')
    .optional(),
  amount: z
    .string({ error: 'amount must be a string of whole units, e.g. "50000" (not a JSON number)' })
    .max(100, 'amount must be at most 100 characters'),
  dueAt: z.union([z.string().max(64), z.number()], {
    error: 'dueAt must be an ISO-8601 date and time with Z or an offset, e.g. "2026-12-06T09:00:00Z", or ms since the epoch',
  }),
  note: z
    .string({ error: 'note must be a string' })
    .max(MAX_NEED_NOTE_CHARS, `note must be at most ${MAX_NEED_NOTE_CHARS} characters`)
    .optional(),
});

/** An answer: status, JSON body, extra headers; `null` body: the connection is dropped (the client went away). */
interface Reply {
  status: number;
  body: object | null;
  headers?: Record<string, string>;
  /** For the log line. */
  code?: string;
  needId?: number;
}

const fail = (status: number, code: string, message: string, field: string | null = null, headers?: Record<string, string>): Reply => ({
  status,
  body: { error: { code, message, field } },
  code,
  ...(headers ? { headers } : {}),
});

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * Builds the API.
 *
 * @throws Error when `token` is empty (the config requires at least 16 characters)
 */
export function createNeedsApi(opts: NeedsApiOptions): NeedsApi {
  if (!opts.token) throw new Error('the needs API needs needs.token');
  const log = opts.logger.child({ component: 'needs-api' });
  const expected = sha256(opts.token);
  const maxBodyBytes = opts.maxBodyBytes ?? NEEDS_MAX_BODY_BYTES;

  /** Constant-time check of `Authorization: Bearer <token>` (digests of equal length, whatever was sent). */
  const authorized = (req: IncomingMessage): boolean => {
    const m = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '');
    return timingSafeEqual(sha256(m?.[1] ?? ''), expected) && m !== null;
  };

  const decimalsList = async (): Promise<NeedHolding[]> => {
    try {
      return await opts.holdings();
    } catch (error) {
      log.warn({ err: shortErrorMessage(error) }, 'token decimals unavailable; amounts listed in base units only');
      return [];
    }
  };

  async function create(req: IncomingMessage): Promise<Reply> {
    const type = (req.headers['content-type'] ?? 'application/json').split(';')[0]!.trim().toLowerCase(); // split yields one item at least
    if (type !== 'application/json') {
      req.resume();
      return fail(415, 'NEED_UNSUPPORTED_MEDIA_TYPE', `Content-Type ${type} is not accepted; send application/json`, 'Content-Type');
    }
    const keyHeader = req.headers['idempotency-key'];
    if (typeof keyHeader !== 'string' || keyHeader === '') {
      req.resume();
      return fail(
        400,
        'NEED_INVALID',
        'send Idempotency-Key: <key> (1–200 printable characters, e.g. payroll-2026-12): a retry with the same key records nothing twice',
        'Idempotency-Key',
      );
    }
    try {
      checkNeedKey(keyHeader, 'Idempotency-Key');
    } catch (error) {
      req.resume();
      if (error instanceof NeedInputError) return fail(400, error.code, error.message, error.field);
      throw error;
    }
    const raw = await readRawBody(req, maxBodyBytes);
    if (raw.kind === 'aborted') return { status: 0, body: null, code: 'aborted' };
    if (raw.kind === 'too-large')
      return fail(413, 'NEED_TOO_LARGE', `the body is over ${maxBodyBytes} bytes; a need is a few hundred`, null, { connection: 'close' });
    let json: unknown;
    try {
      json = JSON.parse(raw.bytes.toString('utf8'));
    } catch {
      return fail(400, 'NEED_INVALID', 'the body is not JSON; send {"asset", "chain", "amount", "dueAt"} as a JSON object', null);
    }
    const parsed = NeedBodySchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues.find((i) => i.code === 'unrecognized_keys') ?? parsed.error.issues[0]!; // a failed parse has issues
      if (issue.code === 'unrecognized_keys') {
        const fields = issue.keys.join(', ');
        return fail(
          400,
          'NEED_INVALID',
          `unknown field ${fields}; the body takes asset, chain, wallet, amount, dueAt and note (the key goes in the Idempotency-Key header)`,
          issue.keys[0] ?? null,
        );
      }
      const field = issue.path.length > 0 ? issue.path.map(String).join('.') : null;
      const message = issue.path.length === 0 ? 'the body must be a JSON object {asset, chain, amount, dueAt}' : issue.message;
      return fail(400, 'NEED_INVALID', message, field);
    }
    const body = parsed.data;
    const request = { ...body, idempotencyKey: keyHeader };
    const holdings = await opts.holdings();
    const recorded = (await findNeedByKey(opts.db, keyHeader)) ?? null;
    try {
      const need = resolveNeed(request, holdings, { nowMs: opts.now(), createdBy: NEEDS_API_ACTOR, recorded });
      const { need: row, created } = await addNeed(opts.db, need, opts.now());
      const decimals = decimalsOfNeed(row, holdings);
      return created
        ? { status: 201, body: needJson(row, decimals), headers: { location: `${NEEDS_PATH}/${row.id}` }, needId: row.id, code: 'created' }
        : { status: 200, body: needJson(row, decimals), needId: row.id, code: 'replayed' };
    } catch (error) {
      if (error instanceof NeedInputError) return fail(400, error.code, error.message, error.field);
      if (error instanceof NeedDecimalsError) return fail(503, error.code, error.message, null, { 'retry-after': '60' });
      if (error instanceof NeedStoreError && error.code === 'NEED_CONFLICT') {
        return { ...fail(409, error.code, error.message, error.field), needId: error.existing?.id };
      }
      throw error;
    }
  }

  async function list(url: URL): Promise<Reply> {
    const all = url.searchParams.get('all');
    if (all !== null && all !== 'true' && all !== 'false')
      return fail(400, 'NEED_INVALID', `all must be true or false, got ${JSON.stringify(all)}`, 'all');
    const needs = await listNeeds(opts.db, { all: all === 'true' });
    const holdings = needs.length > 0 ? await decimalsList() : [];
    return { status: 200, body: { needs: needs.map((n) => needJson(n, decimalsOfNeed(n, holdings))) } };
  }

  async function cancel(id: number): Promise<Reply> {
    try {
      const need = await cancelNeed(opts.db, id, opts.now(), NEEDS_API_ACTOR);
      return { status: 200, body: needJson(need, decimalsOfNeed(need, await decimalsList())), needId: id, code: 'cancelled' };
    } catch (error) {
      if (error instanceof NeedStoreError && error.code === 'NEED_NOT_FOUND')
        return { ...fail(404, error.code, error.message), needId: id };
      if (error instanceof NeedStoreError && error.code === 'NEED_NOT_OPEN') return { ...fail(409, error.code, error.message), needId: id };
      throw error;
    }
  }

  async function route(req: IncomingMessage, url: URL): Promise<Reply> {
    const method = req.method ?? 'GET';
    if (!authorized(req)) {
      req.resume(); // nothing of the request is read
      return fail(401, 'NEED_UNAUTHORIZED', 'send Authorization: Bearer <needs.token>', 'Authorization', {
        'www-authenticate': 'Bearer realm="ballast-needs"',
        connection: 'close',
      });
    }
    if (url.pathname === NEEDS_PATH) {
      if (method === 'POST') return create(req);
      req.resume();
      if (method === 'GET') return list(url);
      return fail(405, 'NEED_METHOD_NOT_ALLOWED', `${method} is not allowed on ${NEEDS_PATH}; use GET or POST`, null, {
        allow: 'GET, POST',
      });
    }
    req.resume();
    const id = url.pathname.slice(NEEDS_PATH.length + 1);
    if (!/^[1-9][0-9]{0,14}$/.test(id))
      return fail(404, 'NEED_NOT_FOUND', `no such resource ${url.pathname}; a need is ${NEEDS_PATH}/<id>`);
    if (method !== 'DELETE')
      return fail(405, 'NEED_METHOD_NOT_ALLOWED', `${method} is not allowed on ${NEEDS_PATH}/{id}; use DELETE to cancel`, null, {
        allow: 'DELETE',
      });
    return cancel(Number(id));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? '/', 'http://needs.invalid');
    if (url.pathname !== NEEDS_PATH && !url.pathname.startsWith(`${NEEDS_PATH}/`)) return false;
    let reply: Reply;
    try {
      reply = await route(req, url);
    } catch (error) {
      log.error({ method: req.method, path: url.pathname, err: shortErrorMessage(error) }, 'needs API request failed');
      reply = fail(500, 'NEED_INTERNAL', 'the request could not be completed; retry it (with the same Idempotency-Key for a POST)');
    }
    const fields = { method: req.method, path: url.pathname, status: reply.status, code: reply.code, needId: reply.needId };
    if (reply.body === null) {
      res.destroy();
      log.info(fields, 'needs API request aborted by the client');
      return true;
    }
    if (reply.status >= 500) log.error(fields, 'needs API request');
    else if (reply.status >= 400) log.warn(fields, 'needs API request refused');
    else log.info(fields, 'needs API request');
    sendJson(res, reply.status, reply.body, reply.headers);
    return true;
  }

  return { handle };
}

function sendJson(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  const text = `${JSON.stringify(body)}\n`;
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('content-type', 'application/json');
  res.setHeader('cache-control', 'no-store');
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(text);
}
