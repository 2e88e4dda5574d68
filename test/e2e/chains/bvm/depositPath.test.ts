/**
 * End-to-end: the Bitcoin adapter's money path against the sandbox Esplora node, for a P2WPKH and a P2TR
 * wallet. Our unspent outputs are read (`originFacts`), a deposit PSBT is built from them as the Relay API
 * builds it and passes `verifyQuote`, the adapter signs it (P2TR with and without `tapInternalKey` in the
 * PSBT), the node — which verifies every signature — accepts the broadcast, and the transaction is waited for,
 * looked up (unknown → pending → mined) and found as the order's deposit; balances move by the exact amounts.
 */
import { Transaction } from 'bitcoinjs-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEsploraNode, type BitcoinSandboxNode } from '../../../../packages/sandbox/src/bvm/startEsploraNode.ts';
import { verifyQuote } from '../../../../packages/ballast/src/verify/verifyQuote.ts';
import { AMOUNT, NOW_SEC, verifyInput } from '../../../fixtures/bvmQuote.ts';
import { failing } from '../../../fixtures/quoteTamper.ts';
import { adapterFor, BITCOIN_CHAIN_ID, DEPOSIT_FEE, depositItem, depositQuote, depositSpec, fundedCase, regtestKey } from './harness.ts';

let node: BitcoinSandboxNode;
beforeAll(async () => {
  node = await startEsploraNode();
});
afterAll(async () => {
  await node?.close();
});

const WALLETS = [
  { label: 'P2WPKH', type: 'p2wpkh', byte: 0x21, tapInternalKey: true },
  { label: 'P2TR with tapInternalKey in the PSBT', type: 'p2tr', byte: 0x22, tapInternalKey: true },
  { label: 'P2TR without tapInternalKey in the PSBT', type: 'p2tr', byte: 0x23, tapInternalKey: false },
] as const;

describe.each(WALLETS)('Bitcoin adapter deposit path, $label wallet', ({ type, byte, tapInternalKey }) => {
  it('reads our outputs, signs a verified PSBT, broadcasts, waits for the block and finds the deposit', async () => {
    const key = regtestKey(type, byte);
    const adapter = adapterFor(node, { hot: key }, { nowMs: () => NOW_SEC * 1000 });
    const c = fundedCase(node, key, [60_000n, 80_000n]);
    const quote = depositQuote(c, depositSpec(c, { tapInternalKey }));

    // originFacts: exactly the two faucet outputs (confirmed), values in satoshis as bigint; the tip; the node's
    // fee estimate for the 6 blocks the order's hour leaves; nothing reserved by in-flight deposits.
    const facts = await adapter.originFacts(quote, key.address);
    expect(facts).toEqual({
      utxos: c.utxos.map((u) => ({ txid: u.txid, vout: u.vout, value: u.value, confirmed: true })),
      tipHeight: BigInt(node.tipHeight()),
      feeEstimate: { targetBlocks: 6, satPerVb: expect.any(Number), blocksLeft: 6 },
      reservedOutpoints: [],
    });

    // The quote passes the verifier with the facts the adapter read.
    const verdict = await verifyQuote({ ...verifyInput(c, quote), origin: facts, limits: adapter.depositLimits });
    expect(failing(verdict)).toEqual([]);
    expect(verdict.ok).toBe(true);

    expect(await adapter.planItem(depositItem(quote), { wallet: 'hot', user: key.address, amountIn: AMOUNT })).toEqual([
      depositItem(quote),
    ]);
    const signed = await adapter.sign('hot', depositItem(quote));
    const tx = Transaction.fromHex(signed.rawTx);
    expect(signed.chainId).toBe(BITCOIN_CHAIN_ID);
    expect(signed.txHash).toBe(tx.getId());
    expect(tx.ins.map((i) => i.witness.length)).toEqual(type === 'p2wpkh' ? [2, 2] : [1, 1]); // sig+pubkey / one Schnorr sig
    expect(signed.request).toMatchObject({
      wallet: key.address,
      inputs: c.utxos.map((u) => `${u.txid}:${u.vout}`).join(','),
      fee: DEPOSIT_FEE.toString(),
      vsize: tx.virtualSize(),
      orderId: c.orderId,
    });

    // Not sent yet: unknown to the node, and its inputs are unspent, so nothing proves it dropped.
    expect(await adapter.knows(signed.txHash)).toBe(false);
    expect(await adapter.lookup({ ...signed, request: signed.request }, key.address)).toEqual({ state: 'unknown' });

    await adapter.broadcast(signed.rawTx);
    expect(node.mempoolTxids()).toContain(signed.txHash);
    expect(await adapter.knows(signed.txHash)).toBe(true);
    expect(await adapter.lookup(signed, key.address)).toEqual({ state: 'pending' });
    // Sending the same bytes again is accepted (already in the mempool).
    await adapter.broadcast(signed.rawTx);

    // In the mempool the spend counts against the balance; the unconfirmed change does not count yet.
    const pendingRead = await adapter.readBalances([{ address: key.address, currency: adapter.nativeCurrency }]);
    expect(pendingRead).toEqual({ ok: true, atBlock: BigInt(node.tipHeight()), amounts: [{ amount: 0n }] });
    await expect(
      adapter.findDeposit({ depository: c.depository.address, orderId: c.orderId, user: key.address, amount: AMOUNT }),
    ).rejects.toThrow(/in the mempool, not yet mined/);

    const waiting = adapter.waitForInclusion(signed, 5_000);
    setTimeout(() => node.mine(), 100);
    const mined = await waiting;
    const blockHash = await (await fetch(`${node.url}/block-height/${node.tipHeight()}`)).text();
    expect(mined).toEqual({ kind: 'mined', status: 'confirmed', blockNumber: BigInt(node.tipHeight()), blockHash });
    expect(await adapter.lookup(signed, key.address)).toEqual({
      state: 'mined',
      status: 'confirmed',
      blockNumber: mined.kind === 'mined' ? mined.blockNumber : -1n,
      blockHash,
    });
    expect(await adapter.txBlock(signed.txHash)).toBe(BigInt(node.tipHeight()));
    expect(await adapter.head()).toBe(BigInt(node.tipHeight()));

    // The depository holds exactly the payment; we hold the change.
    expect(node.specBalance(c.depository.address) >= AMOUNT).toBe(true);
    const after = await adapter.readBalances([{ address: key.address, currency: adapter.nativeCurrency }]);
    expect(after).toEqual({ ok: true, atBlock: BigInt(node.tipHeight()), amounts: [{ amount: 140_000n - AMOUNT - DEPOSIT_FEE }] });
    expect(await adapter.findDeposit({ depository: c.depository.address, orderId: c.orderId, user: key.address, amount: AMOUNT })).toEqual({
      kind: 'found',
      deposit: { txHash: signed.txHash, blockNumber: BigInt(node.tipHeight()), blockHash },
    });
  });
});

