/**
 * One process's Esplora API over the in-memory Bitcoin chain, as a `fetch` for `createBvmAdapter`: exactly the
 * endpoints the adapter and the fee read call (GET /blocks/tip/height, /blocks/tip/hash, /block-height/:h,
 * /address/:a, /address/:a/utxo, /address/:a/txs, /address/:a/txs/chain/:last, /tx/:id, /tx/:id/hex,
 * /tx/:id/status, /tx/:id/outspend/:n, /tx/:id/outspends, /fee-estimates; POST /tx), answering as Blockstream's
 * Esplora does (JSON numbers for satoshis, 404 text for what it does not have, 400 with bitcoind's reason for a
 * refused broadcast). GET /fee-estimates answers the market of the backend's tip (btcMarket.ts), each estimate
 * raised to the node's mempool minimum fee. The schedule's faults apply per call: 503s, a lagging backend, a
 * load-balanced backend without a mempool transaction, lost broadcasts, evictions after acceptance, broadcasts
 * stuck under the fee market. Every call fails once the process is dead.
 */
import { address as btcAddress, networks } from 'bitcoinjs-lib';
import type { ProcessHandle } from '../inMemoryNode.ts';
import { BtcRejectError, parseBtcTx, type BtcChain, type BtcTx, type View } from './btcChain.ts';
import type { BtcWorld } from './btcWorld.ts';

const num = (v: bigint) => Number(v); // model amounts stay far below 2^53 satoshis

/** Addresses by script and scripts by address: the model has a handful of each, converted on every read. */
const addresses = new Map<string, string | undefined>();
const scripts = new Map<string, string | null>();

function addressOf(script: string): string | undefined {
  if (addresses.has(script)) return addresses.get(script);
  let address: string | undefined;
  try {
    address = btcAddress.fromOutputScript(Buffer.from(script, 'hex'), networks.regtest);
  } catch {
    address = undefined; // OP_RETURN and other address-less scripts
  }
  if (addresses.size > 10_000) addresses.clear();
  addresses.set(script, address);
  return address;
}

function scriptOf(address: string): string | null {
  if (scripts.has(address)) return scripts.get(address)!; // set just below for every address asked
  let script: string | null;
  try {
    script = Buffer.from(btcAddress.toOutputScript(address, networks.regtest)).toString('hex');
  } catch {
    script = null; // not a regtest address
  }
  if (scripts.size > 10_000) scripts.clear();
  scripts.set(address, script);
  return script;
}

function statusJson(chain: BtcChain, txid: string, view: View) {
  const h = chain.heightOf(txid, view);
  return h === undefined
    ? { confirmed: false }
    : { confirmed: true, block_height: h, block_hash: chain.blocks[h]!.hash, block_time: Math.floor(chain.blocks[h]!.timeMs / 1000) };
}

function outputJson(o: { script: string; value: bigint }) {
  const address = addressOf(o.script);
  return { scriptpubkey: o.script, ...(address ? { scriptpubkey_address: address } : {}), value: num(o.value) };
}

function txJson(chain: BtcChain, tx: BtcTx, view: View) {
  return {
    txid: tx.txid,
    vin: tx.inputs.map((i) => {
      const p = tx.coinbase ? undefined : chain.prevout(i);
      return { txid: i.txid, vout: i.vout, prevout: p ? outputJson(p) : null, is_coinbase: tx.coinbase };
    }),
    vout: tx.outputs.map(outputJson),
    weight: tx.vsize * 4,
    fee: num(chain.fee(tx) ?? 0n),
    status: statusJson(chain, tx.txid, view),
  };
}

const text = (status: number, body: string) => new Response(body, { status, headers: { 'content-type': 'text/plain' } });
const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });

/** The route of a path with its ids cut out (`/tx/:id/status`), as faults name it. */
export function routeOf(path: string): string {
  return path
    .replace(/^\/address\/[^/]+/, '/address/:a')
    .replace(/^\/tx\/[0-9a-f]{64}/i, '/tx/:id')
    .replace(/\/chain\/[0-9a-f]{64}$/i, '/chain/:last')
    .replace(/\/outspend\/[0-9]+$/, '/outspend/:n')
    .replace(/^\/block-height\/[0-9]+$/, '/block-height/:h');
}

/**
 * Builds the fetch of one process.
 *
 * @param base the adapter's `esploraUrl` path prefix (e.g. `/api`), cut off every request path
 */
