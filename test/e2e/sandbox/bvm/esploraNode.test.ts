/**
 * End-to-end: the sandbox Bitcoin node over HTTP. A P2WPKH and a P2TR wallet are funded by the faucet, spend
 * together in one PSBT-signed transaction (payment + 66-byte order-id OP_RETURN + change), and the Esplora
 * views (address stats, UTXOs, history, tx status, outspends, blocks, mempool) move as Bitcoin's would
 * before and after mining and after a one-block reorg.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript, scriptToAddress } from '../../../../packages/sandbox/src/bvm/address.ts';
import type {
  EsploraAddress,
  EsploraBlock,
  EsploraOutspend,
  EsploraStatus,
  EsploraTx,
  EsploraUtxo,
} from '../../../../packages/sandbox/src/bvm/esploraJson.ts';
import { startEsploraNode, type BitcoinNodeEvent, type BitcoinSandboxNode } from '../../../../packages/sandbox/src/bvm/startEsploraNode.ts';
import { buildSigned, getJson, getText, p2trWallet, p2wpkhWallet, postTx, type TestWallet } from './btcWallets.ts';

let node: BitcoinSandboxNode;
const events: BitcoinNodeEvent[] = [];

beforeAll(async () => {
  node = await startEsploraNode();
  node.onEvent((e) => events.push(e));
});
afterAll(async () => {
  await node?.close();
});

const ORDER_ID = `0x${'ab'.repeat(32)}`;
const stats = (a: EsploraAddress) => ({ chain: a.chain_stats, mempool: a.mempool_stats });
const zero = { funded_txo_count: 0, funded_txo_sum: 0, spent_txo_count: 0, spent_txo_sum: 0, tx_count: 0 };

describe('sandbox Bitcoin node (Esplora API)', () => {
  let alice: TestWallet;
  let tara: TestWallet;
  let bob: TestWallet;
  let aliceFund: { txid: string; vout: number };
  let taraFund: { txid: string; vout: number };
  let spendTxid: string;
  let spendHex: string;

  it('serves a loopback URL and starts at genesis', async () => {
    expect(node.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(node.port).toBeGreaterThan(0);
    expect(await getText(`${node.url}/blocks/tip/height`)).toEqual({ status: 200, text: '0' });
    expect(await getText(`${node.url}/nope`)).toEqual({ status: 404, text: 'Not Found' });
    expect(await getText(`${node.url}/tx/${'00'.repeat(32)}`)).toEqual({ status: 404, text: 'Transaction not found' });
  });

  it('faucet funds P2WPKH and P2TR addresses in confirmed coinbase-like transactions', async () => {
    alice = p2wpkhWallet();
    tara = p2trWallet();
    bob = p2wpkhWallet();
    expect(alice.address.startsWith('bcrt1q')).toBe(true);
    expect(tara.address.startsWith('bcrt1p')).toBe(true);
    aliceFund = node.faucet(alice.address, 100_000n);
    taraFund = node.faucet(tara.address, 50_000n);
    expect(node.tipHeight()).toBe(2);
    expect((await getText(`${node.url}/blocks/tip/height`)).text).toBe('2');

    const a = await getJson<EsploraAddress>(`${node.url}/address/${alice.address}`);
    expect(a.address).toBe(alice.address);
    expect(stats(a)).toEqual({ chain: { ...zero, funded_txo_count: 1, funded_txo_sum: 100_000, tx_count: 1 }, mempool: zero });
    const utxos = await getJson<EsploraUtxo[]>(`${node.url}/address/${tara.address}/utxo`);
    const block2 = await getText(`${node.url}/block-height/2`);
    expect(utxos).toEqual([
      {
        txid: taraFund.txid,
        vout: 0,
        value: 50_000,
        status: { confirmed: true, block_height: 2, block_hash: block2.text, block_time: expect.any(Number) },
      },
    ]);
    const fundTx = await getJson<EsploraTx>(`${node.url}/tx/${taraFund.txid}`);
    expect(fundTx.vin[0]).toMatchObject({ is_coinbase: true, prevout: null, vout: 0xffffffff });
    expect(fundTx.vout).toEqual([
      {
        scriptpubkey: Buffer.from(tara.output).toString('hex'),
        scriptpubkey_asm: expect.stringMatching(/^OP_PUSHNUM_1 OP_PUSHBYTES_32 [0-9a-f]{64}$/),
        scriptpubkey_type: 'v1_p2tr',
        scriptpubkey_address: tara.address,
        value: 50_000,
      },
    ]);
    expect(node.balance(alice.address)).toBe(100_000n);
    expect(node.balance(tara.address)).toBe(50_000n);
  });

  it('accepts a PSBT-signed P2WPKH + P2TR spend with an OP_RETURN and change into the mempool', async () => {
    const tx = buildSigned(
      [
        { txid: aliceFund.txid, vout: 0, value: 100_000n, owner: alice },
        { txid: taraFund.txid, vout: 0, value: 50_000n, owner: tara },
      ],
      [{ address: bob.address, value: 120_000n }, { opReturn: Buffer.from(ORDER_ID, 'utf8') }, { address: alice.address, value: 29_000n }],
    );
    spendHex = tx.toHex();
    const answer = await postTx(node.url, spendHex);
    expect(answer).toEqual({ status: 200, text: tx.getId() });
    spendTxid = answer.text;

    expect(await getJson<EsploraStatus>(`${node.url}/tx/${spendTxid}/status`)).toEqual({ confirmed: false });
    const json = await getJson<EsploraTx>(`${node.url}/tx/${spendTxid}`);
    expect(json.fee).toBe(1_000);
    expect(json.vin.map((v) => [v.txid, v.vout, v.prevout?.scriptpubkey_type, v.prevout?.value, v.prevout?.scriptpubkey_address])).toEqual([
      [aliceFund.txid, 0, 'v0_p2wpkh', 100_000, alice.address],
      [taraFund.txid, 0, 'v1_p2tr', 50_000, tara.address],
    ]);
    expect(json.vin[0]!.witness).toHaveLength(2);
    expect(json.vin[1]!.witness!.map((w) => w.length)).toEqual([128]); // one 64-byte SIGHASH_DEFAULT signature
    expect(json.vout.map((v) => [v.scriptpubkey_type, v.scriptpubkey_address, v.value])).toEqual([
      ['v0_p2wpkh', bob.address, 120_000],
      ['op_return', undefined, 0],
      ['v0_p2wpkh', alice.address, 29_000],
    ]);
    expect(json.vout[1]!.scriptpubkey_asm).toBe(`OP_RETURN OP_PUSHBYTES_66 ${Buffer.from(ORDER_ID).toString('hex')}`);
    expect(json.weight).toBe(tx.weight());
    expect(json.status).toEqual({ confirmed: false });

    const a = await getJson<EsploraAddress>(`${node.url}/address/${alice.address}`);
    expect(stats(a)).toEqual({
      chain: { ...zero, funded_txo_count: 1, funded_txo_sum: 100_000, tx_count: 1 },
      mempool: { funded_txo_count: 1, funded_txo_sum: 29_000, spent_txo_count: 1, spent_txo_sum: 100_000, tx_count: 1 },
    });
    const b = await getJson<EsploraAddress>(`${node.url}/address/${bob.address}`);
    expect(stats(b)).toEqual({ chain: zero, mempool: { ...zero, funded_txo_count: 1, funded_txo_sum: 120_000, tx_count: 1 } });
    expect(await getJson<EsploraUtxo[]>(`${node.url}/address/${alice.address}/utxo`)).toEqual([
      { txid: spendTxid, vout: 2, value: 29_000, status: { confirmed: false } },
    ]);
    expect(await getJson<EsploraUtxo[]>(`${node.url}/address/${tara.address}/utxo`)).toEqual([]);
    expect(node.balance(alice.address)).toBe(29_000n);
    expect(node.specBalance(alice.address)).toBe(0n); // 100 000 confirmed − 100 000 pending spent; the change is unconfirmed
    expect(await getJson<{ count: number; vsize: number }>(`${node.url}/mempool`)).toMatchObject({
      count: 1,
      vsize: tx.virtualSize(),
      total_fee: 1_000,
    });
    expect(await getJson<EsploraOutspend>(`${node.url}/tx/${aliceFund.txid}/outspend/0`)).toEqual({
      spent: true,
      txid: spendTxid,
      vin: 0,
      status: { confirmed: false },
    });
    expect(await getJson<EsploraOutspend[]>(`${node.url}/tx/${taraFund.txid}/outspends`)).toEqual([
      { spent: true, txid: spendTxid, vin: 1, status: { confirmed: false } },
    ]);
    expect(events).toContainEqual({ type: 'mempool', txid: spendTxid });
  });

  it('lists the payment with its order-id memo and the first input address, in any network form', () => {
    const mainnetForm = scriptToAddress(addressToScript(bob.address), 'bitcoin')!;
    expect(mainnetForm.startsWith('bc1q')).toBe(true);
    const payments = node.listPayments(mainnetForm);
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({
      txid: spendTxid,
      vout: 0,
      value: 120_000n,
      opReturnText: ORDER_ID,
      blockHeight: null,
      confirmations: 0,
      firstInputAddress: alice.address,
    });
    expect(Buffer.from(payments[0]!.opReturn!).toString('utf8')).toBe(ORDER_ID);
  });

  it('mine() confirms the mempool in a new block and every view follows', async () => {
    expect(node.mine()).toBe(3);
    const tipHash = (await getText(`${node.url}/blocks/tip/hash`)).text;
    expect(await getJson<EsploraStatus>(`${node.url}/tx/${spendTxid}/status`)).toEqual({
      confirmed: true,
      block_height: 3,
      block_hash: tipHash,
      block_time: expect.any(Number),
    });
    const block = await getJson<EsploraBlock>(`${node.url}/block/${tipHash}`);
    expect(block).toMatchObject({
      id: tipHash,
      height: 3,
      tx_count: 1,
      previousblockhash: (await getText(`${node.url}/block-height/2`)).text,
    });
    expect(await getJson<string[]>(`${node.url}/block/${tipHash}/txids`)).toEqual([spendTxid]);
    expect((await getText(`${node.url}/block/${tipHash}/header`)).text).toHaveLength(160);

    const a = await getJson<EsploraAddress>(`${node.url}/address/${alice.address}`);
    expect(stats(a)).toEqual({
      chain: { funded_txo_count: 2, funded_txo_sum: 129_000, spent_txo_count: 1, spent_txo_sum: 100_000, tx_count: 2 },
      mempool: zero,
    });
    expect(await getJson<EsploraUtxo[]>(`${node.url}/address/${alice.address}/utxo`)).toEqual([
      {
        txid: spendTxid,
        vout: 2,
        value: 29_000,
        status: { confirmed: true, block_height: 3, block_hash: tipHash, block_time: block.timestamp },
      },
    ]);
    expect((await getJson<EsploraTx[]>(`${node.url}/address/${alice.address}/txs`)).map((t) => t.txid)).toEqual([
      spendTxid,
      aliceFund.txid,
    ]);
    expect(node.specBalance(alice.address)).toBe(29_000n);
    expect(await getJson<{ count: number }>(`${node.url}/mempool`)).toMatchObject({ count: 0, vsize: 0 });
    expect(await getJson<EsploraOutspend>(`${node.url}/tx/${aliceFund.txid}/outspend/0`)).toMatchObject({
      spent: true,
      txid: spendTxid,
      status: { confirmed: true, block_height: 3 },
    });
    expect(await getJson<EsploraOutspend[]>(`${node.url}/tx/${spendTxid}/outspends`)).toEqual([
      { spent: false },
      { spent: false },
      { spent: false },
    ]);
    expect(await getText(`${node.url}/tx/${spendTxid}/hex`)).toEqual({ status: 200, text: spendHex });
    expect(node.listPayments(bob.address)[0]).toMatchObject({ blockHeight: 3, blockHash: tipHash, confirmations: 1 });
    node.mine(3);
    expect(node.confirmations(spendTxid)).toBe(4);
  });

  it('a rebroadcast of a confirmed transaction is refused', async () => {
    expect(await postTx(node.url, spendHex)).toEqual({
      status: 400,
      text: 'sendrawtransaction RPC error: {"code":-27,"message":"Transaction already in block chain"}',
    });
  });

  it('invalidateTip() returns the tip block to the mempool, and a funding block takes its spenders along', async () => {
    // Unwind the three empty blocks, then the block holding the spend.
    for (let i = 0; i < 3; i++) expect(node.invalidateTip().returnedToMempool).toEqual([]);
    const firstHash = (await getText(`${node.url}/blocks/tip/hash`)).text;
    const undone = node.invalidateTip();
    expect(undone).toEqual({ hash: firstHash, height: 3, returnedToMempool: [spendTxid], removed: [] });
    expect((await getText(`${node.url}/blocks/tip/height`)).text).toBe('2');
    expect(await getText(`${node.url}/block/${firstHash}`)).toEqual({ status: 404, text: 'Block not found' });
    expect(await getJson<EsploraStatus>(`${node.url}/tx/${spendTxid}/status`)).toEqual({ confirmed: false });
    expect(await getJson<string[]>(`${node.url}/mempool/txids`)).toEqual([spendTxid]);
    expect(await postTx(node.url, spendHex)).toEqual({ status: 200, text: spendTxid });
    expect(stats(await getJson<EsploraAddress>(`${node.url}/address/${bob.address}`))).toEqual({
      chain: zero,
      mempool: { ...zero, funded_txo_count: 1, funded_txo_sum: 120_000, tx_count: 1 },
    });
    expect(events.at(-1)).toEqual({ type: 'reorg', ...undone });

    expect(node.mine()).toBe(3);
    const status = await getJson<EsploraStatus>(`${node.url}/tx/${spendTxid}/status`);
    expect(status).toMatchObject({ confirmed: true, block_height: 3 });
    expect(status.confirmed && status.block_hash).not.toBe(firstHash);

    // A funding block: its coinbase cannot return to the mempool, so it vanishes with its mempool spender.
    const carol = p2wpkhWallet();
    const fund = node.faucet(carol.address, 10_000n);
    const spend = buildSigned([{ txid: fund.txid, vout: 0, value: 10_000n, owner: carol }], [{ address: bob.address, value: 9_000n }]);
    expect((await postTx(node.url, spend.toHex())).status).toBe(200);
    expect(node.invalidateTip()).toMatchObject({ height: 4, returnedToMempool: [], removed: [spend.getId(), fund.txid] });
    expect(await getText(`${node.url}/tx/${fund.txid}`)).toEqual({ status: 404, text: 'Transaction not found' });
    expect(node.mempoolTxids()).toEqual([]);
    expect(node.balance(carol.address)).toBe(0n);
  });
});
