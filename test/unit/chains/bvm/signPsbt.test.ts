/**
 * signBvmPsbt: a deposit PSBT (Bitcoin quote fixtures) signed with a WIF-loaded key. Each extracted signature
 * is checked independently of bitcoinjs's PSBT code: the BIP-143 (P2WPKH) or BIP-341 (P2TR key path) sighash
 * is computed from the extracted transaction and verified with tiny-secp256k1 against the wallet's key. P2TR is
 * signed whether or not the PSBT carries `tapInternalKey`; inputs that are not ours, already signed, asking for
 * another sighash, or a fee above the cap are refused with the reason.
 */
import { networks, payments, Psbt, script as btcScript, Transaction, toXOnly } from 'bitcoinjs-lib';
import { ECPairFactory } from 'ecpair';
import * as ecc from 'tiny-secp256k1';
import { describe, expect, it } from 'vitest';
import { signBvmPsbt, type BvmSignLimits } from '../../../../packages/ballast/src/chains/bvm/signPsbt.ts';
import {
  bvmKeyFromWif,
  BVM_NETWORK_PARAMS,
  type BvmAddressType,
  type BvmKey,
  type BvmNetwork,
} from '../../../../packages/ballast/src/chains/bvm/wallet.ts';
import {
  AMOUNT,
  buildPsbt,
  bvmCase,
  FEE,
  SIGN_LIMITS,
  standardSpec,
  strangerAddress,
  UTXO_VALUES,
  type BvmCase,
  type PsbtSpec,
} from '../../../fixtures/bvmQuote.ts';

const ECPair = ECPairFactory(ecc);

function keyOf(type: BvmAddressType, network: BvmNetwork, byte = 7): BvmKey {
  const wif = ECPair.fromPrivateKey(new Uint8Array(32).fill(byte), { network: BVM_NETWORK_PARAMS[network] }).toWIF();
  const r = bvmKeyFromWif(wif, { network, addressType: type });
  if (!r.ok) throw new Error(r.problem);
  return r.key;
}

/** The fixtures' case for a WIF-loaded key (same private key byte, so the same address). */
function caseOf(key: BvmKey): BvmCase {
  const network = BVM_NETWORK_PARAMS[key.network];
  const script =
    key.addressType === 'p2tr'
      ? payments.p2tr({ internalPubkey: key.internalPubkey!, network }).output!
      : payments.p2wpkh({ pubkey: key.publicKey, network }).output!; // both give outputs for valid keys
  return bvmCase({
    name: key.addressType,
    kind: key.addressType,
    network,
    address: key.address,
    script,
    signer: key.signer,
    ...(key.internalPubkey ? { internalKey: key.internalPubkey } : {}),
  });
}

/** Verifies input `i` of `tx` from its witness alone, with sighashes computed here. */
function inputVerifies(tx: Transaction, i: number, key: BvmKey, prevScripts: Uint8Array[], values: bigint[]): boolean {
  const witness = tx.ins[i]!.witness;
  if (key.addressType === 'p2wpkh') {
    const decoded = btcScript.signature.decode(witness[0]!);
    const scriptCode = payments.p2pkh({ pubkey: key.publicKey }).output!; // p2pkh of a pubkey always has an output
    const hash = tx.hashForWitnessV0(i, scriptCode, values[i]!, decoded.hashType);
    return (
      witness.length === 2 &&
      Buffer.from(witness[1]!).equals(Buffer.from(key.publicKey)) &&
      ecc.verify(hash, key.publicKey, decoded.signature)
    );
  }
  const sig = witness[0]!;
  const hashType = sig.length === 65 ? sig[64]! : Transaction.SIGHASH_DEFAULT;
  const hash = tx.hashForWitnessV1(i, prevScripts, values, hashType);
  const outputKey = prevScripts[i]!.subarray(2); // OP_1 <32-byte output key>
  return witness.length === 1 && ecc.verifySchnorr(hash, outputKey, sig.subarray(0, 64));
}

const CASES = [
  ['p2wpkh', 'mainnet'],
  ['p2wpkh', 'regtest'],
  ['p2tr', 'mainnet'],
  ['p2tr', 'regtest'],
] as const;

