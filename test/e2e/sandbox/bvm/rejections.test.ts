/**
 * End-to-end: what the sandbox Bitcoin node refuses at POST /tx, each with its own bitcoind reason (as
 * Esplora relays it) and stable Ballast code, and with nothing kept in the mempool; and what it accepts:
 * every standard sighash type for P2WPKH and P2TR key-path inputs, outputs exactly at the dust and
 * OP_RETURN limits.
 */
import { payments, script as btcScript, Transaction } from 'bitcoinjs-lib';
import type { ECPairInterface } from 'ecpair';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BitcoinTxRejectedError, type BitcoinTxRejectCode } from '../../../../packages/sandbox/src/bvm/errors.ts';
import type { EsploraOutspend } from '../../../../packages/sandbox/src/bvm/esploraJson.ts';
import { startEsploraNode, type BitcoinSandboxNode } from '../../../../packages/sandbox/src/bvm/startEsploraNode.ts';
import {
  buildSigned,
  ECPair,
  getJson,
  getText,
  p2trWallet,
  p2wpkhWallet,
  postTx,
  regtest,
  rpcError,
  type Coin,
  type TestWallet,
} from './btcWallets.ts';

let node: BitcoinSandboxNode;
beforeAll(async () => {
  node = await startEsploraNode();
});
afterAll(async () => {
  await node?.close();
});

const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const SIG_FAIL = 'mandatory-script-verify-flag-failed (Signature must be zero for failed CHECK(MULTI)SIG operation)';
const SCHNORR_FAIL = 'mandatory-script-verify-flag-failed (Invalid Schnorr signature)';
const SCHNORR_HASHTYPE = 'mandatory-script-verify-flag-failed (Invalid Schnorr signature hash type)';

/** A fresh confirmed coin of `value` sat owned by a new wallet of the given kind. */
function coin(kind: 'p2wpkh' | 'p2tr', value = 10_000n): Coin {
  const owner = kind === 'p2wpkh' ? p2wpkhWallet() : p2trWallet();
  const { txid, vout } = node.faucet(owner.address, value);
  return { txid, vout, value, owner };
}

const sink = p2wpkhWallet();

/** An unsigned version-2 transaction spending `coins` into `outs`. */
function rawSpend(coins: Coin[], outs: { script: Uint8Array; value: bigint }[]): Transaction {
  const tx = new Transaction();
  tx.version = 2;
  for (const c of coins) tx.addInput(Buffer.from(c.txid, 'hex').reverse(), c.vout);
  for (const o of outs) tx.addOutput(o.script, o.value);
  return tx;
}

/** Sets a P2WPKH witness for input `i`: signature by `signer` over the BIP-143 sighash, and `pubkey`. */
function signP2wpkh(
  tx: Transaction,
  i: number,
  c: Coin,
  signer: ECPairInterface,
  pubkey: Uint8Array = c.owner.key.publicKey,
  hashType = 1,
): void {
  const scriptCode = payments.p2pkh({ hash: c.owner.output.subarray(2) }).output!; // p2pkh from a hash always has an output
  const hash = tx.hashForWitnessV0(i, scriptCode, c.value, hashType);
  tx.setWitness(i, [btcScript.signature.encode(signer.sign(hash), hashType), pubkey]);
}

/** Sets a P2TR key-path witness for input `i`: Schnorr by `signer` over the BIP-341 sighash of `hashType`. */
function signP2tr(tx: Transaction, i: number, coins: Coin[], signer: ECPairInterface, hashType = 0, typeByte?: number): void {
  const hash = tx.hashForWitnessV1(
    i,
    coins.map((c) => c.owner.output),
    coins.map((c) => c.value),
    hashType,
  );
  const sig = signer.signSchnorr(hash);
  const byte = typeByte ?? (hashType === 0 ? undefined : hashType);
  tx.setWitness(i, [byte === undefined ? sig : Uint8Array.from([...sig, byte])]);
}

const pay = (value: bigint, to: TestWallet = sink) => ({ script: to.output, value });

