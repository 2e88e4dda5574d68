/**
 * Reads a request body as raw bytes, exactly as sent (a webhook signature covers these bytes, never a
 * re-serialised JSON), up to a size cap.
 */
import type { IncomingMessage } from 'node:http';

/** The body, or why it was not read in full. */
export type RawBody = { kind: 'ok'; bytes: Buffer } | { kind: 'too-large'; declared: number | null } | { kind: 'aborted' };

/** Beyond the cap, this many times the cap is read and discarded (so the 413 answer reaches the client). */
const DRAIN_FACTOR = 4;

/**
 * Reads `req`'s body.
 *
 * @param maxBytes the cap; a `content-length` above it is refused without reading, a longer stream is drained
 *   (up to four times the cap, then the connection is cut) and refused
 * @returns the bytes, `too-large`, or `aborted` when the client went away
 */
export function readRawBody(req: IncomingMessage, maxBytes: number): Promise<RawBody> {
  const declaredText = req.headers['content-length'];
  const declared = declaredText !== undefined && /^[0-9]+$/.test(declaredText) ? Number(declaredText) : null;
  if (declared !== null && declared > maxBytes) {
    req.resume();
    return Promise.resolve({ kind: 'too-large', declared });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (over || size > maxBytes) {
        over = true;
        chunks.length = 0;
        if (size > maxBytes * DRAIN_FACTOR) {
          req.destroy();
          resolve({ kind: 'too-large', declared });
        }
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(over ? { kind: 'too-large', declared } : { kind: 'ok', bytes: Buffer.concat(chunks, size) }));
    req.on('error', () => resolve({ kind: 'aborted' }));
    req.on('close', () => {
      if (!req.complete) resolve({ kind: 'aborted' });
    });
  });
}