describe.each(CASES)('signBvmPsbt, %s on %s', (type, network) => {
  const key = keyOf(type, network);
  const c = caseOf(key);

  it.each([true, false])('signs every input with a signature that verifies (tapInternalKey in the PSBT: %s)', async (withInternalKey) => {
    const spec = standardSpec(c);
    if (!withInternalKey) spec.inputs = spec.inputs.map(({ tapInternalKey: _drop, ...rest }) => rest);
    const signed = await signBvmPsbt(key, buildPsbt(c, spec).toHex(), SIGN_LIMITS);
    const tx = Transaction.fromHex(signed.rawTx);
    expect(signed.txid).toBe(tx.getId());
    const scripts = spec.inputs.map(() => c.wallet.script);
    const values = spec.inputs.map((i) => i.value);
    expect(tx.ins.map((_in, i) => inputVerifies(tx, i, key, scripts, values))).toEqual([true, true]);
    // Tampering with a signed byte makes the independent check fail (the check can fail).
    const bad = Transaction.fromHex(signed.rawTx);
    bad.ins[0]!.witness[0]![5]! ^= 1;
    expect(inputVerifies(bad, 0, key, scripts, values)).toBe(false);
    expect(signed).toMatchObject({
      inputs: c.utxos.map((u) => `${u.txid}:${u.vout}`),
      outputs: [`${c.depository.address}:${AMOUNT}`, 'OP_RETURN:0', `${key.address}:${UTXO_VALUES[0] + UTXO_VALUES[1] - AMOUNT - FEE}`],
      feeSat: FEE,
      vsize: tx.virtualSize(),
      orderId: c.orderId,
    });
  });
});