/** POST /tx must answer 400 with exactly `reason`, broadcast() must throw `code`, and nothing enters the mempool. */
async function expectRejected(hex: string, code: BitcoinTxRejectCode, reason: string, rpcCode = -26): Promise<BitcoinTxRejectedError> {
  const before = node.mempoolTxids();
  expect(await postTx(node.url, hex)).toEqual({ status: 400, text: rpcError(rpcCode, reason) });
  let caught: unknown;
  try {
    node.broadcast(hex);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(BitcoinTxRejectedError);
  const rejected = caught as BitcoinTxRejectedError; // checked just above
  expect(rejected.code).toBe(code);
  expect(node.mempoolTxids()).toEqual(before);
  return rejected;
}

describe('POST /tx rejections', () => {
  it('a P2WPKH input signed by another key', async () => {
    const c = coin('p2wpkh');
    const tx = rawSpend([c], [pay(9_000n)]);
    signP2wpkh(tx, 0, c, ECPair.makeRandom({ network: regtest }));
    const err = await expectRejected(tx.toHex(), 'BTC_TX_BAD_SIGNATURE', SIG_FAIL);
    expect(err.inputIndex).toBe(0);
    expect((await getText(`${node.url}/tx/${tx.getId()}`)).status).toBe(404);
  });

  it("a P2WPKH input carrying another key's valid signature and public key", async () => {
    const c = coin('p2wpkh');
    const other = ECPair.makeRandom({ network: regtest });
    const tx = rawSpend([c], [pay(9_000n)]);
    signP2wpkh(tx, 0, c, other, other.publicKey);
    await expectRejected(
      tx.toHex(),
      'BTC_TX_PUBKEY_MISMATCH',
      'mandatory-script-verify-flag-failed (Script failed an OP_EQUALVERIFY operation)',
    );
  });

  it('a high-S P2WPKH signature, and a missing witness', async () => {
    const c = coin('p2wpkh');
    const tx = rawSpend([c], [pay(9_000n)]);
    const scriptCode = payments.p2pkh({ hash: c.owner.output.subarray(2) }).output!; // p2pkh from a hash has an output
    const low = c.owner.key.sign(tx.hashForWitnessV0(0, scriptCode, c.value, 1));
    const s = BigInt(`0x${Buffer.from(low.subarray(32)).toString('hex')}`);
    const high = Uint8Array.from([...low.subarray(0, 32), ...Buffer.from((SECP256K1_ORDER - s).toString(16).padStart(64, '0'), 'hex')]);
    tx.setWitness(0, [btcScript.signature.encode(high, 1), c.owner.key.publicKey]);
    await expectRejected(
      tx.toHex(),
      'BTC_TX_BAD_SIGNATURE_ENCODING',
      'mandatory-script-verify-flag-failed (Non-canonical signature: S value is unnecessarily high)',
    );
    tx.setWitness(0, []);
    await expectRejected(
      tx.toHex(),
      'BTC_TX_BAD_WITNESS',
      'mandatory-script-verify-flag-failed (Witness program was passed an empty witness)',
    );
    signP2wpkh(tx, 0, c, c.owner.key);
    expect((await postTx(node.url, tx.toHex())).status).toBe(200); // the same spend, signed properly
  });

  it('an output amount tampered with after signing (P2WPKH and P2TR inputs)', async () => {
    const w = coin('p2wpkh');
    const t = coin('p2tr');
    const signed = buildSigned([w, t], [{ address: sink.address, value: 19_000n }]);
    const tampered = Transaction.fromHex(signed.toHex());
    tampered.outs[0]!.value = 18_000n; // still below the inputs, so only the signatures can catch it
    await expectRejected(tampered.toHex(), 'BTC_TX_BAD_SIGNATURE', SIG_FAIL);

    const onlyTaproot = buildSigned([coin('p2tr')], [{ address: sink.address, value: 9_000n }]);
    const tamperedTr = Transaction.fromHex(onlyTaproot.toHex());
    tamperedTr.outs[0]!.value = 8_000n;
    await expectRejected(tamperedTr.toHex(), 'BTC_TX_BAD_SIGNATURE', SCHNORR_FAIL);
    expect((await postTx(node.url, signed.toHex())).status).toBe(200); // the untouched original is fine
  });

  it('a missing input', async () => {
    const c = coin('p2wpkh');
    const ghost: Coin = { ...c, txid: 'ee'.repeat(32) };
    const tx = rawSpend([ghost], [pay(9_000n)]);
    signP2wpkh(tx, 0, ghost, c.owner.key);
    const err = await expectRejected(tx.toHex(), 'BTC_TX_INPUT_MISSING_OR_SPENT', 'bad-txns-inputs-missingorspent', -25);
    expect(err.message).toContain(`${'ee'.repeat(32)}:0 does not exist`);
  });

  it('double spends: of a mempool output (a replacement paying less) and of a mined output', async () => {
    const c = coin('p2tr');
    const first = buildSigned([c], [{ address: sink.address, value: 9_000n }]);
    const second = buildSigned([c], [{ address: sink.address, value: 9_100n }]);
    expect(await postTx(node.url, first.toHex())).toEqual({ status: 200, text: first.getId() });
    const vsize = BigInt(second.virtualSize()); // P2TR: the same vsize for both
    const rate = (fee: bigint) => `0.${((fee * 1000n) / vsize).toString().padStart(8, '0')} BTC/kvB`;
    await expectRejected(
      second.toHex(),
      'BTC_TX_REPLACEMENT_FEE_TOO_LOW',
      `insufficient fee, rejecting replacement ${second.getId()}; new feerate ${rate(900n)} <= old feerate ${rate(1_000n)}`,
    );
    expect(node.mempoolTxids()).toContain(first.getId());
    node.mine();
    expect(node.mempoolTxids()).toEqual([]);
    await expectRejected(second.toHex(), 'BTC_TX_INPUT_MISSING_OR_SPENT', 'bad-txns-inputs-missingorspent', -25);
    expect(await getJson<EsploraOutspend>(`${node.url}/tx/${c.txid}/outspend/0`)).toMatchObject({
      spent: true,
      txid: first.getId(),
      vin: 0,
    });
  });

  it('outputs above inputs, and a fee under the relay minimum', async () => {
    const c = coin('p2wpkh');
    const over = rawSpend([c], [pay(10_001n)]);
    signP2wpkh(over, 0, c, c.owner.key);
    await expectRejected(over.toHex(), 'BTC_TX_IN_BELOW_OUT', 'bad-txns-in-belowout, value in (10000) < value out (10001)');
    const free = rawSpend([c], [pay(10_000n)]);
    signP2wpkh(free, 0, c, c.owner.key);
    await expectRejected(free.toHex(), 'BTC_TX_FEE_TOO_LOW', `min relay fee not met, 0 < ${free.virtualSize()}`);
  });

  it('P2TR inputs signed with the untweaked key, over the wrong sighash, or with a bad sighash type or size', async () => {
    const c = coin('p2tr');
    const tx = rawSpend([c], [pay(9_000n)]);
    signP2tr(tx, 0, [c], c.owner.key); // the internal key, not the output key
    await expectRejected(tx.toHex(), 'BTC_TX_BAD_SIGNATURE', SCHNORR_FAIL);
    signP2tr(tx, 0, [c], c.owner.signer, 0, 0x01); // signed over SIGHASH_DEFAULT, claims SIGHASH_ALL
    await expectRejected(tx.toHex(), 'BTC_TX_BAD_SIGNATURE', SCHNORR_FAIL);
    signP2tr(tx, 0, [c], c.owner.signer, 0x02, 0x01); // signed over SIGHASH_NONE, claims SIGHASH_ALL
    await expectRejected(tx.toHex(), 'BTC_TX_BAD_SIGNATURE', SCHNORR_FAIL);
    signP2tr(tx, 0, [c], c.owner.signer, 0, 0x00); // an explicit 0x00 byte is invalid in BIP-341
    await expectRejected(tx.toHex(), 'BTC_TX_BAD_SIGNATURE_ENCODING', SCHNORR_HASHTYPE);
    signP2tr(tx, 0, [c], c.owner.signer, 0, 0x04);
    await expectRejected(tx.toHex(), 'BTC_TX_BAD_SIGNATURE_ENCODING', SCHNORR_HASHTYPE);
    tx.setWitness(0, [new Uint8Array(63)]);
    await expectRejected(
      tx.toHex(),
      'BTC_TX_BAD_SIGNATURE_ENCODING',
      'mandatory-script-verify-flag-failed (Invalid Schnorr signature size)',
    );

    const d = coin('p2tr');
    const single = rawSpend([c, d], [pay(19_000n)]);
    signP2tr(single, 0, [c, d], c.owner.signer);
    // SIGHASH_SINGLE at input 1 with only one output: no message to sign exists, so any signature bytes do.
    single.setWitness(1, [Uint8Array.from([...d.owner.signer.signSchnorr(new Uint8Array(32)), 0x03])]);
    const err = await expectRejected(single.toHex(), 'BTC_TX_BAD_SIGNATURE_ENCODING', SCHNORR_HASHTYPE);
    expect(err.inputIndex).toBe(1);

    // BIP-341 commits to every input's amount: a signature over a wrong amount of the *other* input fails.
    const wrongAmount = rawSpend([c, d], [pay(19_000n)]);
    const hash = wrongAmount.hashForWitnessV1(0, [c.owner.output, d.owner.output], [c.value, d.value + 1n], 0);
    wrongAmount.setWitness(0, [c.owner.signer.signSchnorr(hash)]);
    signP2tr(wrongAmount, 1, [c, d], d.owner.signer);
    expect((await expectRejected(wrongAmount.toHex(), 'BTC_TX_BAD_SIGNATURE', SCHNORR_FAIL)).inputIndex).toBe(0);
    signP2tr(wrongAmount, 0, [c, d], c.owner.signer);
    expect(await postTx(node.url, wrongAmount.toHex())).toEqual({ status: 200, text: wrongAmount.getId() });
  });

  it('dust outputs, oversized OP_RETURN, unsupported input scripts, undecodable bodies', async () => {
    const c = coin('p2wpkh', 20_000n);
    const spendWith = (outs: { script: Uint8Array; value: bigint }[]) => {
      const tx = rawSpend([c], outs);
      signP2wpkh(tx, 0, c, c.owner.key);
      return tx.toHex();
    };
    const opReturn = (bytes: number) => btcScript.compile([btcScript.OPS.OP_RETURN, new Uint8Array(bytes).fill(7)]);
    await expectRejected(spendWith([pay(329n), pay(19_000n)]), 'BTC_TX_DUST', 'dust');
    await expectRejected(spendWith([pay(19_000n), { script: p2trWallet().output, value: 329n }]), 'BTC_TX_DUST', 'dust');
    expect(opReturn(81)).toHaveLength(84);
    await expectRejected(spendWith([pay(19_000n), { script: opReturn(81), value: 0n }]), 'BTC_TX_NONSTANDARD_OUTPUT', 'scriptpubkey');
    await expectRejected(
      spendWith([pay(9_000n), { script: opReturn(1), value: 0n }, { script: opReturn(1), value: 0n }]),
      'BTC_TX_MULTI_OP_RETURN',
      'multi-op-return',
    );
    await expectRejected('zz', 'BTC_TX_DECODE_FAILED', 'TX decode failed', -22);
    await expectRejected('0200000000', 'BTC_TX_DECODE_FAILED', 'TX decode failed', -22);

    const legacyKey = ECPair.makeRandom({ network: regtest });
    const legacy = payments.p2pkh({ pubkey: legacyKey.publicKey, network: regtest });
    const fund = node.faucet(legacy.address!, 10_000n); // payments.p2pkh from a pubkey has an address
    const tx = rawSpend([{ txid: fund.txid, vout: 0, value: 10_000n, owner: sink }], [pay(9_000n)]);
    const sig = btcScript.signature.encode(legacyKey.sign(tx.hashForSignature(0, legacy.output!, 1)), 1);
    tx.setInputScript(0, btcScript.compile([sig, legacyKey.publicKey]));
    await expectRejected(tx.toHex(), 'BTC_TX_UNSUPPORTED_INPUT', 'sandbox-unsupported-input (spends p2pkh)');

    // Exactly at the limits is fine: 330 sat to P2WPKH and P2TR, an 83-byte OP_RETURN script.
    expect(opReturn(80)).toHaveLength(83);
    const ok = spendWith([pay(330n), { script: p2trWallet().output, value: 330n }, { script: opReturn(80), value: 0n }, pay(18_000n)]);
    expect((await postTx(node.url, ok)).status).toBe(200);
  });
});

describe('POST /tx accepts every standard sighash type', () => {
  const TYPES = [0x01, 0x02, 0x03, 0x81, 0x82, 0x83];
  const named = (types: number[]) => types.map((t) => [t.toString(16).padStart(2, '0'), t] as const);
  it.each(named(TYPES))('P2WPKH with sighash 0x%s', async (_name, hashType) => {
    const c = coin('p2wpkh');
    const tx = buildSigned([c], [{ address: sink.address, value: 9_000n }], { sighashType: hashType });
    expect(tx.ins[0]!.witness[0]!.at(-1)).toBe(hashType);
    expect(await postTx(node.url, tx.toHex())).toEqual({ status: 200, text: tx.getId() });
  });
  it.each(named([0x00, ...TYPES]))('P2TR key path with sighash 0x%s', async (_name, hashType) => {
    const c = coin('p2tr');
    // SIGHASH_DEFAULT is what a PSBT without a sighash type signs with.
    const tx = buildSigned([c], [{ address: sink.address, value: 9_000n }], hashType === 0 ? {} : { sighashType: hashType });
    expect(tx.ins[0]!.witness[0]).toHaveLength(hashType === 0 ? 64 : 65);
    expect(await postTx(node.url, tx.toHex())).toEqual({ status: 200, text: tx.getId() });
  });
});
