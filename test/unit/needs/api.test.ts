/**
 * The needs HTTP API (src/needs/api.ts, docs/needs.openapi.yaml) served for real on 127.0.0.1 (port 0) over a real
 * store, on both engines: POST records one need per Idempotency-Key (a retry answers 200 with the same need, other
 * content 409), malformed requests are 400 naming the field and record nothing, a missing or wrong token is 401 and
 * records nothing, GET lists, DELETE cancels (404 unknown, 409 not open). The token never reaches the log.
 */
import { Writable } from 'node:stream';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createLogger } from '../../../packages/ballast/src/log/logger.ts';
import { createNeedsApi, NEEDS_MAX_BODY_BYTES } from '../../../packages/ballast/src/needs/api.ts';
import type { NeedHolding } from '../../../packages/ballast/src/needs/resolveNeed.ts';
import { startNeedsServer, type NeedsServer } from '../../../packages/ballast/src/needs/server.ts';
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import { listNeeds } from '../../../packages/ballast/src/store/needs.ts';
import { describeEachEngine } from '../../helpers/storeEngines.ts';

const TOKEN = 'needs-api-token-7f3a9c2e51d4b860';
const NOW = Date.parse('2026-12-01T00:00:00Z');
const HOLDINGS: NeedHolding[] = [
  { asset: 'USDC', chain: 'base', wallet: 'treasury', decimals: 6 },
  { asset: 'USDC', chain: 'arbitrum', wallet: 'treasury', decimals: 6 },
  { asset: 'USDT', chain: 'base', wallet: 'treasury', decimals: null, decimalsError: 'token contract unreachable' },
];
const BODY = { asset: 'USDC', chain: 'base', amount: '50000', dueAt: '2026-12-06T09:00:00Z', note: 'December payroll' };

interface Answer {
  status: number;
  headers: Headers;
  json: Record<string, any>;
}

