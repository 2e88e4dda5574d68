/**
 * `ballast api-check --save DIR`: writes each raw response as it came (`<name>.json`, the body; not-JSON bodies
 * as `<name>.txt`) and its status, endpoint, request body and response headers (`<name>.headers.json`), so they
 * can become test fixtures. Credentials never reach the files: the API key and URL credentials are replaced by
 * `[redacted]` in every text (src/relay/errors.ts `redactSecrets`), and credential-bearing headers
 * (`authorization`, `x-api-key`, `set-cookie`, `proxy-authorization`, `cookie`) are dropped.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { redactSecrets } from '../relay/errors.ts';
import type { ApiCheckExchange } from '../relay/apiCheck/apiCheck.ts';

const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'cookie', 'set-cookie']);

/**
 * Writes the exchanges into `dir` (created when missing).
 *
 * @param secrets the texts to redact (the API key, URL credentials)
 * @returns the paths written
 * @throws the file system's error when `dir` cannot be created or written
 */
export function saveApiCheckExchanges(dir: string, exchanges: readonly ApiCheckExchange[], secrets: readonly string[]): string[] {
  mkdirSync(dir, { recursive: true });
  const scrub = (s: string): string => redactSecrets(s, secrets);
  const written: string[] = [];
  for (const x of exchanges) {
    const headers = Object.fromEntries(
      Object.entries(x.result.headers)
        .filter(([name]) => !CREDENTIAL_HEADERS.has(name))
        .map(([n, v]) => [n, scrub(v)]),
    );
    const meta = {
      endpoint: x.result.endpoint,
      status: x.result.status,
      ...(x.result.error !== undefined ? { error: scrub(x.result.error) } : {}),
      ...(x.request !== undefined ? { request: JSON.parse(scrub(JSON.stringify(x.request))) as unknown } : {}),
      headers,
    };
    const metaFile = path.join(dir, `${x.name}.headers.json`);
    writeFileSync(metaFile, `${JSON.stringify(meta, null, 2)}\n`);
    written.push(metaFile);
    if (x.result.status === null) continue;
    const isJson = x.result.json !== undefined;
    const bodyFile = path.join(dir, `${x.name}.${isJson ? 'json' : 'txt'}`);
    writeFileSync(bodyFile, isJson ? `${scrub(JSON.stringify(x.result.json, null, 2))}\n` : scrub(x.result.bodyText));
    written.push(bodyFile);
  }
  return written;
}
