/**
 * The Esplora client with an injected fetch (no network): URLs built under the base path, credentials moved to
 * a Basic header, 404 → null only for the `…OrNull` reads, every other failure a BvmEsploraError naming
 * `chains.<name>.esploraUrl`, the path and the status, never the base URL; bodies parsed by zod (satoshis as
 * exact bigints); the highest tip read; the network check by genesis hash.
 */
import { describe, expect, it } from 'vitest';
import { createEsploraClient } from '../../../../packages/ballast/src/chains/bvm/esploraClient.ts';
import { AddressStatsSchema, HeightTextSchema, TxStatusSchema } from '../../../../packages/ballast/src/chains/bvm/esploraSchemas.ts';
import { BVM_GENESIS_HASHES, checkEsploraNetwork, networkOfGenesis } from '../../../../packages/ballast/src/chains/bvm/network.ts';
import { spendableSats, specBalanceSats } from '../../../../packages/ballast/src/chains/bvm/readBalances.ts';

interface Seen {
  url: string;
  method: string;
  auth: string | null;
  body: string | null;
}

/** A fetch answering from `routes` (path → status and body) and recording each request. */
function fakeFetch(routes: Record<string, [number, string]>, seen: Seen[] = []): typeof fetch {
  return async (input, init) => {
    const url = new URL(String(input));
    seen.push({
      url: url.href,
      method: init?.method ?? 'GET',
      auth: new Headers(init?.headers).get('authorization'),
      body: typeof init?.body === 'string' ? init.body : null,
    });
    const [status, body] = routes[url.pathname] ?? [404, 'Not Found'];
    return new Response(body, { status });
  };
}

const stats = (cf: number, cs: number, mf: number, ms: number) =>
  JSON.stringify({
    address: 'x',
    chain_stats: { funded_txo_count: 1, funded_txo_sum: cf, spent_txo_count: 1, spent_txo_sum: cs, tx_count: 1 },
    mempool_stats: { funded_txo_count: 1, funded_txo_sum: mf, spent_txo_count: 1, spent_txo_sum: ms, tx_count: 1 },
  });

