/**
 * Small node:http helpers for the sandbox API: JSON bodies in and out.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SandboxApiError } from '../quote/errors.ts';

/** Largest request body accepted, bytes. */
export const MAX_BODY_BYTES = 1_000_000;

/**
 * Reads and parses a JSON request body. An empty body reads as `{}`.
 *
 * @throws SandboxApiError 400 `{message}` when the body is not JSON or is larger than {@link MAX_BODY_BYTES}
 */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer; // node:http yields Buffers when no encoding is set
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw new SandboxApiError(400, null, `request body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(buf);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new SandboxApiError(400, null, 'request body is not valid JSON; send Content-Type: application/json');
  }
}

/** Writes a JSON response; a header given as an array is sent as several field lines. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string | string[]> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