describe('signBvmPsbt refusals', () => {
  const key = keyOf('p2wpkh', 'regtest');
  const c = caseOf(key);
  const refuse = (spec: PsbtSpec | string, pattern: RegExp, limits: Partial<BvmSignLimits> = {}) =>
    expect(
      signBvmPsbt(key, typeof spec === 'string' ? spec : buildPsbt(c, spec).toHex(), { ...SIGN_LIMITS, ...limits }),
    ).rejects.toMatchObject({ code: 'BVM_ADAPTER_REFUSED', message: expect.stringMatching(pattern) });

  it('an input that does not spend our script', async () => {
    const spec = standardSpec(c);
    spec.inputs[1] = { ...spec.inputs[1]!, script: strangerAddress(networks.regtest).script };
    await refuse(spec, /input 1 \((?:b2){32}:3\) does not spend from wallet bcrt1q/);
  });

  it('an input asking for SIGHASH_NONE, and a P2WPKH input asking for DEFAULT', async () => {
    const none = standardSpec(c);
    none.inputs[0] = { ...none.inputs[0]!, sighashType: Transaction.SIGHASH_NONE };
    await refuse(none, /input 0 .* asks for sighash 0x2; only ALL/);
    const all = standardSpec(c);
    all.inputs[0] = { ...all.inputs[0]!, sighashType: Transaction.SIGHASH_ALL };
    expect((await signBvmPsbt(key, buildPsbt(c, all).toHex(), SIGN_LIMITS)).inputs).toHaveLength(2);
  });

  it('an input already signed', async () => {
    const psbt = buildPsbt(c, standardSpec(c));
    psbt.signInput(0, key.signer);
    await refuse(psbt.toHex(), /input 0 .* already carries partialSig/);
  });

  it('a taproot input naming another internal key', async () => {
    const tr = keyOf('p2tr', 'regtest');
    const trCase = caseOf(tr);
    const spec = standardSpec(trCase);
    spec.inputs[0] = { ...spec.inputs[0]!, tapInternalKey: toXOnly(keyOf('p2tr', 'regtest', 9).publicKey) };
    await expect(signBvmPsbt(tr, buildPsbt(trCase, spec).toHex(), SIGN_LIMITS)).rejects.toThrow(
      /input 0 .* names another taproot internal key/,
    );
  });

  it('a fee rate above the cap; the same PSBT signs under a higher cap', async () => {
    // FEE (2,000 sat) over ~250 vB is about 8 sat/vB.
    await refuse(standardSpec(c), /fee 2000 sat over ~\d+ vB is above the cap of 5 sat\/vB/, { maxFeeRateSatPerVb: 5 });
    expect((await signBvmPsbt(key, buildPsbt(c, standardSpec(c)).toHex(), { ...SIGN_LIMITS, maxFeeRateSatPerVb: 10 })).feeSat).toBe(FEE);
  });

  /** The standard PSBT with its change cut to `changeSat` (the rest goes to miners). */
  function withChange(changeSat: bigint): PsbtSpec {
    const spec = standardSpec(c);
    spec.outputs[2] = { ...spec.outputs[2]!, value: changeSat };
    return spec;
  }

  it('the issue case: a 100,000-sat deposit paying 39,000 sat to miners (~137 sat/vB, under the rate cap) is refused', async () => {
    await refuse(withChange(1_000n), /miner fee 39000 sat is above 500 bps \(maxMinerFeeBps\) of the 100000 sat paid away/);
    // The public Relay docs' example share (3,639 sat on 100,000 sat, 364 bps) is signed under the defaults.
    expect((await signBvmPsbt(key, buildPsbt(c, withChange(140_000n - AMOUNT - 3_639n)).toHex(), SIGN_LIMITS)).feeSat).toBe(3_639n);
  });

  it('a transaction paying nothing away (all outputs ours) is held to the absolute cap only', async () => {
    const spec: PsbtSpec = { ...standardSpec(c), outputs: [{ script: c.wallet.script, value: 140_000n - 3_000n }] };
    expect((await signBvmPsbt(key, buildPsbt(c, spec).toHex(), SIGN_LIMITS)).feeSat).toBe(3_000n);
    await refuse(spec, /miner fee 3000 sat is above the cap of 2999 sat \(maxMinerFeeSats\)/, { maxMinerFeeSats: 2_999n });
  });

  it('a miner fee above maxMinerFeeSats is refused whatever its share', async () => {
    await refuse(standardSpec(c), /miner fee 2000 sat is above the cap of 1999 sat \(maxMinerFeeSats\)/, { maxMinerFeeSats: 1_999n });
    expect((await signBvmPsbt(key, buildPsbt(c, standardSpec(c)).toHex(), { ...SIGN_LIMITS, maxMinerFeeSats: 2_000n })).feeSat).toBe(FEE);
  });

  it('an input not signalling BIP-125 replaceability, unless requireReplaceable is false', async () => {
    const spec = standardSpec(c);
    spec.inputs[1] = { ...spec.inputs[1]!, sequence: 0xfffffffe };
    await refuse(spec, /input 1 nSequence 0xfffffffe does not signal BIP-125 replaceability/);
    expect((await signBvmPsbt(key, buildPsbt(c, spec).toHex(), { ...SIGN_LIMITS, requireReplaceable: false })).inputs).toHaveLength(2);
  });

  it('the issue case: nLockTime far in the future is refused; a height at the tip signs', async () => {
    await refuse({ ...standardSpec(c), locktime: 499_999_999 }, /nLockTime 499999999 is a block height, but the tip height was not read/);
    await refuse({ ...standardSpec(c), locktime: 900_000 }, /nLockTime 900000 is above the tip height 870000: not final/, {
      tipHeight: 870_000n,
    });
    await refuse({ ...standardSpec(c), locktime: 1_900_000_000 }, /nLockTime 1900000000 is a unix time/, { tipHeight: 870_000n });
    const signed = await signBvmPsbt(key, buildPsbt(c, { ...standardSpec(c), locktime: 870_000 }).toHex(), {
      ...SIGN_LIMITS,
      tipHeight: 870_000n,
    });
    expect(Transaction.fromHex(signed.rawTx).locktime).toBe(870_000);
  });

  it('a BIP-68 relative lock on an input is refused', async () => {
    const spec = standardSpec(c);
    spec.inputs[0] = { ...spec.inputs[0]!, sequence: 10 };
    await refuse(spec, /input 0 nSequence 0x0000000a is a BIP-68 relative lock of 10 block\(s\)/);
  });

  it('text that is not a PSBT (not hex; a PSBT without inputs, which does not parse)', async () => {
    await refuse('zz', /cannot sign: data\.psbt does not parse as a PSBT: not an even-length hex string/);
    const empty = new Psbt({ network: networks.regtest });
    empty.addOutput({ script: c.wallet.script, value: 1_000n });
    await refuse(empty.toHex(), /cannot sign: data\.psbt does not parse as a PSBT/);
  });
});
