/**
 * Routing of the Esplora REST API (github.com/Blockstream/esplora API.md) over the sandbox's Bitcoin
 * ledger. A route answers JSON or plain text as Esplora does (heights, hashes, hex and broadcast txids are
 * text); errors are text too: 400 for malformed input (`Invalid hex string`, `Invalid Bitcoin address`, a
 * rejected broadcast), 404 for unknown transactions, blocks and paths. An optional `/api` prefix is accepted
 * so that a client configured for `https://host/api` (mempool.space, blockstream.info) only needs its origin
 * swapped. The broadcast itself is delegated to the caller (`ctx.broadcast`), which owns fault injection.
 */
import { addressToScript, type BitcoinNetworkName } from './address.ts';
import { addressActivity, addressTxids, addressUtxos } from './addressIndex.ts';
import { BitcoinNodeError, BitcoinTxRejectedError } from './errors.ts';
import { addressJson, blockJson, outspendJson, statusJson, txJson, utxoJson } from './esploraJson.ts';
import type { LedgerBlock, UtxoLedger } from './ledger.ts';

/** What a route answers: a JSON value or a text body, with the HTTP status. */
export type EsploraResponse = { status: number; json: unknown } | { status: number; text: string };

/** What routes read and call. */
export interface EsploraRouteContext {
  ledger: UtxoLedger;
  /** Network in which addresses are written in responses. */
  network: BitcoinNetworkName;
  /** Fee estimates, confirmation target (blocks, as a string) → sat/vB. */
  feeEstimates(): Record<string, number>;
  /**
   * Broadcasts a raw transaction (hex).
   *
   * @returns the txid
   * @throws BitcoinTxRejectedError when the node refuses it
   */
  broadcast(rawHex: string): string;
}

/** Esplora's page sizes: confirmed history, mempool history, block transactions, block list. */
const CHAIN_PAGE = 25;
const MEMPOOL_PAGE = 50;
const BLOCK_TXS_PAGE = 25;
const BLOCKS_PAGE = 10;

const HASH_RE = /^[0-9a-fA-F]{64}$/;

const text = (status: number, body: string): EsploraResponse => ({ status, text: body });
const json = (body: unknown): EsploraResponse => ({ status: 200, json: body });
const notFound = (what: string): EsploraResponse => text(404, what);

type Route = { method: 'GET' | 'POST'; re: RegExp; handle: (ctx: EsploraRouteContext, params: string[], body: string) => EsploraResponse };

function withTx(ctx: EsploraRouteContext, txid: string, then: (txid: string) => EsploraResponse): EsploraResponse {
  if (!HASH_RE.test(txid)) return text(400, 'Invalid hex string');
  const id = txid.toLowerCase();
  return ctx.ledger.tx(id) ? then(id) : notFound('Transaction not found');
}

function withBlock(ctx: EsploraRouteContext, hash: string, then: (block: LedgerBlock) => EsploraResponse): EsploraResponse {
  if (!HASH_RE.test(hash)) return text(400, 'Invalid hex string');
  const block = ctx.ledger.blockByHash(hash.toLowerCase());
  return block ? then(block) : notFound('Block not found');
}

function withScript(address: string, then: (scriptHex: string) => EsploraResponse): EsploraResponse {
  try {
    return then(Buffer.from(addressToScript(address)).toString('hex'));
  } catch (error) {
    if (error instanceof BitcoinNodeError) return text(400, 'Invalid Bitcoin address');
    throw error;
  }
}

function txList(ctx: EsploraRouteContext, txids: string[]): unknown[] {
  return txids.map((id) => txJson(ctx.ledger, ctx.ledger.tx(id)!, ctx.network)); // ids come from the ledger
}

function broadcast(ctx: EsploraRouteContext, body: string): EsploraResponse {
  try {
    return text(200, ctx.broadcast(body.trim()));
  } catch (error) {
    if (error instanceof BitcoinTxRejectedError) return text(400, error.toEsploraText());
    throw error;
  }
}