describe('createEsploraClient', () => {
  it('remembers the highest tip it read, whatever a lagging backend answers later', async () => {
    const tips = ['870005', '870003'];
    const esplora = createEsploraClient({
      name: 'btc',
      esploraUrl: 'http://esplora.test',
      fetch: async () => new Response(tips.shift() ?? '870004', { status: 200 }),
    });
    expect(esplora.highestTip()).toBeNull();
    expect(await esplora.getText('/blocks/tip/height', HeightTextSchema)).toBe(870_005n);
    expect(await esplora.getText('/blocks/tip/height', HeightTextSchema)).toBe(870_003n); // a backend two blocks behind
    expect(esplora.highestTip()).toBe(870_005n);
  });

  it('builds URLs under the base path and sends URL credentials as a Basic header only', async () => {
    const seen: Seen[] = [];
    const esplora = createEsploraClient({
      name: 'btc',
      esploraUrl: 'https://ops:p%40ss@esplora.example/api/KEY123/',
      fetch: fakeFetch({ '/api/KEY123/blocks/tip/height': [200, '840000\n'], '/api/KEY123/tx': [200, 'ab'] }, seen),
    });
    expect(await esplora.getText('/blocks/tip/height', HeightTextSchema)).toBe(840_000n);
    expect(await esplora.postText('/tx', '0200')).toBe('ab');
    expect(seen).toEqual([
      {
        url: 'https://esplora.example/api/KEY123/blocks/tip/height',
        method: 'GET',
        auth: `Basic ${Buffer.from('ops:p@ss').toString('base64')}`,
        body: null,
      },
      {
        url: 'https://esplora.example/api/KEY123/tx',
        method: 'POST',
        auth: `Basic ${Buffer.from('ops:p@ss').toString('base64')}`,
        body: '0200',
      },
    ]);
  });

  it('turns a 404 into null only when asked, and names path and status otherwise, never the base URL', async () => {
    const esplora = createEsploraClient({
      name: 'btc',
      esploraUrl: 'https://esplora.example/api/KEY123',
      fetch: fakeFetch({ '/api/KEY123/tx/aa/status': [503, 'backend https://internal.example/x down\nmore'] }),
    });
    expect(await esplora.getJsonOrNull('/tx/bb/status', TxStatusSchema)).toBeNull();
    await expect(esplora.getJson('/tx/bb/status', TxStatusSchema)).rejects.toMatchObject({
      code: 'BVM_ESPLORA_HTTP',
      status: 404,
      path: '/tx/bb/status',
      message: 'chains.btc.esploraUrl answered HTTP 404 to GET /tx/bb/status: Not Found',
    });
    const error = await esplora.getJsonOrNull('/tx/aa/status', TxStatusSchema).catch((e: unknown) => e);
    expect(error).toMatchObject({
      status: 503,
      message: 'chains.btc.esploraUrl answered HTTP 503 to GET /tx/aa/status: backend <url> down',
    });
    expect(String((error as Error).message)).not.toMatch(/KEY123|esplora\.example/); // the rejection value is an Error (asserted above)
  });

  it('refuses bodies that are not JSON or not the expected shape, and amounts that are not exact', async () => {
    const esplora = createEsploraClient({
      name: 'btc',
      esploraUrl: 'http://127.0.0.1:1',
      fetch: fakeFetch({
        '/a': [200, '<html>'],
        '/b': [200, '{"confirmed":"yes"}'],
        '/c': [200, stats(2 ** 53 + 2, 0, 0, 0)],
        '/d': [200, 'tip'],
      }),
    });
    await expect(esplora.getJson('/a', TxStatusSchema)).rejects.toThrow(
      /answered GET \/a with a body that is not JSON: <html>; is it an Esplora API\?/,
    );
    await expect(esplora.getJson('/b', TxStatusSchema)).rejects.toThrow(/answered GET \/b with an unexpected body at confirmed/);
    await expect(esplora.getJson('/c', AddressStatsSchema)).rejects.toThrow(/unexpected body at chain_stats\.funded_txo_sum/);
    await expect(esplora.getText('/d', HeightTextSchema)).rejects.toThrow(/expected a block height/);
  });

  it('reports a timeout and a transport error with the path, not the URL', async () => {
    const hang: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
    const slow = createEsploraClient({ name: 'btc', esploraUrl: 'http://user:pw@127.0.0.1:9/api', fetch: hang, timeoutMs: 20 });
    await expect(slow.getText('/blocks/tip/height', HeightTextSchema)).rejects.toMatchObject({
      status: null,
      message: 'chains.btc.esploraUrl did not answer GET /blocks/tip/height within 20 ms; check the URL and that the server is up',
    });
    const down: typeof fetch = async () => {
      throw new TypeError('fetch failed: connect ECONNREFUSED http://user:pw@127.0.0.1:9/api');
    };
    const refused = createEsploraClient({ name: 'btc', esploraUrl: 'http://user:pw@127.0.0.1:9/api', fetch: down });
    const error = await refused.postText('/tx', '00').catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'BVM_ESPLORA_HTTP',
      status: null,
      message:
        'chains.btc.esploraUrl could not be reached for POST /tx (fetch failed: connect ECONNREFUSED <url>); check the URL and that the server is up',
    });
  });
});

describe('network check and balance rule', () => {
  it('knows each network by its genesis hash', async () => {
    expect(networkOfGenesis(BVM_GENESIS_HASHES.mainnet.toUpperCase())).toBe('mainnet');
    expect(networkOfGenesis('00'.repeat(32))).toBeUndefined();
    const answering = (hash: string) =>
      createEsploraClient({ name: 'btc', esploraUrl: 'http://127.0.0.1:1', fetch: fakeFetch({ '/block-height/0': [200, hash] }) });
    await expect(checkEsploraNetwork(answering(BVM_GENESIS_HASHES.testnet), 'btc', 'testnet')).resolves.toBeUndefined();
    await expect(checkEsploraNetwork(answering(BVM_GENESIS_HASHES.mainnet), 'btc', 'testnet')).rejects.toMatchObject({
      code: 'BVM_WRONG_NETWORK',
      message:
        'chains.btc.esploraUrl serves Bitcoin mainnet, but chains.btc.network is testnet; point esploraUrl at a testnet Esplora API or set chains.btc.network: mainnet',
    });
    await expect(checkEsploraNetwork(answering('00'.repeat(32)), 'btc', 'mainnet')).rejects.toThrow(
      /serves a chain whose genesis block is 0{64} \(not mainnet, testnet3 or regtest\)/,
    );
  });

  it('spec balance = confirmed funded − confirmed spent − mempool spent; spendable subtracts the reserve, floored at 0', () => {
    const s = AddressStatsSchema.parse(JSON.parse(stats(1_000_000, 300_000, 50_000, 200_000)));
    expect(specBalanceSats(s)).toBe(500_000n); // mempool funded (50,000) does not count
    expect(spendableSats(s, 20_000n)).toBe(480_000n);
    expect(spendableSats(s, 500_000n)).toBe(0n);
    expect(spendableSats(s, 600_000n)).toBe(0n);
  });
});
