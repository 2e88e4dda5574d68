/**
 * Signs a verified Bitcoin deposit PSBT (`data.psbt`, hex) with one wallet's key, the way relay-kit's Bitcoin
 * adapter does (docs/design.md "Bitcoin step data": every input, SIGHASH_ALL, finalize, extract), through bitcoinjs
 * `Psbt`:
 * - P2WPKH inputs get an ECDSA signature over the BIP-143 sighash (SIGHASH_ALL);
 * - P2TR inputs are spent by key path: the wallet's signer holds the BIP-86 tweaked key, which bitcoinjs
 *   matches against the output key computed from `tapInternalKey`, so a PSBT without `tapInternalKey` gets the
 *   wallet's internal key first; the Schnorr signature uses SIGHASH_DEFAULT unless the PSBT asks for ALL.
 * Every signature is then checked with tiny-secp256k1 (`validateSignaturesOfAllInputs`) before finalizing.
 * A key on the host and a key in a key service (src/chains/bvm/remoteSigner.ts: P2WPKH, each sighash signed by
 * the service and verified as it comes back) take this same path, through bitcoinjs `Psbt.signInputAsync`.
 *
 * The quote was verified before this runs (src/verify/deposit/bvmVerifier.ts); this module still refuses, and
 * signs nothing, when an input does not spend our wallet's script, already carries signing data, or asks for a
 * sighash other than ALL (or taproot DEFAULT); when the fee rate is above the configured cap (on the worst-case
 * size before signing, and on the signed transaction's own size after); when the miner
 * fee is above `maxMinerFeeSats` or above `maxMinerFeeBps` of what the transaction pays away (outputs to other
 * scripts than ours, OP_RETURN excluded; when nothing is paid away, the absolute cap alone); when an input does not signal BIP-125 replaceability while that is
 * required; or when the transaction is not final in the next block (nLockTime, BIP-68 relative locks: the
 * verifier's `locktime` rule). The PSBT is read with the verifier's parser (src/verify/deposit/bvmPsbt.ts).
 * No I/O but the key service's, when the wallet has one.
 */
import { address as btcAddress, Psbt, Transaction } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { decodeOrderIdMemoScript, sameScript } from '@ballast/protocol/protocol/bitcoinDeposit.ts';
import { checkBvmLocktime, checkBvmRbfSignal, LOCKTIME_THRESHOLD } from '../../verify/deposit/bvmLocks.ts';
import { parseBvmPsbt, type BvmPsbtInput, type ParsedBvmPsbt } from '../../verify/deposit/bvmPsbt.ts';
import { SignerError } from '../remote/signerError.ts';
import { BvmAdapterError } from './errors.ts';
import { BVM_NETWORK_PARAMS, type BvmWalletKey } from './wallet.ts';

/** A signed deposit transaction. Amounts in satoshis. */
export interface SignedBvmTx {
  /** Transaction id (big-endian hex). */
  txid: string;
  /** The signed transaction, witness included, hex. */
  rawTx: string;
  /** Spent outpoints, `txid:vout`, in input order. */
  inputs: string[];
  /** Outputs, `address:value` (`OP_RETURN:0` for data, `script:<hex>:value` for address-less scripts), in order. */
  outputs: string[];
  feeSat: bigint;
  /** Virtual size of the signed transaction (BIP-141), vB. */
  vsize: number;
  /** Order id of the first OP_RETURN memo, when it carries one. */
  orderId: string | null;
}

/** ALL for P2WPKH; DEFAULT or ALL for P2TR (both commit to every input and output). */
function allowedSighashes(input: BvmPsbtInput): number[] {
  return input.kind === 'p2tr' ? [Transaction.SIGHASH_DEFAULT, Transaction.SIGHASH_ALL] : [Transaction.SIGHASH_ALL];
}

/** Why an input is not ours to sign as it stands, or null. */
function inputRefusal(input: BvmPsbtInput, key: BvmWalletKey, ourScript: Uint8Array): string | null {
  const at = `input ${input.index} (${input.txid}:${input.vout})`;
  if (!input.witnessUtxo) return `${at} has no witnessUtxo`;
  if (!sameScript(input.witnessUtxo.script, ourScript)) return `${at} does not spend from wallet ${key.address}`;
  if (input.signedFields.length > 0) return `${at} already carries ${input.signedFields.join(', ')}`;
  if (input.scriptFields.length > 0) return `${at} carries ${input.scriptFields.join(', ')}; the wallet spends by key only`;
  if (input.sighashType !== null && !allowedSighashes(input).includes(input.sighashType)) {
    return `${at} asks for sighash 0x${input.sighashType.toString(16)}; only ALL (or DEFAULT on taproot) is signed`;
  }
  if (input.tapInternalKey && key.internalPubkey && !sameScript(input.tapInternalKey, key.internalPubkey)) {
    return `${at} names another taproot internal key than wallet ${key.address}'s`;
  }
  return null;
}

