/**
 * End-to-end: Bitcoin balances and unspent outputs read by the adapter from the sandbox Esplora node. The amount
 * is the Relay API's rule (confirmed funded − confirmed spent − mempool spent) minus the miner-fee reserve, floored
 * at 0; a server of another network, a 503, a non-BTC currency and a non-Bitcoin address are each reported
 * where they belong, and credentials in the Esplora URL never reach a message.
 */
import { networks } from 'bitcoinjs-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEsploraNode, type BitcoinSandboxNode } from '../../../../packages/sandbox/src/bvm/startEsploraNode.ts';
import { signBvmPsbt } from '../../../../packages/ballast/src/chains/bvm/signPsbt.ts';
import { buildPsbt, memoScript, SIGN_LIMITS, strangerAddress } from '../../../fixtures/bvmQuote.ts';
import { adapterFor, depositQuote, depositSpec, fundedCase, regtestKey } from './harness.ts';

let node: BitcoinSandboxNode;
beforeAll(async () => {
  node = await startEsploraNode();
});
afterAll(async () => {
  await node?.close();
});

const BTC = 'bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8';

describe('Bitcoin adapter readBalances', () => {
  it('reads the spec balance minus the reserve, subtracting a mempool spend and ignoring unconfirmed change', async () => {
    const key = regtestKey('p2wpkh', 0x31);
    const other = regtestKey('p2tr', 0x32);
    const adapter = adapterFor(node, { hot: key }, { minerFeeReserveSats: 20_000n });
    const c = fundedCase(node, key, [100_000n, 50_000n]);
    node.faucet(other.address, 7_000n);
    const holdings = [
      { address: key.address, currency: BTC },
      { address: other.address, currency: BTC },
    ];
    expect(await adapter.readBalances(holdings)).toEqual({
      ok: true,
      atBlock: BigInt(node.tipHeight()),
      amounts: [{ amount: 130_000n }, { amount: 0n }],
    });

    // Spend the 100,000-sat output: 60,000 to a stranger, 39,000 change back, 1,000 fee; into the mempool only.
    const spend = buildPsbt(c, {
      inputs: [{ txid: c.utxos[0]!.txid, vout: c.utxos[0]!.vout, value: 100_000n }],
      outputs: [
        { script: strangerAddress(networks.regtest).script, value: 60_000n },
        { script: memoScript('not an order'), value: 0n },
        { script: c.wallet.script, value: 39_000n },
      ],
    });
    await adapter.broadcast((await signBvmPsbt(key, spend.toHex(), SIGN_LIMITS)).rawTx);
    // 150,000 funded − 100,000 pending spent = 50,000; − 20,000 reserve.
    expect(await adapter.readBalances(holdings)).toMatchObject({ ok: true, amounts: [{ amount: 30_000n }, { amount: 0n }] });
    expect(node.specBalance(key.address)).toBe(50_000n);

    // Mined: the change now counts (150,000 + 39,000 − 100,000 = 89,000; − 20,000 reserve).
    node.mine();
    expect(await adapter.readBalances(holdings)).toEqual({
      ok: true,
      atBlock: BigInt(node.tipHeight()),
      amounts: [{ amount: 69_000n }, { amount: 0n }],
    });

    // originFacts: the unspent outputs left, values in satoshis.
    const facts = await adapter.originFacts(depositQuote(c, depositSpec(c)), key.address);
    expect(facts.utxos?.map((u) => u.value).sort()).toEqual([39_000n, 50_000n]);
    expect(facts.utxos?.find((u) => u.value === 50_000n)).toEqual({
      txid: c.utxos[1]!.txid,
      vout: c.utxos[1]!.vout,
      value: 50_000n,
      confirmed: true,
    });
  });

  it('reports a non-BTC currency and a non-Bitcoin address per holding, and reads the rest', async () => {
    const key = regtestKey('p2tr', 0x33);
    const adapter = adapterFor(node, {});
    node.faucet(key.address, 12_345n);
    const read = await adapter.readBalances([
      { address: key.address, currency: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913' },
      { address: '0x03508bb71268bba25ecacc8f620e01866650532c', currency: BTC },
      { address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', currency: BTC },
      { address: key.address, currency: BTC },
    ]);
    expect(read).toEqual({
      ok: true,
      atBlock: BigInt(node.tipHeight()),
      amounts: [
        { amount: null, error: expect.stringMatching(/is not BTC .*Bitcoin has no tokens/) },
        { amount: null, error: expect.stringMatching(/is an EVM address, not a Bitcoin address/) },
        { amount: null, error: expect.stringMatching(/is a Bitcoin mainnet address, but the chain is on regtest/) },
        { amount: 12_345n },
      ],
    });
  });

  it('refuses a server of another network, naming the path and the fix', async () => {
    for (const network of ['testnet', 'mainnet'] as const) {
      const read = await adapterFor(node, {}, { network }).readBalances([
        { address: 'tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl', currency: BTC },
      ]);
      expect(read).toEqual({
        ok: false,
        error: `chains.btc.esploraUrl serves Bitcoin regtest, but chains.btc.network is ${network}; point esploraUrl at a ${network} Esplora API or set chains.btc.network: regtest`,
      });
    }
  });

  it('answers ok:false on a 503 of the network check or the tip, and a holding error on a 503 of its address', async () => {
    const key = regtestKey('p2wpkh', 0x34);
    node.faucet(key.address, 5_000n);
    const adapter = adapterFor(node, {});
    const holdings = [{ address: key.address, currency: BTC }];
    node.failNextRequests('/block-height/0', 1);
    expect(await adapter.readBalances(holdings)).toEqual({
      ok: false,
      error: 'chains.btc.esploraUrl answered HTTP 503 to GET /block-height/0: Service Unavailable',
    });
    node.failNextRequests('/blocks/tip', 1);
    expect(await adapter.readBalances(holdings)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^chains\.btc\.esploraUrl answered HTTP 503 to GET \/blocks\/tip/),
    });
    node.failNextRequests('/address/', 1);
    expect(await adapter.readBalances(holdings)).toEqual({
      ok: true,
      atBlock: BigInt(node.tipHeight()),
      amounts: [{ amount: null, error: `chains.btc.esploraUrl answered HTTP 503 to GET /address/${key.address}: Service Unavailable` }],
    });
    expect(await adapter.readBalances(holdings)).toMatchObject({ ok: true, amounts: [{ amount: 5_000n }] });
  });

  it('sends URL credentials as a header and never puts them or the URL into a message', async () => {
    const seen: string[] = [];
    const spy: typeof fetch = async (input, init) => {
      seen.push(new Headers(init?.headers).get('authorization') ?? '');
      return fetch(input, init);
    };
    const url = node.url.replace('http://', 'http://ops:s3cret@');
    const adapter = adapterFor(node, {}, { esploraUrl: `${url}/`, fetch: spy });
    expect(await adapter.head()).toBe(BigInt(node.tipHeight()));
    expect(seen).toEqual([`Basic ${Buffer.from('ops:s3cret').toString('base64')}`]);
    node.failNextRequests('/block-height/0', 1);
    const read = await adapter.readBalances([]);
    expect(read.ok).toBe(false);
    const text = read.ok ? '' : read.error;
    expect(text).toMatch(/^chains\.btc\.esploraUrl answered HTTP 503/);
    expect(text).not.toMatch(/s3cret|ops|127\.0\.0\.1/);
  });

  it('a server that does not answer in time is an error naming the path, not a zero balance', async () => {
    const hang: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
    const adapter = adapterFor(node, {}, { fetch: hang, timeoutMs: 50 });
    expect(await adapter.readBalances([{ address: regtestKey('p2wpkh', 0x35).address, currency: BTC }])).toEqual({
      ok: false,
      error: 'chains.btc.esploraUrl did not answer GET /block-height/0 within 50 ms; check the URL and that the server is up',
    });
    await expect(adapter.head()).rejects.toMatchObject({ code: 'BVM_ESPLORA_HTTP', status: null });
  });

  it('has no token decimals to read and keeps currencies as written', async () => {
    const adapter = adapterFor(node, {});
    expect(await adapter.readDecimals(['x', 'y'])).toEqual([null, null]);
    expect(adapter.nativeCurrency).toBe(BTC);
    expect(adapter.nativeDecimals).toBe(8);
    expect(adapter.currencyKey('BC1Q')).toBe('BC1Q');
    expect(adapter.depositLimits).toEqual({
      bvmMaxFeeRateSatPerVb: 200,
      bvmMinFeeRateSatPerVb: 1,
      bvmMaxMinerFeeSats: 100_000n,
      bvmMaxMinerFeeBps: 500,
      bvmRequireReplaceable: true,
      bvmAllowOwnUnconfirmedInputs: false,
    });
  });
});