export function inMemoryEsplora(world: BtcWorld, proc: ProcessHandle, base = '/api'): typeof globalThis.fetch {
  const chain = world.bitcoin;
  const handle = async (method: string, path: string, body: string): Promise<Response> => {
    if (!proc.alive) throw new TypeError(`fetch failed: process ${proc.id} has ended`);
    if (method === 'POST' && path === '/tx') return broadcast(body);
    if (method !== 'GET') return text(404, 'Not Found');
    const route = routeOf(path);
    const fault = world.nextEsploraFault(route);
    if (fault?.kind === 'error') return text(503, 'upstream unavailable (model fault)');
    const view: View = fault?.kind === 'lag' ? { height: Math.max(0, chain.head() - fault.blocks), mempool: false } : chain.tipView();
    const txMatch = /^\/tx\/([0-9a-f]{64})(\/status|\/hex|\/outspends|\/outspend\/([0-9]+))?$/.exec(path);
    if (fault?.kind === 'notFound' && !txMatch) return text(503, 'backend busy (model fault)');
    if (txMatch) {
      const [, txid, tail, vout] = txMatch;
      const tx = chain.txs.get(txid!);
      const mempoolOnly = chain.heightOf(txid!, view) === undefined;
      if (tail?.startsWith('/outspend')) {
        if (!tx || !chain.knows(txid!, view)) return text(404, 'Transaction not found');
        const seen = fault?.kind === 'notFound' ? { ...view, mempool: false } : view;
        const outspend = (n: number) => {
          const s = chain.spenderOf(txid!, n, seen);
          if (!s) return { spent: false };
          const vin = chain.txs.get(s.txid)!.inputs.findIndex((i) => i.txid === txid && i.vout === n);
          return { spent: true, txid: s.txid, vin, status: statusJson(chain, s.txid, view) };
        };
        return json(tail === '/outspends' ? tx.outputs.map((_, n) => outspend(n)) : outspend(Number(vout)));
      }
      if (!tx || !chain.knows(txid!, view) || (fault?.kind === 'notFound' && mempoolOnly)) return text(404, 'Transaction not found');
      if (tail === '/status') return json(statusJson(chain, txid!, view));
      if (tail === '/hex') return text(200, tx.hex);
      return json(txJson(chain, tx, view));
    }
    if (path === '/blocks/tip/height') return text(200, String(view.height));
    if (path === '/blocks/tip/hash') return text(200, chain.blocks[view.height]!.hash);
    if (path === '/fee-estimates') return json(world.market.estimates(view.height, world.market.minFeeAt(view.height)));
    const height = /^\/block-height\/([0-9]+)$/.exec(path);
    if (height) {
      const h = Number(height[1]);
      return h <= view.height ? text(200, chain.blocks[h]!.hash) : text(404, 'Block not found');
    }
    const addr = /^\/address\/([^/]+)(\/utxo|\/txs|\/txs\/chain\/([0-9a-f]{64}))?$/.exec(path);
    if (addr) {
      const script = scriptOf(decodeURIComponent(addr[1]!));
      if (script === null) return text(400, 'Invalid Bitcoin address');
      const tail = addr[2];
      if (tail === undefined) {
        const s = chain.addressStats(script, view);
        const sums = (x: { funded: bigint; spent: bigint }) => ({ funded_txo_sum: num(x.funded), spent_txo_sum: num(x.spent) });
        return json({ address: decodeURIComponent(addr[1]!), chain_stats: sums(s.chain), mempool_stats: sums(s.mempool) });
      }
      if (tail === '/utxo') {
        return json(
          chain
            .utxos(script, view)
            .map((u) => ({ txid: u.txid, vout: u.vout, value: num(u.value), status: statusJson(chain, u.txid, view) })),
        );
      }
      const { mempool, chain: mined } = chain.addressTxs(script, view);
      if (tail === '/txs') return json([...mempool.slice(0, 50), ...mined.slice(0, 25)].map((t) => txJson(chain, t, view)));
      const after = mined.findIndex((t) => t.txid === addr[3]);
      const page = after < 0 ? [] : mined.slice(after + 1, after + 26);
      return json(page.map((t) => txJson(chain, t, view)));
    }
    return text(404, 'Not Found');
  };

  const broadcast = (raw: string): Response => {
    const fault = world.nextBroadcastFault();
    let tx: BtcTx;
    try {
      tx = parseBtcTx(raw.trim());
    } catch {
      return text(400, 'sendrawtransaction RPC error: {"code":-22,"message":"TX decode failed"}');
    }
    world.posted.set(tx.txid, tx);
    chain.txs.set(tx.txid, chain.txs.get(tx.txid) ?? tx);
    if (fault?.kind === 'lost') return text(503, 'upstream unavailable (model fault)');
    const head = chain.head();
    const notBefore = fault?.kind === 'stuck' ? head + 1 + fault.blocks : fault?.kind === 'evict' ? head + 2 + fault.afterBlocks : 0;
    try {
      chain.submit(tx, notBefore);
    } catch (error) {
      if (error instanceof BtcRejectError) {
        world.refused.add(tx.txid);
        return text(400, `sendrawtransaction RPC error: {"code":-26,"message":"${error.message}"}`);
      }
      throw error;
    }
    world.elsewhere.delete(tx.txid); // our node has it again
    if (fault?.kind === 'evict') world.evictLater(tx.txid, fault.afterBlocks, fault.backAfterBlocks);
    return text(200, tx.txid);
  };

  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const path = url.pathname.startsWith(base) ? url.pathname.slice(base.length) : url.pathname;
    const body = typeof init?.body === 'string' ? init.body : '';
    return handle((init?.method ?? 'GET').toUpperCase(), path, body);
  };
}