describe('Bitcoin adapter refuses to sign what is not ours', () => {
  it('an unknown wallet, a key of another wallet, and a PSBT spending someone else’s outputs', async () => {
    const ours = regtestKey('p2wpkh', 0x24);
    const other = regtestKey('p2wpkh', 0x25);
    const adapter = adapterFor(node, { hot: ours, other });
    const c = fundedCase(node, ours, [50_000n, 70_000n]);
    const item = depositItem(depositQuote(c, depositSpec(c)));
    await expect(adapter.sign('cold', item)).rejects.toMatchObject({
      code: 'BVM_ADAPTER_REFUSED',
      message: expect.stringMatching(/wallet cold is not a Bitcoin wallet/),
    });
    await expect(adapter.sign('other', item)).rejects.toMatchObject({
      code: 'BVM_ADAPTER_REFUSED',
      message: expect.stringMatching(/does not spend from wallet/),
    });
    await expect(adapter.sign('hot', { ...item, data: { to: '0x00' } })).rejects.toMatchObject({
      code: 'BVM_ADAPTER_REFUSED',
      message: expect.stringMatching(/no data\.psbt/),
    });
    // A fee above the configured cap is refused before signing (19,000 sat over ~290 vB is ~65 sat/vB).
    const greedy = depositItem(depositQuote(c, depositSpec(c, { fee: 19_000n })));
    const capped = adapterFor(node, { hot: ours }, { maxFeeRateSatPerVb: 50 });
    await expect(capped.sign('hot', greedy)).rejects.toMatchObject({
      code: 'BVM_ADAPTER_REFUSED',
      message: expect.stringMatching(/above the cap of 50 sat\/vB/),
    });
    // 19,000 sat is 1,900 bps of the 100,000-sat deposit: the default miner-fee cap (500 bps) refuses it too.
    await expect(adapter.sign('hot', greedy)).rejects.toMatchObject({
      code: 'BVM_ADAPTER_REFUSED',
      message: expect.stringMatching(/miner fee 19000 sat is above 500 bps \(maxMinerFeeBps\) of the 100000 sat paid away/),
    });
    const generous = adapterFor(node, { hot: ours }, { maxMinerFeeBps: 2_000 });
    expect((await generous.sign('hot', greedy)).request.fee).toBe('19000'); // within 200 sat/vB and 2,000 bps
  });

  it('a broadcast the node refuses throws the node’s reason', async () => {
    const key = regtestKey('p2wpkh', 0x26);
    const adapter = adapterFor(node, { hot: key });
    const c = fundedCase(node, key, [150_000n]);
    const signed = await adapter.sign('hot', depositItem(depositQuote(c, depositSpec(c))));
    const tx = Transaction.fromHex(signed.rawTx);
    tx.ins[0]!.witness[0]![10]! ^= 0xff; // corrupt the ECDSA signature
    await expect(adapter.broadcast(tx.toHex())).rejects.toMatchObject({
      code: 'BVM_ESPLORA_HTTP',
      status: 400,
      message: expect.stringMatching(/chains\.btc\.esploraUrl answered HTTP 400 to POST \/tx: .*(?:signature|script|sig)/i),
    });
    expect(node.mempoolTxids()).not.toContain(tx.getId());
  });
});