/** Checks a signature the way the chain will: ECDSA for 33-byte keys, BIP-340 Schnorr for x-only keys. */
function signatureIsValid(pubkey: Uint8Array, msghash: Uint8Array, signature: Uint8Array): boolean {
  return pubkey.length === 32 ? ecc.verifySchnorr(msghash, pubkey, signature) : ecc.verify(msghash, pubkey, signature);
}

/** The fee is at most `maxFeeRateSatPerVb` × the estimated signed vsize (integer comparison in milli-sat). */
function feeRefusal(parsed: ParsedBvmPsbt, maxFeeRateSatPerVb: number): string | null {
  if (parsed.feeSat === null) return 'the fee is unknown (an input has no witnessUtxo)';
  if (parsed.feeSat < 0n) return `outputs (${parsed.outputTotalSat} sat) exceed inputs (${parsed.inputTotalSat} sat)`;
  if ('problem' in parsed.size) return parsed.size.problem;
  const capMilli = BigInt(Math.round(maxFeeRateSatPerVb * 1000));
  if (parsed.feeSat * 1000n > capMilli * BigInt(parsed.size.vsize)) {
    return `fee ${parsed.feeSat} sat over ~${parsed.size.vsize} vB is above the cap of ${maxFeeRateSatPerVb} sat/vB`;
  }
  return null;
}

/**
 * The miner fee is at most `maxMinerFeeSats` and at most `maxMinerFeeBps` of the value paid away (outputs whose
 * script is not ours, OP_RETURN excluded), compared in integers. A transaction paying nothing away (every
 * output ours, e.g. a replacement spending back to our wallet) is held to the absolute cap only.
 */
function minerFeeRefusal(parsed: ParsedBvmPsbt, ourScript: Uint8Array, limits: BvmSignLimits): string | null {
  const fee = parsed.feeSat;
  if (fee === null || fee < 0n) return null; // refused by feeRefusal
  const paidAway = parsed.outputs.filter((o) => !o.opReturn && !sameScript(o.script, ourScript)).reduce((sum, o) => sum + o.value, 0n);
  if (fee > limits.maxMinerFeeSats) return `miner fee ${fee} sat is above the cap of ${limits.maxMinerFeeSats} sat (maxMinerFeeSats)`;
  if (paidAway > 0n && fee * 10_000n > paidAway * BigInt(limits.maxMinerFeeBps)) {
    return `miner fee ${fee} sat is above ${limits.maxMinerFeeBps} bps (maxMinerFeeBps) of the ${paidAway} sat paid away`;
  }
  return null;
}

/** Caps and chain facts a PSBT is held to before it is signed (from `chains.<name>`; amounts in satoshis). */
export interface BvmSignLimits {
  /** Highest fee rate, sat/vB (`maxFeeRateSatPerVb`). */
  maxFeeRateSatPerVb: number;
  /** Highest miner fee, satoshis (`maxMinerFeeSats`). */
  maxMinerFeeSats: bigint;
  /** Highest miner fee in bps of the value paid away (`maxMinerFeeBps`). */
  maxMinerFeeBps: number;
  /** Whether every input must signal BIP-125 replaceability (`requireReplaceable`). */
  requireReplaceable: boolean;
  /** The tip height; needed only for a non-zero height nLockTime (see {@link needsTipHeight}). */
  tipHeight?: bigint;
}

/**
 * Whether signing `psbtHex` needs the tip height: its nLockTime is a non-zero block height. False for text
 * that does not parse ({@link signBvmPsbt} refuses it with the reason).
 */
export function needsTipHeight(psbtHex: string): boolean {
  try {
    const locktime = Psbt.fromHex(psbtHex).locktime;
    return locktime !== 0 && locktime < LOCKTIME_THRESHOLD;
  } catch {
    return false; // not a PSBT: signBvmPsbt refuses it and says why
  }
}

