/**
 * Reads a Bitcoin deposit item's `data.psbt` (BIP-174, hex) into plain facts the bvm deposit rules check:
 * each input's outpoint, previous output (`witnessUtxo`), taproot internal key, requested sighash type and any
 * signing data already present; each output's script, address, value and OP_RETURN data; the fee; and the
 * transaction's size once signed, so a fee rate can be computed. Parsing uses bitcoinjs-lib `Psbt.fromHex`;
 * nothing here throws: a PSBT that does not parse yields a problem text. Pure.
 *
 * Signed-size estimate (BIP-141 weight = 4 × base size + witness size; vsize = ⌈weight / 4⌉). The base
 * size is exact (the unsigned transaction is fixed); each input's witness is sized at its worst case:
 * - P2WPKH: item count (1) + signature push (1 + 72: low-S DER signature up to 71 bytes + sighash byte) + public
 *   key push (1 + 33) = {@link P2WPKH_WITNESS_WU} WU;
 * - P2TR key path: item count (1) + Schnorr signature push (1 + 64) = {@link P2TR_KEY_PATH_WITNESS_WU} WU,
 *   one more byte when an explicit sighash type (not DEFAULT) is appended;
 * plus 2 WU for the segwit marker and flag. Other input types are not estimated.
 */
import { Psbt, Transaction, type Network } from 'bitcoinjs-lib';
import { bitcoinAddressOf, isOpReturnScript, opReturnPayload, sameScript } from '@ballast/protocol/protocol/bitcoinDeposit.ts';

/** Worst-case witness of a P2WPKH input, weight units: 1 + (1 + 72) + (1 + 33). */
export const P2WPKH_WITNESS_WU = 108;
/** Witness of a P2TR key-path input with the DEFAULT sighash, weight units: 1 + (1 + 64). */
export const P2TR_KEY_PATH_WITNESS_WU = 66;

/** Script template of a spent output, as far as the bvm rules care. */
export type BvmScriptKind = 'p2wpkh' | 'p2tr' | 'other';

/** One PSBT input. Values in satoshis. */
export interface BvmPsbtInput {
  index: number;
  /** Spent transaction id, hex in the byte order explorers show (Esplora `txid`). */
  txid: string;
  vout: number;
  sequence: number;
  /** The spent output as the PSBT states it (BIP-174 `PSBT_IN_WITNESS_UTXO`), or null when absent. */
  witnessUtxo: { script: Uint8Array; value: bigint } | null;
  /** Template of `witnessUtxo.script`; null when there is no witnessUtxo. */
  kind: BvmScriptKind | null;
  /** True when the PSBT carries the whole previous transaction (`PSBT_IN_NON_WITNESS_UTXO`). */
  hasNonWitnessUtxo: boolean;
  /** Why the carried previous transaction disagrees with the outpoint or witnessUtxo; null when it agrees or is absent. */
  nonWitnessUtxoProblem: string | null;
  /** Taproot internal key (32 bytes), or null. */
  tapInternalKey: Uint8Array | null;
  /** Requested sighash type (`PSBT_IN_SIGHASH_TYPE`), or null when the PSBT asks for none. */
  sighashType: number | null;
  /** Signing results already present: any of partialSig, tapKeySig, tapScriptSig, finalScriptSig, finalScriptWitness. */
  signedFields: string[];
  /** Script-path or script-hash data present: any of redeemScript, witnessScript, tapLeafScript, tapMerkleRoot. */
  scriptFields: string[];
}

/** One output. Value in satoshis. */
export interface BvmPsbtOutput {
  index: number;
  script: Uint8Array;
  /** The address the script pays on the network parsed with, or undefined when it has none (OP_RETURN, ...). */
  address: string | undefined;
  value: bigint;
  /** True for an OP_RETURN (data) output. */
  opReturn: boolean;
  /** The single push of an OP_RETURN output; null when not OP_RETURN or not exactly one push. */
  opReturnData: Uint8Array | null;
}

/** The transaction's size once every input is signed, as estimated (see the file docs). */
export interface SignedSizeEstimate {
  weight: number;
  vsize: number;
}

/** A parsed PSBT. Amounts in satoshis. */
export interface ParsedBvmPsbt {
  version: number;
  locktime: number;
  inputs: BvmPsbtInput[];
  outputs: BvmPsbtOutput[];
  /** Sum of the inputs' witnessUtxo values; null when an input has no witnessUtxo. */
  inputTotalSat: bigint | null;
  outputTotalSat: bigint;
  /** inputTotalSat − outputTotalSat (negative when outputs exceed inputs); null when inputTotalSat is. */
  feeSat: bigint | null;
  /** Signed size, or why it cannot be estimated (an input neither P2WPKH nor P2TR). */
  size: SignedSizeEstimate | { problem: string };
}

/** Result of {@link parseBvmPsbt}: the facts, or why the text is not a PSBT. */
export type ParseBvmPsbtResult = { psbt: ParsedBvmPsbt; problem?: undefined } | { psbt?: undefined; problem: string };

const HEX_RE = /^(?:[0-9a-fA-F]{2})+$/;
const SIGNED_FIELDS = ['partialSig', 'tapKeySig', 'tapScriptSig', 'finalScriptSig', 'finalScriptWitness'] as const;
const SCRIPT_FIELDS = ['redeemScript', 'witnessScript', 'tapLeafScript', 'tapMerkleRoot'] as const;

/** Template of an output script: P2WPKH (OP_0 <20>), P2TR (OP_1 <32>) or other. */
export function scriptKindOf(script: Uint8Array): BvmScriptKind {
  if (script.length === 22 && script[0] === 0x00 && script[1] === 0x14) return 'p2wpkh';
  if (script.length === 34 && script[0] === 0x51 && script[1] === 0x20) return 'p2tr';
  return 'other';
}

