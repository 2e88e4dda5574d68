/**
 * A small HTTP client for one Esplora API (github.com/Blockstream/esplora API.md): GET with JSON or text
 * answers parsed by zod, and POST /tx. Every request has a timeout; a non-2xx answer, a transport error, a
 * timeout or a body that does not parse throws {@link BvmEsploraError} naming `chains.<name>.esploraUrl`, the
 * request path and the status. Only the `…OrNull` reads turn a 404 into null, for the lookups where "the
 * node does not have it" is an answer. Credentials in the base URL (`https://user:key@host/api`) are sent as
 * a Basic authorization header; the base URL never appears in a message (a provider key may sit in its path).
 */
import type { z } from 'zod';
import { BvmEsploraError } from './errors.ts';

/** Default time an Esplora request may take, ms. */
export const DEFAULT_ESPLORA_TIMEOUT_MS = 10_000;

/** The path of the tip height, whose highest answer the client remembers. */
const TIP_HEIGHT_PATH = '/blocks/tip/height';

/** Most characters of an Esplora error body kept in a message. */
const MAX_BODY_CHARS = 200;

/** Options of {@link createEsploraClient}. */
export interface EsploraClientOptions {
  /** Config name of the chain (`chains.<name>`), for messages. */
  name: string;
  /** Esplora API base URL, e.g. `https://blockstream.info/api` (trailing slash optional). */
  esploraUrl: string;
  /** The fetch to use (default the global fetch). */
  fetch?: typeof globalThis.fetch;
  /** Time one request may take, ms (default {@link DEFAULT_ESPLORA_TIMEOUT_MS}). */
  timeoutMs?: number;
}

/** An Esplora API. Paths start with `/` and are already URL-encoded where needed. */
export interface EsploraClient {
  /** `chains.<name>.esploraUrl`, the YAML path messages name. */
  readonly at: string;
  /** GET a JSON answer. @throws BvmEsploraError on any failure, 404 included */
  getJson<S extends z.ZodType>(path: string, schema: S): Promise<z.output<S>>;
  /** GET a JSON answer; null on 404. @throws BvmEsploraError on any other failure */
  getJsonOrNull<S extends z.ZodType>(path: string, schema: S): Promise<z.output<S> | null>;
  /** GET a text answer. @throws BvmEsploraError on any failure, 404 included */
  getText<S extends z.ZodType>(path: string, schema: S): Promise<z.output<S>>;
  /** GET a text answer; null on 404. @throws BvmEsploraError on any other failure */
  getTextOrNull<S extends z.ZodType>(path: string, schema: S): Promise<z.output<S> | null>;
  /** POST a text body; resolves with the answer's text. @throws BvmEsploraError with the node's text on non-2xx */
  postText(path: string, body: string): Promise<string>;
  /**
   * The highest tip height this client has read (`/blocks/tip/height`), or null before the first read: a
   * load-balanced API may answer one read from a backend that lags, and what was seen higher before still holds.
   */
  highestTip(): bigint | null;
}

/** First line of a body, URLs cut out, bounded. */
function bodyWords(text: string): string {
  const line = (text.split('\n')[0] ?? '').replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>').trim();
  return line.length > MAX_BODY_CHARS ? `${line.slice(0, MAX_BODY_CHARS)}…` : line;
}

/**
 * Splits credentials off the base URL: the URL to build on, its path without a trailing slash (`prefix`), and
 * the authorization header the credentials become.
 */
function baseOf(esploraUrl: string): { base: URL; prefix: string; headers: Record<string, string> } {
  const base = new URL(esploraUrl);
  const headers: Record<string, string> = {};
  if (base.username !== '' || base.password !== '') {
    const user = decodeURIComponent(base.username);
    const pass = decodeURIComponent(base.password);
    headers['authorization'] = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
    base.username = '';
    base.password = '';
  }
  return { base, prefix: base.pathname.replace(/\/+$/, ''), headers };
}

/**
 * Creates the client of one chain's Esplora API.
 *
 * @throws TypeError when `esploraUrl` is not a URL (config validation refuses those first)
 * @example
 * const esplora = createEsploraClient({ name: 'bitcoin', esploraUrl: 'https://blockstream.info/api' });
 * const tip = await esplora.getText('/blocks/tip/height', HeightTextSchema); // 870000n
 */
export function createEsploraClient(opts: EsploraClientOptions): EsploraClient {
  const at = `chains.${opts.name}.esploraUrl`;
  const doFetch = opts.fetch ?? globalThis.fetch;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_ESPLORA_TIMEOUT_MS;
  const { base, prefix, headers } = baseOf(opts.esploraUrl);
  let highest: bigint | null = null;

  async function request(method: 'GET' | 'POST', path: string, body?: string): Promise<{ status: number; text: string }> {
    const url = new URL(base.href);
    url.pathname = `${prefix}${path}`;
    const what = `${method} ${path}`;
    try {
      const res = await doFetch(url, {
        method,
        headers: body === undefined ? headers : { ...headers, 'content-type': 'text/plain' },
        ...(body === undefined ? {} : { body }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      return { status: res.status, text: await res.text() };
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      const why = timedOut
        ? `did not answer ${what} within ${timeoutMs} ms`
        : `could not be reached for ${what} (${error instanceof Error ? bodyWords(error.message) : 'transport error'})`;
      throw new BvmEsploraError(`${at} ${why}; check the URL and that the server is up`, { status: null, path, cause: error });
    }
  }

  function failed(method: string, path: string, res: { status: number; text: string }): BvmEsploraError {
    const words = bodyWords(res.text);
    return new BvmEsploraError(`${at} answered HTTP ${res.status} to ${method} ${path}${words === '' ? '' : `: ${words}`}`, {
      status: res.status,
      path,
    });
  }

  function parse<S extends z.ZodType>(path: string, schema: S, value: unknown): z.output<S> {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    throw new BvmEsploraError(
      `${at} answered GET ${path} with an unexpected body${where}: ${issue?.message ?? 'invalid'}; is it an Esplora API?`,
      {
        status: 200,
        path,
        cause: parsed.error,
      },
    );
  }

  function json(path: string, text: string): unknown {
    try {
      return JSON.parse(text) as unknown; // widened from any: the schema parses it next
    } catch (error) {
      throw new BvmEsploraError(`${at} answered GET ${path} with a body that is not JSON: ${bodyWords(text)}; is it an Esplora API?`, {
        status: 200,
        path,
        cause: error,
      });
    }
  }

  async function get(path: string, notFoundIsNull: boolean): Promise<string | null> {
    const res = await request('GET', path);
    if (res.status >= 200 && res.status < 300) return res.text;
    if (notFoundIsNull && res.status === 404) return null;
    throw failed('GET', path, res);
  }

  return {
    at,
    async getJson(path, schema) {
      return parse(path, schema, json(path, (await get(path, false)) ?? ''));
    },
    async getJsonOrNull(path, schema) {
      const text = await get(path, true);
      return text === null ? null : parse(path, schema, json(path, text));
    },
    async getText(path, schema) {
      const value = parse(path, schema, (await get(path, false)) ?? '');
      if (path === TIP_HEIGHT_PATH && typeof value === 'bigint' && (highest === null || value > highest)) highest = value;
      return value;
    },
    async getTextOrNull(path, schema) {
      const text = await get(path, true);
      return text === null ? null : parse(path, schema, text);
    },
    highestTip: () => highest,
    async postText(path, body) {
      const res = await request('POST', path, body);
      if (res.status >= 200 && res.status < 300) return res.text;
      throw failed('POST', path, res);
    },
  };
}
