/**
 * Ends an unmined Bitcoin deposit of ours provably: a replacement that spends every input of the deposit back
 * to our own address, at a fee that any mempool takes in its place (BIP-125 rules 3 and 4, which Bitcoin Core
 * also applies under full-RBF): an absolute fee at least the original's plus the incremental relay fee
 * (1 sat/vB) × the replacement's own vsize, and a fee rate above the original's. The replacement signals
 * replaceability itself (nSequence 0xfffffffd) and has nLockTime 0. It is built as a PSBT and signed by the same
 * signer as deposits (src/chains/bvm/signPsbt.ts), so every input is checked to be ours and every signature is
 * validated. Pure: the spent outputs are passed in.
 *
 * Why all inputs and not one: a replacement must out-pay the whole original, and spending every input returns
 * everything the deposit would have taken, less only the higher fee; it also leaves no input of the deposit
 * unspent, so the deposit cannot come back in part.
 */
import { Psbt, Transaction } from 'bitcoinjs-lib';
import { parseBvmPsbt } from '../../verify/deposit/bvmPsbt.ts';
import { BvmAdapterError } from './errors.ts';
import { signBvmPsbt, type SignedBvmTx } from './signPsbt.ts';
import { BVM_NETWORK_PARAMS, type BvmKey } from './wallet.ts';

/** BIP-125 rule 4 / Bitcoin Core's default `-incrementalrelayfee`: 1 sat/vB, in satoshis per vbyte. */
export const INCREMENTAL_RELAY_FEE_SAT_PER_VB = 1n;
/** Smallest output a replacement keeps, satoshis (the P2WPKH / P2TR dust threshold used by the sandbox node). */
export const CANCEL_DUST_SATS = 330n;
/** nSequence that signals BIP-125 replaceability (0xffffffff − 2) without enabling a relative lock time. */
export const RBF_SEQUENCE = 0xfffffffd;

/** One output the deposit spends: outpoint, value (satoshis) and script, as read from the chain. */
export interface SpentOutput {
  txid: string;
  vout: number;
  value: bigint;
  script: Uint8Array;
}

/** What {@link buildCancelTx} needs of the deposit being replaced. Amounts in satoshis. */
export interface CancelledDeposit {
  /** The deposit's signed raw transaction, hex. */
  rawTx: string;
  /** Every output it spends, in its input order (values from the chain, never from the deposit itself). */
  spent: readonly SpentOutput[];
}

/**
 * Fee a replacement of `vsize` vbytes must pay to replace a transaction that paid `originalFeeSat` over
 * `originalVsize` vbytes: BIP-125 rule 4 (original fee + incremental relay fee × own vsize) and a fee rate
 * strictly above the original's (rule 6 of Bitcoin Core's replacement policy), whichever is higher.
 */
export function replacementFeeSat(originalFeeSat: bigint, originalVsize: number, vsize: number): bigint {
  const rule4 = originalFeeSat + INCREMENTAL_RELAY_FEE_SAT_PER_VB * BigInt(vsize);
  // Smallest fee whose rate beats the original's: ⌊originalFee × vsize ÷ originalVsize⌋ + 1.
  const higherRate = (originalFeeSat * BigInt(vsize)) / BigInt(originalVsize) + 1n;
  return rule4 > higherRate ? rule4 : higherRate;
}

/**
 * Builds and signs the replacement of `deposit` that pays everything it spends, less the replacement fee, to
 * `key`'s own address.
 *
 * @returns the signed replacement (`feeSat` is what it pays miners)
 * @throws BvmAdapterError when the deposit's raw transaction does not parse, its inputs and `spent` disagree,
 *   an input is not `key`'s, or what is left after the fee is below {@link CANCEL_DUST_SATS}
 */
export function buildCancelTx(key: BvmKey, deposit: CancelledDeposit): SignedBvmTx {
  let original: Transaction;
  try {
    original = Transaction.fromHex(deposit.rawTx);
  } catch (error) {
    throw new BvmAdapterError(
      `the recorded deposit does not parse as a transaction: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const outpoints = original.ins.map((i) => `${Buffer.from(i.hash).reverse().toString('hex')}:${i.index}`);
  const given = deposit.spent.map((s) => `${s.txid.toLowerCase()}:${s.vout}`);
  if (outpoints.join(',') !== given.join(',')) {
    throw new BvmAdapterError(`the spent outputs read (${given.join(', ')}) are not the deposit's inputs (${outpoints.join(', ')})`);
  }
  const inputSat = deposit.spent.reduce((sum, s) => sum + s.value, 0n);
  const originalFee = inputSat - original.outs.reduce((sum, o) => sum + o.value, 0n);
  if (originalFee < 0n) throw new BvmAdapterError(`the deposit's outputs exceed the ${inputSat} sat it spends`);

  const network = BVM_NETWORK_PARAMS[key.network];
  const build = (outputSat: bigint): Psbt => {
    const psbt = new Psbt({ network });
    psbt.setVersion(2);
    psbt.setLocktime(0);
    for (const s of deposit.spent) {
      psbt.addInput({ hash: s.txid, index: s.vout, sequence: RBF_SEQUENCE, witnessUtxo: { script: s.script, value: s.value } });
    }
    psbt.addOutput({ address: key.address, value: outputSat });
    return psbt;
  };
  const sized = parseBvmPsbt(build(inputSat).toHex(), network);
  if (!sized.psbt || 'problem' in sized.psbt.size) {
    throw new BvmAdapterError(
      `cannot size the replacement: ${sized.problem ?? (sized.psbt && 'problem' in sized.psbt.size ? sized.psbt.size.problem : '')}`,
    );
  }
  const fee = replacementFeeSat(originalFee, original.virtualSize(), sized.psbt.size.vsize);
  const back = inputSat - fee;
  if (back < CANCEL_DUST_SATS) {
    throw new BvmAdapterError(
      `replacing the deposit needs a ${fee} sat fee, leaving ${back} sat of its ${inputSat} sat: below dust; it cannot be replaced`,
    );
  }
  // The signer's caps are set to exactly what this replacement pays: its fee is bounded by construction (the
  // original's, which passed the configured caps when it was signed, plus 1 sat/vB of a smaller transaction), and
  // a replacement that must out-pay the original cannot also stay under a cap the original may have reached.
  // Nothing is paid away, so no bps cap applies; the signer still checks every input is ours.
  const rateCap = Number((fee + BigInt(sized.psbt.size.vsize) - 1n) / BigInt(sized.psbt.size.vsize)) + 1;
  return signBvmPsbt(key, build(back).toHex(), {
    maxFeeRateSatPerVb: rateCap,
    maxMinerFeeSats: fee,
    maxMinerFeeBps: 10_000,
    requireReplaceable: true,
  });
}