function mempoolSummary(ctx: EsploraRouteContext): unknown {
  const entries = ctx.ledger.mempoolTxids().map((id) => ctx.ledger.tx(id)!); // ids come from the ledger
  const byRate = new Map<number, number>();
  for (const e of entries) {
    const vsize = e.tx.virtualSize();
    const rate = Number(e.fee) / vsize;
    byRate.set(rate, (byRate.get(rate) ?? 0) + vsize);
  }
  return {
    count: entries.length,
    vsize: entries.reduce((sum, e) => sum + e.tx.virtualSize(), 0),
    total_fee: Number(entries.reduce((sum, e) => sum + e.fee, 0n)),
    fee_histogram: [...byRate.entries()].sort((a, b) => b[0] - a[0]),
  };
}

const ROUTES: Route[] = [
  { method: 'GET', re: /^\/blocks\/tip\/height$/, handle: (ctx) => text(200, String(ctx.ledger.tip.height)) },
  { method: 'GET', re: /^\/blocks\/tip\/hash$/, handle: (ctx) => text(200, ctx.ledger.tip.hash) },
  {
    method: 'GET',
    re: /^\/blocks(?:\/(\d+))?$/,
    handle: (ctx, [start]) => {
      const blocks: unknown[] = [];
      const from = start !== undefined ? Math.min(Number(start), ctx.ledger.tip.height) : ctx.ledger.tip.height;
      for (let h = from; h >= 0 && blocks.length < BLOCKS_PAGE; h--) blocks.push(blockJson(ctx.ledger, ctx.ledger.blockAt(h)!)); // h ≤ tip
      return json(blocks);
    },
  },
  {
    method: 'GET',
    re: /^\/block-height\/(\d+)$/,
    handle: (ctx, [height]) => {
      const block = ctx.ledger.blockAt(Number(height));
      return block ? text(200, block.hash) : notFound('Block not found');
    },
  },
  { method: 'GET', re: /^\/block\/([^/]+)$/, handle: (ctx, [hash]) => withBlock(ctx, hash!, (b) => json(blockJson(ctx.ledger, b))) },
  {
    method: 'GET',
    re: /^\/block\/([^/]+)\/status$/,
    handle: (ctx, [hash]) =>
      withBlock(ctx, hash!, (b) =>
        json({ in_best_chain: true, height: b.height, next_best: ctx.ledger.blockAt(b.height + 1)?.hash ?? null }),
      ),
  },
  { method: 'GET', re: /^\/block\/([^/]+)\/txids$/, handle: (ctx, [hash]) => withBlock(ctx, hash!, (b) => json(b.txids)) },
  { method: 'GET', re: /^\/block\/([^/]+)\/header$/, handle: (ctx, [hash]) => withBlock(ctx, hash!, (b) => text(200, b.headerHex)) },
  {
    method: 'GET',
    re: /^\/block\/([^/]+)\/txs(?:\/(\d+))?$/,
    handle: (ctx, [hash, start]) =>
      withBlock(ctx, hash!, (b) => {
        const from = Number(start ?? 0);
        return json(txList(ctx, b.txids.slice(from, from + BLOCK_TXS_PAGE)));
      }),
  },
  { method: 'POST', re: /^\/tx$/, handle: (ctx, _p, body) => broadcast(ctx, body) },
  {
    method: 'GET',
    re: /^\/tx\/([^/]+)$/,
    handle: (ctx, [id]) => withTx(ctx, id!, (t) => json(txJson(ctx.ledger, ctx.ledger.tx(t)!, ctx.network))),
  },
  { method: 'GET', re: /^\/tx\/([^/]+)\/status$/, handle: (ctx, [id]) => withTx(ctx, id!, (t) => json(statusJson(ctx.ledger.blockOf(t)))) },
  { method: 'GET', re: /^\/tx\/([^/]+)\/hex$/, handle: (ctx, [id]) => withTx(ctx, id!, (t) => text(200, ctx.ledger.tx(t)!.hex)) },
  {
    method: 'GET',
    re: /^\/tx\/([^/]+)\/outspends$/,
    handle: (ctx, [id]) => withTx(ctx, id!, (t) => json(ctx.ledger.tx(t)!.tx.outs.map((_o, vout) => outspendJson(ctx.ledger, t, vout)))),
  },
  {
    method: 'GET',
    re: /^\/tx\/([^/]+)\/outspend\/(\d+)$/,
    handle: (ctx, [id, vout]) =>
      withTx(ctx, id!, (t) =>
        Number(vout) < ctx.ledger.tx(t)!.tx.outs.length ? json(outspendJson(ctx.ledger, t, Number(vout))) : notFound('Output not found'),
      ),
  },
  {
    method: 'GET',
    re: /^\/address\/([^/]+)$/,
    handle: (ctx, [a]) => withScript(a!, (s) => json(addressJson(a!, addressActivity(ctx.ledger, s)))),
  },
  {
    method: 'GET',
    re: /^\/address\/([^/]+)\/utxo$/,
    handle: (ctx, [a]) => withScript(a!, (s) => json(addressUtxos(ctx.ledger, s).map(utxoJson))),
  },
  {
    method: 'GET',
    re: /^\/address\/([^/]+)\/txs$/,
    handle: (ctx, [a]) =>
      withScript(a!, (s) => {
        const ids = addressTxids(ctx.ledger, s);
        return json(txList(ctx, [...ids.mempool.slice(0, MEMPOOL_PAGE), ...ids.chain.slice(0, CHAIN_PAGE)]));
      }),
  },
  {
    method: 'GET',
    re: /^\/address\/([^/]+)\/txs\/chain(?:\/([^/]+))?$/,
    handle: (ctx, [a, lastSeen]) =>
      withScript(a!, (s) => {
        const chain = addressTxids(ctx.ledger, s).chain;
        if (lastSeen === undefined) return json(txList(ctx, chain.slice(0, CHAIN_PAGE)));
        const seenAt = chain.indexOf(lastSeen.toLowerCase());
        return json(seenAt < 0 ? [] : txList(ctx, chain.slice(seenAt + 1, seenAt + 1 + CHAIN_PAGE)));
      }),
  },
  {
    method: 'GET',
    re: /^\/address\/([^/]+)\/txs\/mempool$/,
    handle: (ctx, [a]) => withScript(a!, (s) => json(txList(ctx, addressTxids(ctx.ledger, s).mempool.slice(0, MEMPOOL_PAGE)))),
  },
  { method: 'GET', re: /^\/mempool$/, handle: (ctx) => json(mempoolSummary(ctx)) },
  { method: 'GET', re: /^\/mempool\/txids$/, handle: (ctx) => json(ctx.ledger.mempoolTxids()) },
  {
    method: 'GET',
    re: /^\/mempool\/recent$/,
    handle: (ctx) =>
      json(
        ctx.ledger
          .mempoolTxids()
          .slice(-10)
          .reverse()
          .map((id) => {
            const e = ctx.ledger.tx(id)!; // ids come from the ledger
            return { txid: id, fee: Number(e.fee), vsize: e.tx.virtualSize(), value: Number(e.tx.outs.reduce((s, o) => s + o.value, 0n)) };
          }),
      ),
  },
  { method: 'GET', re: /^\/fee-estimates$/, handle: (ctx) => json(ctx.feeEstimates()) },
];

/**
 * Answers one Esplora request.
 *
 * @param method HTTP method
 * @param pathname URL path (no query), with or without an `/api` prefix
 * @param body request body as text (only POST /tx reads it: the raw transaction hex)
 * @returns the response; 404 `Not Found` for unknown paths, 405 for a known path with another method
 * @throws whatever `ctx.broadcast` throws other than BitcoinTxRejectedError (a bug: the server answers 500)
 */
export function routeEsplora(ctx: EsploraRouteContext, method: string, pathname: string, body: string): EsploraResponse {
  const path = pathname.startsWith('/api/') ? pathname.slice(4) : pathname;
  let pathMatched = false;
  for (const route of ROUTES) {
    const match = route.re.exec(path);
    if (match === null) continue;
    pathMatched = true;
    if (route.method !== method) continue;
    let params: string[];
    try {
      params = match.slice(1).map((p) => (p === undefined ? p : decodeURIComponent(p)));
    } catch {
      return text(400, 'Invalid URL encoding');
    }
    return route.handle(ctx, params, body);
  }
  return pathMatched ? text(405, `Method ${method} not allowed on ${path}`) : notFound('Not Found');
}
