/**
 * Admin routes of the sandbox API for the Bitcoin node's faults (`bvm/nodeFaults.ts`), registered with
 * `createSandboxApi`'s extra routes when the sandbox serves Bitcoin:
 * - GET /_sandbox/bitcoin/faults → `{pending: {dropNextBroadcasts, evictNextBroadcasts, forgetMempoolReads}}`;
 * - POST /_sandbox/bitcoin/faults with any of `dropNextBroadcasts`, `evictNextBroadcasts`,
 *   `forgetMempoolReads` (counts, each replacing the pending one), `failNextRequests: {pathPrefix, count}`
 *   and `evict: [txid…]` (mempool transactions evicted now, with their descendants) →
 *   `{pending, evicted: [txid…]}`.
 * The same knobs are methods of the node (`BitcoinSandboxNode`) for in-process callers.
 */
import { z } from 'zod';
import type { BitcoinSandboxNode } from '../bvm/startEsploraNode.ts';
import { SandboxApiError } from '../quote/errors.ts';
import { readJsonBody } from './http.ts';
import type { RouteResult } from './routes.ts';
import type { SandboxApiRoutes } from './server.ts';

const Count = z.number().int().min(0).max(1_000_000);

/** Body of POST /_sandbox/bitcoin/faults; unknown keys are refused so a misspelt knob is reported. */
export const BitcoinFaultsPatchSchema = z.strictObject({
  dropNextBroadcasts: Count.optional(),
  evictNextBroadcasts: Count.optional(),
  forgetMempoolReads: Count.optional(),
  failNextRequests: z
    .strictObject({ pathPrefix: z.string().regex(/^\/[^\s]{0,200}$/, 'a path starting with "/"'), count: Count })
    .optional(),
  evict: z
    .array(z.string().regex(/^[0-9a-fA-F]{64}$/, 'a txid (64 hex digits)'))
    .max(100)
    .optional(),
});

/**
 * Applies a Bitcoin faults patch to `node`. Every txid of `evict` is checked to be in the mempool before any
 * fault is applied; a txid already evicted as a descendant of an earlier one is skipped.
 *
 * @returns 200 `{pending, evicted}`
 * @throws SandboxApiError 400 naming the bad field, or the `evict` txid that is not in the mempool
 */
export function postBitcoinFaults(node: BitcoinSandboxNode, body: unknown): RouteResult {
  const parsed = BitcoinFaultsPatchSchema.safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`);
    throw new SandboxApiError(400, null, `Invalid Bitcoin faults: ${issues.join('; ')}`);
  }
  const patch = parsed.data;
  const toEvict = (patch.evict ?? []).map((txid) => txid.toLowerCase());
  const mempool = new Set(node.mempoolTxids());
  const missing = toEvict.find((txid) => !mempool.has(txid));
  if (missing !== undefined) {
    throw new SandboxApiError(
      400,
      null,
      `Invalid Bitcoin faults: evict: ${missing} is not in the mempool (mined or unknown); list mempool txids with GET <esplora>/mempool/txids`,
    );
  }
  if (patch.dropNextBroadcasts !== undefined) node.dropNextBroadcasts(patch.dropNextBroadcasts);
  if (patch.evictNextBroadcasts !== undefined) node.evictNextBroadcasts(patch.evictNextBroadcasts);
  if (patch.forgetMempoolReads !== undefined) node.forgetMempoolReads(patch.forgetMempoolReads);
  if (patch.failNextRequests !== undefined) node.failNextRequests(patch.failNextRequests.pathPrefix, patch.failNextRequests.count);
  const evicted: string[] = [];
  for (const txid of toEvict) if (!evicted.includes(txid)) evicted.push(...node.evict(txid));
  return { status: 200, body: { pending: node.pendingFaults(), evicted } };
}

/** The admin route table of a sandbox Bitcoin node (see the file comment). */
export function bitcoinFaultRoutes(node: BitcoinSandboxNode): SandboxApiRoutes {
  return {
    admin: {
      'GET /_sandbox/bitcoin/faults': () => ({ status: 200, body: { pending: node.pendingFaults() } }),
      'POST /_sandbox/bitcoin/faults': async (_s, req) => postBitcoinFaults(node, await readJsonBody(req)),
    },
  };
}