function txidOf(hash: Uint8Array): string {
  return Buffer.from(hash).reverse().toString('hex'); // PSBT outpoints hold the hash little-endian
}

function present(value: unknown): boolean {
  return value !== undefined && !(Array.isArray(value) && value.length === 0);
}

function checkPrevTx(raw: Uint8Array, txid: string, vout: number, utxo: BvmPsbtInput['witnessUtxo']): string | null {
  let prev: Transaction;
  try {
    prev = Transaction.fromBuffer(raw);
  } catch (error) {
    return `nonWitnessUtxo does not parse as a transaction: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (prev.getId() !== txid) return `nonWitnessUtxo is transaction ${prev.getId()}, but the input spends ${txid}`;
  const out = prev.outs[vout];
  if (!out) return `nonWitnessUtxo has no output ${vout}`;
  if (utxo && (out.value !== utxo.value || !sameScript(out.script, utxo.script))) {
    return `nonWitnessUtxo output ${vout} (${out.value} sat) differs from witnessUtxo (${utxo.value} sat)`;
  }
  return null;
}

function readInputs(psbt: Psbt): BvmPsbtInput[] {
  return psbt.txInputs.map((txIn, index) => {
    const data = psbt.data.inputs[index] ?? {};
    const txid = txidOf(txIn.hash);
    const witnessUtxo = data.witnessUtxo ? { script: data.witnessUtxo.script, value: data.witnessUtxo.value } : null;
    return {
      index,
      txid,
      vout: txIn.index,
      sequence: txIn.sequence ?? 0xffffffff,
      witnessUtxo,
      kind: witnessUtxo ? scriptKindOf(witnessUtxo.script) : null,
      hasNonWitnessUtxo: data.nonWitnessUtxo !== undefined,
      nonWitnessUtxoProblem: data.nonWitnessUtxo ? checkPrevTx(data.nonWitnessUtxo, txid, txIn.index, witnessUtxo) : null,
      tapInternalKey: data.tapInternalKey ?? null,
      sighashType: data.sighashType ?? null,
      signedFields: SIGNED_FIELDS.filter((f) => present(data[f])),
      scriptFields: SCRIPT_FIELDS.filter((f) => present(data[f])),
    };
  });
}

/**
 * Estimates weight and vsize once signed: the unsigned transaction rebuilt with bitcoinjs `Transaction`,
 * each input given a placeholder witness of its worst-case size (file docs), measured by `Transaction.weight()`.
 *
 * @param psbt the parsed PSBT
 * @param inputs its inputs as {@link readInputs} read them
 */
function estimateSignedSize(psbt: Psbt, inputs: readonly BvmPsbtInput[]): SignedSizeEstimate | { problem: string } {
  const tx = new Transaction();
  tx.version = psbt.version;
  tx.locktime = psbt.locktime;
  for (const txIn of psbt.txInputs) tx.addInput(txIn.hash, txIn.index, txIn.sequence);
  for (const txOut of psbt.txOutputs) tx.addOutput(txOut.script, txOut.value);
  for (const input of inputs) {
    if (input.kind === 'p2wpkh') {
      tx.setWitness(input.index, [new Uint8Array(72), new Uint8Array(33)]);
    } else if (input.kind === 'p2tr') {
      const explicitSighash = input.sighashType !== null && input.sighashType !== Transaction.SIGHASH_DEFAULT;
      tx.setWitness(input.index, [new Uint8Array(explicitSighash ? 65 : 64)]);
    } else {
      const what = input.kind === null ? 'has no witnessUtxo' : 'spends neither P2WPKH nor P2TR';
      return { problem: `input ${input.index} ${what}; its signed size is unknown` };
    }
  }
  return { weight: tx.weight(), vsize: tx.virtualSize() };
}

/**
 * Parses a PSBT given as hex.
 *
 * @param hex `data.psbt` of the deposit item (BIP-174 serialization, hex)
 * @param network network used to render output addresses (outputs are compared by script, not by address)
 * @returns the facts, or `{problem}` saying why the text is not a PSBT; never throws
 */
export function parseBvmPsbt(hex: string, network: Network): ParseBvmPsbtResult {
  if (!HEX_RE.test(hex)) return { problem: 'data.psbt does not parse as a PSBT: not an even-length hex string' };
  let psbt: Psbt;
  try {
    psbt = Psbt.fromHex(hex, { network });
  } catch (error) {
    return { problem: `data.psbt does not parse as a PSBT: ${error instanceof Error ? error.message : String(error)}` };
  }
  try {
    const inputs = readInputs(psbt);
    const outputs: BvmPsbtOutput[] = psbt.txOutputs.map((out, index) => ({
      index,
      script: out.script,
      address: bitcoinAddressOf(out.script, network),
      value: out.value,
      opReturn: isOpReturnScript(out.script),
      opReturnData: opReturnPayload(out.script),
    }));
    const outputTotalSat = outputs.reduce((sum, o) => sum + o.value, 0n);
    const inputTotalSat = inputs.every((i) => i.witnessUtxo) ? inputs.reduce((sum, i) => sum + (i.witnessUtxo?.value ?? 0n), 0n) : null;
    return {
      psbt: {
        version: psbt.version,
        locktime: psbt.locktime,
        inputs,
        outputs,
        inputTotalSat,
        outputTotalSat,
        feeSat: inputTotalSat === null ? null : inputTotalSat - outputTotalSat,
        size: estimateSignedSize(psbt, inputs),
      },
    };
  } catch (error) {
    // bitcoinjs validated the structure while parsing; this guards the reader against a shape it did not expect.
    return { problem: `data.psbt could not be read: ${error instanceof Error ? error.message : String(error)}` };
  }
}
