/**
 * Builds the transaction that ends an unmined Bitcoin deposit of ours provably: it spends every input of the
 * deposit back to our own address, signals replaceability itself (nSequence 0xfffffffd), has nLockTime 0, and
 * pays the fee priced by src/chains/bvm/cancelPrice.ts (BIP-125 over the deposit and earlier cancels, the
 * market, the caps). It is built as a PSBT and signed by the same signer as deposits (src/chains/bvm/signPsbt.ts)
 * under the cancel's own caps (`maxCancelFeeSats`, `maxFeeRateSatPerVb`), so every input is checked to be ours,
 * every signature is validated, and no cancel ever pays more than configured. Pure: the spent outputs are passed in.
 *
 * Why all inputs and not one: a replacement must out-pay the whole original, and spending every input returns
 * everything the deposit would have taken, less only the higher fee; it also leaves no input of the deposit
 * unspent, so the deposit cannot come back in part.
 */
import { Psbt, Transaction } from 'bitcoinjs-lib';
import { parseBvmPsbt } from '../../verify/deposit/bvmPsbt.ts';
import { BvmAdapterError } from './errors.ts';
import { signBvmPsbt, type SignedBvmTx } from './signPsbt.ts';
import { outpointsOf } from './txRecord.ts';
import { BVM_NETWORK_PARAMS, type BvmWalletKey } from './wallet.ts';

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

/** Caps a cancel is signed under (from `chains.<name>`). */
export interface CancelCaps {
  /** `maxFeeRateSatPerVb`. */
  maxFeeRateSatPerVb: number;
  /** `maxCancelFeeSats`. */
  maxFeeSat: bigint;
}

/** What a deposit's inputs add up to and what it paid miners, satoshis; its vsize, vB. */
export interface DepositFee {
  inputSat: bigint;
  feeSat: bigint;
  vsize: number;
}

/** Parses a signed raw transaction. @throws BvmAdapterError when it does not parse */
export function parseRecordedTx(rawTx: string, what: string): Transaction {
  try {
    return Transaction.fromHex(rawTx);
  } catch (error) {
    throw new BvmAdapterError(`${what} does not parse as a transaction: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * The fee a transaction spending `spent` paid: Σ spent − Σ its outputs.
 *
 * @throws BvmAdapterError when its inputs and `spent` disagree or its outputs exceed what it spends
 */
export function feeOfSpending(tx: Transaction, spent: readonly SpentOutput[], what: string): DepositFee {
  const outpoints = outpointsOf(tx).map((o) => `${o.txid}:${o.vout}`);
  const given = spent.map((s) => `${s.txid.toLowerCase()}:${s.vout}`);
  if (outpoints.join(',') !== given.join(',')) {
    throw new BvmAdapterError(`the spent outputs read (${given.join(', ')}) are not ${what}'s inputs (${outpoints.join(', ')})`);
  }
  const inputSat = spent.reduce((sum, s) => sum + s.value, 0n);
  const feeSat = inputSat - tx.outs.reduce((sum, o) => sum + o.value, 0n);
  if (feeSat < 0n) throw new BvmAdapterError(`${what}'s outputs exceed the ${inputSat} sat it spends`);
  return { inputSat, feeSat, vsize: tx.virtualSize() };
}

function cancelPsbt(key: BvmWalletKey, spent: readonly SpentOutput[], outputSat: bigint): Psbt {
  const psbt = new Psbt({ network: BVM_NETWORK_PARAMS[key.network] });
  psbt.setVersion(2);
  psbt.setLocktime(0);
  for (const s of spent) {
    psbt.addInput({ hash: s.txid, index: s.vout, sequence: RBF_SEQUENCE, witnessUtxo: { script: s.script, value: s.value } });
  }
  psbt.addOutput({ address: key.address, value: outputSat });
  return psbt;
}

/**
 * The estimated signed vsize of a cancel spending `spent` to `key`'s address (largest signatures: the rate
 * the signer checks is never below the real one).
 *
 * @throws BvmAdapterError when it cannot be sized
 */
export function cancelVsize(key: BvmWalletKey, spent: readonly SpentOutput[]): number {
  const inputSat = spent.reduce((sum, s) => sum + s.value, 0n);
  const sized = parseBvmPsbt(cancelPsbt(key, spent, inputSat).toHex(), BVM_NETWORK_PARAMS[key.network]);
  if (!sized.psbt || 'problem' in sized.psbt.size) {
    throw new BvmAdapterError(
      `cannot size the cancel: ${sized.problem ?? (sized.psbt && 'problem' in sized.psbt.size ? sized.psbt.size.problem : '')}`,
    );
  }
  return sized.psbt.size.vsize;
}

/**
 * Builds and signs the cancel of `deposit`: every input it spends, less `feeSat`, back to `key`'s own address.
 *
 * @returns the signed cancel (`feeSat` is what it pays miners)
 * @throws BvmAdapterError when the deposit's raw transaction does not parse, its inputs and `spent` disagree,
 *   an input is not `key`'s, what is left after the fee is below {@link CANCEL_DUST_SATS}, or the fee is above
 *   `caps` (nothing is signed then); SignerError from a key service (src/chains/bvm/signPsbt.ts)
 */
export async function buildCancelTx(key: BvmWalletKey, deposit: CancelledDeposit, feeSat: bigint, caps: CancelCaps): Promise<SignedBvmTx> {
  const original = parseRecordedTx(deposit.rawTx, 'the recorded deposit');
  const { inputSat } = feeOfSpending(original, deposit.spent, 'the deposit');
  const back = inputSat - feeSat;
  if (back < CANCEL_DUST_SATS) {
    throw new BvmAdapterError(
      `cancelling the deposit needs a ${feeSat} sat fee, leaving ${back} sat of its ${inputSat} sat: below dust; it cannot be replaced`,
    );
  }
  // Nothing is paid away, so no bps cap applies (10,000 bps); the signer checks every input is ours and the caps.
  return signBvmPsbt(key, cancelPsbt(key, deposit.spent, back).toHex(), {
    maxFeeRateSatPerVb: caps.maxFeeRateSatPerVb,
    maxMinerFeeSats: caps.maxFeeSat,
    maxMinerFeeBps: 10_000,
    requireReplaceable: true,
  });
}
