/**
 * End-to-end: the sandbox API and solver with Bitcoin (the regtest Esplora node, blocks mined by the test) next
 * to the anvil chains. Bitcoin-origin quotes carry a PSBT over the user's coins that passes Ballast's verifier
 * (our unspent outputs read from Esplora); the user signs it with bitcoinjs and broadcasts it; the request is
 * `pending` while the deposit is unmined and fills only after the confirmation rule (1 block, 2 for high-value
 * deposits). EVM → Bitcoin fills are real signed transactions from the solver's wallet. Also INSUFFICIENT_FUNDS,
 * POST /transactions/index (404 before the block), refunds from the depository, and tampered PSBTs refused.
 */
import { crypto as btcCrypto, networks, payments, Psbt, toXOnly } from 'bitcoinjs-lib';
import { erc20Abi, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../packages/sandbox/src/startSandbox.ts';
import {
  BITCOIN_ID,
  bitcoinUtxos,
  broadcastBitcoin,
  BTC,
  chains,
  ECPair,
  expectedOut,
  failed,
  postQuote,
  quote,
  quoteBody,
  sendEvmSteps,
  signPsbt,
  status,
  statusUntil,
  terminal,
  verify,
} from './nonEvmKit.ts';

let s: Sandbox;
const HIGH_VALUE_SATS = 50_000_000n;

beforeAll(async () => {
  s = await startSandbox({ bitcoin: true, bitcoinBlockMs: 0, bitcoinHighValueSats: HIGH_VALUE_SATS, faults: { fillDelayMs: 0 } });
});
afterAll(async () => {
  await s?.stop();
});

const alpha = () => s.chains[0]!;
const btc = () => s.bitcoin!;
const wbtcOf = (who: Address) =>
  alpha().publicClient.readContract({ address: alpha().wbtc, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const index = (txHash: string) =>
  fetch(`${s.apiUrl}/transactions/index`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ chainId: BITCOIN_ID, txHash }),
  });

/** A fresh regtest P2WPKH wallet funded with `sats` (one confirmed coin). */
function fundedWallet(sats: bigint): { wif: string; address: string } {
  const key = ECPair.makeRandom({ network: networks.regtest });
  const address = payments.p2wpkh({ pubkey: key.publicKey, network: networks.regtest }).address!; // p2wpkh of a key has an address
  btc().node.faucet(address, sats);
  return { wif: key.toWIF(), address };
}

/** A BTC → WBTC (alpha) request from `user` to the EVM extra account. */
function toWbtc(user: string, amount: bigint) {
  return {
    user,
    recipient: s.accounts.extra[0]!.address,
    originChainId: BITCOIN_ID,
    destinationChainId: alpha().def.chainId,
    originCurrency: BTC,
    destinationCurrency: alpha().wbtc,
    amount: amount.toString(),
  };
}

const expectWbtc = (user: string, amount: bigint) => ({
  user,
  recipient: s.accounts.extra[0]!.address,
  originChainId: BITCOIN_ID,
  originCurrency: BTC,
  amount,
  destinationChainId: alpha().def.chainId,
  destinationCurrency: alpha().wbtc,
});