/**
 * Signs every input of a deposit PSBT with `key`, validates the signatures, finalizes and extracts.
 *
 * @param key the wallet: a key on the host (`bvmKeyFromWif`, P2WPKH or P2TR) or in a key service (`bvmRemoteKey`, P2WPKH)
 * @param psbtHex the quote item's `data.psbt` (BIP-174, hex)
 * @param limits the chain's caps ({@link BvmSignLimits})
 * @returns the signed transaction and what its write-ahead record needs
 * @throws BvmAdapterError when the PSBT does not parse, is not ours to sign as it stands, pays too high a fee
 *   rate or miner fee, is not replaceable while required, is not final in the next block, or a signature does
 *   not verify (nothing is signed for sending then)
 * @throws SignerError when the key service cannot sign, holds another key, or answers with a signature that does
 *   not verify (nothing is returned)
 */
export async function signBvmPsbt(key: BvmWalletKey, psbtHex: string, limits: BvmSignLimits): Promise<SignedBvmTx> {
  const network = BVM_NETWORK_PARAMS[key.network];
  const parsed = parseBvmPsbt(psbtHex, network);
  if (!parsed.psbt) throw new BvmAdapterError(`cannot sign: ${parsed.problem}`);
  const facts = parsed.psbt;
  if (facts.inputs.length === 0) throw new BvmAdapterError('cannot sign: the PSBT has no inputs');
  const ourScript = btcAddress.toOutputScript(key.address, network);
  const refusals = facts.inputs.map((i) => inputRefusal(i, key, ourScript)).filter((r): r is string => r !== null);
  const fee = feeRefusal(facts, limits.maxFeeRateSatPerVb);
  if (fee !== null) refusals.push(fee);
  const minerFee = minerFeeRefusal(facts, ourScript, limits);
  if (minerFee !== null) refusals.push(minerFee);
  for (const rule of [checkBvmRbfSignal(facts, limits.requireReplaceable), checkBvmLocktime(facts, limits.tipHeight)]) {
    if (!rule.ok) refusals.push(rule.detail);
  }
  if (refusals.length > 0) throw new BvmAdapterError(`refusing to sign the PSBT with wallet ${key.address}: ${refusals.join('; ')}`);

  const psbt = Psbt.fromHex(psbtHex, { network });
  try {
    const signer = 'connect' in key.signer ? await key.signer.connect() : key.signer;
    for (const input of facts.inputs) {
      if (input.kind === 'p2tr' && !input.tapInternalKey) {
        if (!key.internalPubkey)
          throw new BvmAdapterError(`input ${input.index} is P2TR but wallet ${key.address} has no taproot internal key`);
        psbt.updateInput(input.index, { tapInternalKey: key.internalPubkey });
      }
      await psbt.signInputAsync(input.index, signer, allowedSighashes(input));
    }
  } catch (error) {
    if (error instanceof BvmAdapterError || error instanceof SignerError) throw error;
    throw new BvmAdapterError(
      `signing the PSBT with wallet ${key.address} failed: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  let valid: boolean;
  try {
    valid = psbt.validateSignaturesOfAllInputs(signatureIsValid);
  } catch (error) {
    throw new BvmAdapterError(`checking the signatures failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  if (!valid) throw new BvmAdapterError(`a signature made with wallet ${key.address} does not verify; nothing is sent`);
  psbt.finalizeAllInputs();
  // The fee rate was capped above on the worst-case size (checked against the configured cap, not bitcoinjs's
  // fixed one); the signed transaction may be a few bytes smaller, so its real rate is checked once more.
  const tx = psbt.extractTransaction(true);
  const capMilli = BigInt(Math.round(limits.maxFeeRateSatPerVb * 1000));
  if (facts.feeSat !== null && facts.feeSat * 1000n > capMilli * BigInt(tx.virtualSize())) {
    throw new BvmAdapterError(
      `refusing the signed transaction of wallet ${key.address}: fee ${facts.feeSat} sat over its ${tx.virtualSize()} vB is above the cap of ${limits.maxFeeRateSatPerVb} sat/vB; nothing is sent`,
    );
  }
  const firstOpReturn = facts.outputs.find((o) => o.opReturn);
  return {
    txid: tx.getId(),
    rawTx: tx.toHex(),
    inputs: facts.inputs.map((i) => `${i.txid}:${i.vout}`),
    outputs: facts.outputs.map(
      (o) => `${o.opReturn ? 'OP_RETURN' : (o.address ?? `script:${Buffer.from(o.script).toString('hex')}`)}:${o.value}`,
    ),
    feeSat: facts.feeSat ?? 0n, // checked non-null by feeRefusal
    vsize: tx.virtualSize(),
    orderId: firstOpReturn ? (decodeOrderIdMemoScript(firstOpReturn.script)?.orderId ?? null) : null,
  };
}