describeEachEngine('needs API', (engine) => {
  let db: StoreDb;
  let server: NeedsServer;
  let logLines: string[];

  beforeEach(async () => {
    db = await engine.open();
    logLines = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, cb) {
        logLines.push(chunk.toString());
        cb();
      },
    });
    const api = createNeedsApi({
      token: TOKEN,
      db,
      holdings: async () => HOLDINGS,
      now: () => NOW,
      logger: createLogger({ level: 'info', destination }),
    });
    server = await startNeedsServer('127.0.0.1:0', api);
  });
  afterEach(async () => {
    await server.close();
  });

  async function call(
    method: string,
    path: string,
    opts: { token?: string | null; key?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...opts.headers };
    const token = opts.token === undefined ? TOKEN : opts.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (opts.key !== undefined && opts.key !== null) headers['idempotency-key'] = opts.key;
    const body = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
    if (body !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${server.url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    return { status: res.status, headers: res.headers, json: text.startsWith('{') ? (JSON.parse(text) as Record<string, any>) : {} };
  }
  const post = (body: unknown, key: string | null = 'payroll-2026-12', token?: string | null) =>
    call('POST', '/v1/needs', { body, key, ...(token !== undefined ? { token } : {}) });
  const count = async () => (await listNeeds(db, { all: true })).length;

  it('POST records a need: 201 with whole and base units; the same key again is 200 with the same need', async () => {
    const created = await post(BODY);
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      idempotencyKey: 'payroll-2026-12',
      status: 'open',
      asset: 'USDC',
      chain: 'base',
      wallet: 'treasury',
      amount: '50000',
      amountBaseUnits: '50000000000',
      decimals: 6,
      dueAt: '2026-12-06T09:00:00.000Z',
      note: 'December payroll',
      createdBy: 'api',
      closedAt: null,
    });
    expect(created.headers.get('location')).toBe(`/v1/needs/${created.json.id}`);
    const again = await post(BODY);
    expect(again.status).toBe(200);
    expect(again.json).toEqual(created.json);
    const [stored, ...rest] = await listNeeds(db, { all: true });
    expect(rest).toEqual([]);
    expect({ id: stored!.id, amount: stored!.amount }).toEqual({ id: created.json.id, amount: 50_000_000_000n });

    const conflict = await post({ ...BODY, amount: '50001' });
    expect(conflict.status).toBe(409);
    expect(conflict.json.error).toMatchObject({ code: 'NEED_CONFLICT', field: 'amount' });
    expect(conflict.json.error.message).toContain('recorded 50000000000 base units, now 50001000000 base units');
    expect(await count()).toBe(1);
  });

  it('refuses malformed requests with 400 naming the field, and records nothing', async () => {
    const cases: [string, unknown, string | null, string][] = [
      ['more decimals than USDC', { ...BODY, amount: '1.1234567' }, 'amount', 'has 7 decimals but USDC on base:treasury has 6'],
      ['amount as a JSON number', { ...BODY, amount: 50000 }, 'amount', 'amount must be a string of whole units'],
      ['zero amount', { ...BODY, amount: '0' }, 'amount', 'must be above 0'],
      ['unknown chain', { ...BODY, chain: 'optimism' }, 'chain', 'USDC is not held on chain "optimism"'],
      ['past due time', { ...BODY, dueAt: '2026-11-30T09:00:00Z' }, 'dueAt', 'is not in the future'],
      ['due time without a zone', { ...BODY, dueAt: '2026-12-06T09:00:00' }, 'dueAt', 'ISO-8601 date and time with Z or an offset'],
      ['the key in the body', { ...BODY, idempotencyKey: 'k' }, 'idempotencyKey', 'the key goes in the Idempotency-Key header'],
      ['an extra field', { ...BODY, priority: 'high' }, 'priority', 'unknown field priority'],
      ['missing asset', { chain: 'base', amount: '1', dueAt: BODY.dueAt }, 'asset', 'asset must be a string'],
      ['not an object', ['USDC'], null, 'the body must be a JSON object'],
    ];
    for (const [name, body, field, message] of cases) {
      const a = await post(body, `key-${name.replace(/ /g, '-')}`);
      expect({ name, status: a.status, code: a.json.error?.code, field: a.json.error?.field }).toEqual({
        name,
        status: 400,
        code: 'NEED_INVALID',
        field,
      });
      expect(a.json.error.message, name).toContain(message);
    }
    const noKey = await post(BODY, null);
    expect([noKey.status, noKey.json.error.field]).toEqual([400, 'Idempotency-Key']);
    const badKey = await post(BODY, 'has space');
    expect([badKey.status, badKey.json.error.field]).toEqual([400, 'Idempotency-Key']);
    const notJson = await call('POST', '/v1/needs', { key: 'k1', raw: '{"asset": "USDC",' });
    expect([notJson.status, notJson.json.error.message]).toEqual([
      400,
      'the body is not JSON; send {"asset", "chain", "amount", "dueAt"} as a JSON object',
    ]);
    const text = await call('POST', '/v1/needs', { key: 'k2', raw: 'asset=USDC', headers: { 'content-type': 'text/plain' } });
    expect([text.status, text.json.error.code]).toEqual([415, 'NEED_UNSUPPORTED_MEDIA_TYPE']);
    const big = await post({ ...BODY, note: 'x'.repeat(NEEDS_MAX_BODY_BYTES) }, 'k3');
    expect([big.status, big.json.error.code]).toEqual([413, 'NEED_TOO_LARGE']);
    const unknownDecimals = await post({ ...BODY, asset: 'USDT' }, 'k4');
    expect([unknownDecimals.status, unknownDecimals.json.error.code, unknownDecimals.headers.get('retry-after')]).toEqual([
      503,
      'NEED_DECIMALS_UNKNOWN',
      '60',
    ]);
    expect(await count()).toBe(0);
  });

  it('answers 401 without the right bearer token and records nothing; the token never reaches the log', async () => {
    const wrong = [null, '', 'x', TOKEN.slice(0, -1), `${TOKEN}0`, TOKEN.toUpperCase()];
    for (const token of wrong) {
      const a = await post(BODY, 'payroll-2026-12', token);
      expect({ token, status: a.status, code: a.json.error?.code }).toEqual({ token, status: 401, code: 'NEED_UNAUTHORIZED' });
      expect(a.headers.get('www-authenticate')).toBe('Bearer realm="ballast-needs"');
    }
    const basic = await call('POST', '/v1/needs', { token: null, key: 'k', body: BODY, headers: { authorization: `Basic ${TOKEN}` } });
    expect(basic.status).toBe(401);
    expect((await call('GET', '/v1/needs', { token: 'nope-nope-nope-nope' })).status).toBe(401);
    expect((await call('DELETE', '/v1/needs/1', { token: null })).status).toBe(401);
    expect(await count()).toBe(0);
    expect((await post(BODY)).status).toBe(201); // the same request with the token is recorded
    expect(logLines.length).toBeGreaterThan(5);
    expect(logLines.join('')).not.toContain(TOKEN);
    expect(logLines.join('')).not.toContain(TOKEN.slice(0, -1));
  });

  it('GET lists open needs in due order (all=true: every one); DELETE cancels once; 404 and 405 where due', async () => {
    const later = (await post({ ...BODY, dueAt: '2026-12-20T09:00:00Z' }, 'later')).json;
    const sooner = (await post({ ...BODY, chain: 'arbitrum', amount: '0.5', dueAt: 1_796_547_600_000 }, 'sooner')).json;
    const listed = await call('GET', '/v1/needs');
    expect(listed.status).toBe(200);
    expect(listed.json.needs.map((n: { id: number; amount: string }) => [n.id, n.amount])).toEqual([
      [sooner.id, '0.5'],
      [later.id, '50000'],
    ]);

    const cancelled = await call('DELETE', `/v1/needs/${later.id}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toMatchObject({
      id: later.id,
      status: 'cancelled',
      closedReason: 'cancelled by api',
      closedAt: '2026-12-01T00:00:00.000Z',
    });
    const twice = await call('DELETE', `/v1/needs/${later.id}`);
    expect([twice.status, twice.json.error.code]).toEqual([409, 'NEED_NOT_OPEN']);
    expect((await call('DELETE', '/v1/needs/999')).json.error.code).toBe('NEED_NOT_FOUND');
    expect((await call('DELETE', '/v1/needs/abc')).status).toBe(404);

    expect((await call('GET', '/v1/needs')).json.needs.map((n: { id: number }) => n.id)).toEqual([sooner.id]);
    const all = await call('GET', '/v1/needs?all=true');
    expect(all.json.needs.map((n: { id: number; status: string }) => [n.id, n.status])).toEqual([
      [sooner.id, 'open'],
      [later.id, 'cancelled'],
    ]);
    expect((await call('GET', '/v1/needs?all=yes')).json.error).toMatchObject({ code: 'NEED_INVALID', field: 'all' });

    const put = await call('PUT', '/v1/needs', { body: BODY });
    expect([put.status, put.headers.get('allow')]).toEqual([405, 'GET, POST']);
    expect((await call('GET', `/v1/needs/${sooner.id}`)).headers.get('allow')).toBe('DELETE');
    expect((await call('GET', '/metrics')).status).toBe(404); // not the API's path
    expect(await count()).toBe(2);
  });
});