describe('sandbox with Bitcoin', () => {
  it('GET /chains lists bitcoin (bvm, a regtest depository, BTC 8 dp) and WBTC on the EVM chains', async () => {
    const doc = await chains(s);
    const bitcoin = doc.chains.find((c) => c.id === BITCOIN_ID)!;
    expect(bitcoin).toMatchObject({
      name: 'bitcoin',
      vmType: 'bvm',
      protocol: { v2: { chainId: 'bitcoin', depository: btc().depository } },
    });
    expect(btc().depository).toMatch(/^bcrt1q/);
    expect(bitcoin.currency).toMatchObject({ symbol: 'BTC', address: BTC, decimals: 8 });
    expect(doc.chains[0]!.erc20Currencies!.map((c) => c.symbol)).toEqual(['USDC', 'USDT', 'WBTC']);
    expect(doc.chains[0]!.erc20Currencies![2]).toMatchObject({ address: alpha().wbtc.toLowerCase(), decimals: 8 });
  });

  it('Bitcoin → EVM: the PSBT verifies, the request is pending while unmined (index answers 404), fills WBTC after 1 block', async () => {
    const treasury = btc().treasury;
    const amount = 1_000_000n;
    const q = await quote(s, toWbtc(treasury.address, amount));
    const verdict = await verify(s, q, expectWbtc(treasury.address, amount), await bitcoinUtxos(s, treasury.address));
    expect(failed(verdict)).toEqual([]);
    const psbt = Psbt.fromHex((q.steps[0]!.items[0]!.data as { psbt: string }).psbt, { network: networks.regtest });
    expect(psbt.txOutputs.map((o) => o.address ?? 'OP_RETURN')).toEqual([btc().depository, 'OP_RETURN', treasury.address]);
    expect(psbt.txOutputs[0]!.value).toBe(amount);

    const recipient = s.accounts.extra[0]!.address;
    const [wbtcBefore, depositoryBefore] = [await wbtcOf(recipient), btc().node.balance(btc().depository)];
    const { hex, txid } = signPsbt(q, treasury.wif);
    expect(await broadcastBitcoin(s, hex)).toBe(txid);
    const pending = await statusUntil(s, q.requestId!, (st) => st.status !== 'waiting');
    expect(pending).toMatchObject({ status: 'pending', inTxHashes: [txid], txHashes: [] });
    expect((await index(txid)).status).toBe(404); // not in a block yet
    await sleep(500);
    expect((await status(s, q.requestId!)).status).toBe('pending');

    btc().node.mine(1);
    const done = await terminal(s, q.requestId!);
    expect(done).toMatchObject({ status: 'success', inTxHashes: [txid] });
    expect((await wbtcOf(recipient)) - wbtcBefore).toBe(expectedOut(q));
    expect(btc().node.balance(btc().depository) - depositoryBefore).toBe(amount);
    const hit = await index(txid);
    expect([hit.status, await hit.json()]).toEqual([200, { message: 'Transaction indexed', deposits: 1 }]);
  });

  it('a high-value deposit waits for 2 confirmations; a P2TR user signs the same PSBT shape', async () => {
    const key = ECPair.makeRandom({ network: networks.regtest });
    const internalKey = toXOnly(key.publicKey);
    const address = payments.p2tr({ internalPubkey: internalKey, network: networks.regtest }).address!; // p2tr of a key has an address
    btc().node.faucet(address, 100_000_000n);
    const amount = 60_000_000n; // ≥ HIGH_VALUE_SATS
    const q = await quote(s, toWbtc(address, amount));
    expect(failed(await verify(s, q, expectWbtc(address, amount), await bitcoinUtxos(s, address)))).toEqual([]);
    const psbt = Psbt.fromHex((q.steps[0]!.items[0]!.data as { psbt: string }).psbt, { network: networks.regtest });
    expect(psbt.data.inputs[0]!.tapInternalKey).toBeUndefined(); // the API cannot know it; the wallet adds it
    psbt.data.inputs.forEach((_input, i) => psbt.updateInput(i, { tapInternalKey: internalKey }));
    psbt.signAllInputs(key.tweak(btcCrypto.taggedHash('TapTweak', internalKey)));
    psbt.finalizeAllInputs();
    await broadcastBitcoin(s, psbt.extractTransaction().toHex());
    await statusUntil(s, q.requestId!, (st) => st.status === 'pending');
    btc().node.mine(1);
    await sleep(600);
    expect((await status(s, q.requestId!)).status).toBe('pending');
    btc().node.mine(1);
    expect((await terminal(s, q.requestId!)).status).toBe('success');
  });

  it('EVM → Bitcoin: USDC on alpha pays BTC from the solver wallet in a real transaction, success once mined', async () => {
    const to = payments.p2wpkh({ pubkey: ECPair.makeRandom({ network: networks.regtest }).publicKey, network: networks.regtest }).address!; // p2wpkh of a key has an address
    const amount = 600_000_000n; // 600 USDC
    const body = {
      user: s.accounts.treasury.address,
      recipient: to,
      originChainId: alpha().def.chainId,
      destinationChainId: BITCOIN_ID,
      originCurrency: alpha().usdc,
      destinationCurrency: BTC,
      amount: amount.toString(),
    };
    const q = await quote(s, body);
    const verdict = await verify(
      s,
      q,
      { user: s.accounts.treasury.address, recipient: to, amount, destinationChainId: BITCOIN_ID, destinationCurrency: BTC },
      {},
    );
    expect(failed(verdict)).toEqual([]);
    await sendEvmSteps(s, q);
    const submitted = await statusUntil(s, q.requestId!, (st) => st.status === 'submitted');
    expect(submitted.txHashes[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(btc().node.confirmations(submitted.txHashes[0]!)).toBe(0);
    const whileUnmined = await postQuote(s, quoteBody(body)); // the solver's unmined change still counts as liquidity
    expect(whileUnmined.status, JSON.stringify(whileUnmined.json)).toBe(200);
    btc().node.mine(1);
    expect((await terminal(s, q.requestId!)).status).toBe('success');
    expect(btc().node.balance(to)).toBe(expectedOut(q));

    const mixedCase = `${to.slice(0, 10)}${to.slice(10).toUpperCase()}`; // bech32 forbids mixed case
    const mangled = await postQuote(s, quoteBody({ ...body, recipient: mixedCase }));
    expect([mangled.status, mangled.json.errorCode, mangled.json.errorData]).toEqual([400, 'INVALID_ADDRESS', 'recipient']);
    const mainnet = await postQuote(s, quoteBody({ ...body, recipient: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4' }));
    expect([mainnet.status, mainnet.json.errorCode]).toEqual([400, 'INVALID_ADDRESS']);
  });

  it('INSUFFICIENT_FUNDS when the balance does not exceed amount + fee (and for an empty address)', async () => {
    const poor = fundedWallet(10_000n);
    const empty = payments.p2wpkh({
      pubkey: ECPair.makeRandom({ network: networks.regtest }).publicKey,
      network: networks.regtest,
    }).address!; // as above
    for (const user of [poor.address, empty]) {
      const { status: code, json } = await postQuote(s, quoteBody(toWbtc(user, 9_800n)));
      expect([code, json.errorCode], JSON.stringify(json)).toEqual([400, 'INSUFFICIENT_FUNDS']);
      expect(String(json.message)).toMatch(/balance of .* is \d+ sat/);
    }
    const enough = await postQuote(s, quoteBody(toWbtc(poor.address, 5_000n)));
    expect(enough.status).toBe(200);
  });

  it.each([
    ['psbtExtraOutput', 'change'],
    ['psbtAmount', 'deposit-kind'],
    ['psbtDepository', 'deposit-call'],
    ['psbtNoOpReturn', 'deposit-id'],
    ['psbtForeignInput', 'origin-inputs'],
    ['psbtChangeStranger', 'change'],
    ['psbtHighFee', 'fee-cap'],
    ['psbtMinerFee', 'miner-fee-cap'],
    ['farDeadline', 'deadline-horizon'],
  ] as const)('a PSBT tampered with %s is refused on %s (nothing is signed)', async (tamper, rule) => {
    s.setFaults({ tamper, tamperCount: 1 });
    const treasury = btc().treasury;
    const amount = 1_000_000n;
    const q = await quote(s, toWbtc(treasury.address, amount));
    const verdict = await verify(s, q, expectWbtc(treasury.address, amount), await bitcoinUtxos(s, treasury.address));
    expect(verdict.ok).toBe(false);
    expect(failed(verdict)).toContain(rule);
    s.resetFaults();
    s.setFaults({ fillDelayMs: 0 });
  });

  it('refund fault: the deposit is swept back from the depository to refundTo (the user), less the fee', async () => {
    const user = fundedWallet(2_000_000n);
    s.setFaults({ refund: true, fillDelayMs: 0 });
    const q = await quote(s, { ...toWbtc(user.address, 1_000_000n), refundTo: user.address });
    const depositFee = BigInt(q.fees!.gas!.amount);
    await broadcastBitcoin(s, signPsbt(q, user.wif).hex);
    await statusUntil(s, q.requestId!, (st) => st.status === 'pending');
    btc().node.mine(1);
    const refunding = await statusUntil(s, q.requestId!, () => btc().node.mempoolTxids().length > 0);
    expect(refunding.status).toBe('pending');
    btc().node.mine(1);
    const done = await terminal(s, q.requestId!);
    expect(done.status).toBe('refund');
    const refundFee = 2_000_000n - depositFee - btc().node.balance(user.address);
    expect(refundFee).toBeGreaterThan(0n);
    expect(refundFee).toBeLessThan(1_000n); // the deposit came back, less a small fee
    s.resetFaults();
  });
});
