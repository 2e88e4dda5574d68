/**
 * End-to-end: Relay's own Bitcoin wallet adapter (`@relayprotocol/relay-bitcoin-wallet-adapter`) broadcasts
 * a deposit to the sandbox node. The adapter posts to the fixed URL `https://mempool.space/api/tx` through
 * relay-sdk's exported axios instance; a request interceptor swaps that origin for the node's URL (the node
 * also serves `/api/…`) and refuses every other non-loopback request, so nothing leaves 127.0.0.1.
 *
 * The PSBT is shaped like Relay's `data.psbt` (mainnet `bc1` addresses, outputs: depository P2WPKH +
 * 66-byte order-id OP_RETURN + change) and is signed by the callback the adapter hands it to.
 */
import { networks, payments, Psbt, script as btcScript } from 'bitcoinjs-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEsploraNode, type BitcoinSandboxNode } from '../../../../packages/sandbox/src/bvm/startEsploraNode.ts';
import { ECPair } from './btcWallets.ts';

type Sdk = typeof import('@relayprotocol/relay-sdk');

let node: BitcoinSandboxNode;
let sdk: Sdk;
let interceptor: number | undefined;
const broadcastUrls: string[] = [];

beforeAll(async () => {
  node = await startEsploraNode({ network: 'bitcoin' });
  sdk = await import('@relayprotocol/relay-sdk');
  interceptor = sdk.axios.interceptors.request.use((config) => {
    const url = config.url ?? '';
    const rewritten = url.startsWith('https://mempool.space/') ? node.url + url.slice('https://mempool.space'.length) : url;
    if (new URL(rewritten, config.baseURL).hostname !== '127.0.0.1') throw new Error(`refused non-loopback request to ${rewritten}`);
    broadcastUrls.push(`${config.method} ${rewritten}`);
    return { ...config, url: rewritten };
  });
  sdk.createClient({ baseApiUrl: 'http://127.0.0.1:9', source: 'ballast-e2e', logLevel: sdk.LogLevel.None });
});

afterAll(async () => {
  if (interceptor !== undefined) sdk?.axios.interceptors.request.eject(interceptor);
  await node?.close();
});

describe('relay-bitcoin-wallet-adapter against the sandbox node', () => {
  it('signs, finalizes and broadcasts a Relay-shaped deposit PSBT; the node verifies and keeps it', async () => {
    const { adaptBitcoinWallet } = await import('@relayprotocol/relay-bitcoin-wallet-adapter');
    const userKey = ECPair.makeRandom();
    const user = payments.p2wpkh({ pubkey: userKey.publicKey, network: networks.bitcoin });
    const depository = payments.p2wpkh({ pubkey: ECPair.makeRandom().publicKey, network: networks.bitcoin });
    const userAddress = user.address!; // p2wpkh from a pubkey always has an address
    expect(userAddress.startsWith('bc1q')).toBe(true);
    const funding = node.faucet(userAddress, 80_000n);

    const orderId = `0x${'5a'.repeat(32)}`;
    const unsigned = new Psbt({ network: networks.bitcoin });
    unsigned.addInput({ hash: funding.txid, index: funding.vout, witnessUtxo: { script: user.output!, value: 80_000n } }); // p2wpkh has an output
    unsigned.addOutput({ address: depository.address!, value: 50_000n }); // p2wpkh has an address
    unsigned.addOutput({ script: btcScript.compile([btcScript.OPS.OP_RETURN, Buffer.from(orderId, 'utf8')]), value: 0n });
    unsigned.addOutput({ address: userAddress, value: 29_500n });

    const signRequests: { address: string; indexes: number[][]; allowedSighash: number[] }[] = [];
    const wallet = adaptBitcoinWallet(userAddress, async (address, psbt, params) => {
      signRequests.push({ address, indexes: params.signature.map((s) => s.signingIndexes), allowedSighash: params.allowedSighash ?? [] });
      psbt.signAllInputs(userKey);
      return psbt.toBase64();
    });
    // The adapter reads only `data.psbt` of the step item and nothing of the step.
    const stepItem = { status: 'incomplete', data: { psbt: unsigned.toHex() } } as unknown as Parameters<
      typeof wallet.handleSendTransactionStep
    >[1];
    const step = {} as Parameters<typeof wallet.handleSendTransactionStep>[2]; // unused by the Bitcoin adapter
    const txid = await wallet.handleSendTransactionStep(8253038, stepItem, step);

    expect(signRequests).toEqual([{ address: userAddress, indexes: [[0]], allowedSighash: [0, 1] }]);
    expect(broadcastUrls).toEqual([`post ${node.url}/api/tx`]);
    expect(txid).toMatch(/^[0-9a-f]{64}$/);
    expect(node.mempoolTxids()).toEqual([txid]);
    const [payment] = node.listPayments(depository.address!); // p2wpkh has an address
    expect(payment).toMatchObject({
      txid,
      vout: 0,
      value: 50_000n,
      opReturnText: orderId,
      firstInputAddress: userAddress,
      confirmations: 0,
    });
    expect(node.balance(userAddress)).toBe(29_500n);
    expect(node.specBalance(userAddress)).toBe(0n);
    node.mine(4);
    expect(node.listPayments(depository.address!)[0]!.confirmations).toBe(4); // p2wpkh has an address
  });
});
