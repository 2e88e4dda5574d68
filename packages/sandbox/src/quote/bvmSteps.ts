/**
 * The step of a Bitcoin-origin quote (docs/relay-contract.md "Step item": `data.psbt`; docs/design.md "Bitcoin step data"):
 * one item whose PSBT (BIP-174, hex, built with bitcoinjs-lib) spends the user's confirmed unspent outputs (each with
 * its `witnessUtxo`; a P2TR input carries no `tapInternalKey`, which the API cannot know) and pays, in order, the
 * depository, the order-id OP_RETURN ("0x" + 64 hex digits as UTF-8) and the change back to the user. Every
 * input signals BIP-125 replaceability (nSequence {@link RBF_SEQUENCE}) and nLockTime is 0, so the deposit is
 * final at once and can be replaced. The fee is the fee rate × the signed virtual size, estimated with
 * worst-case witnesses. Pure: the coins and the fee rate are passed in.
 */
import { Psbt, Transaction, networks } from 'bitcoinjs-lib';
import type { Hex } from 'viem';
import { orderIdMemoScript } from '@ballast/protocol/protocol/bitcoinDeposit.ts';
import { SandboxApiError } from './errors.ts';
import { depositStep } from '@ballast/protocol/protocol/quoteParts.ts';
import type { BvmStepDataJson, StepJson } from './types.ts';
import { bitcoinSpendKind, regtestOutputScript, type BitcoinSpendKind } from './vmAddress.ts';

/** An unspent output of the user (Esplora `/address/:a/utxo`), value in satoshis. */
export interface BitcoinCoin {
  txid: string;
  vout: number;
  value: bigint;
}

/** nSequence of every deposit input: the highest value that signals BIP-125 replaceability. */
export const RBF_SEQUENCE = 0xfffffffd;

/** Smallest change output kept, satoshis (the node's dust threshold for P2WPKH and P2TR); less is left to the fee. */
export const CHANGE_DUST_SATS = 330n;

/** Inputs of {@link buildDepositPsbt}. Amounts in satoshis; fee rate in sat/vB. */
export interface DepositPsbtParams {
  /** The user's confirmed unspent outputs (all pay `user`). */
  coins: readonly BitcoinCoin[];
  /** The user's regtest address (P2WPKH or P2TR). */
  user: string;
  /** The depository address from GET /chains. */
  depository: string;
  amount: bigint;
  orderId: Hex;
  feeRateSatPerVb: bigint;
}

/** A built deposit PSBT. */
export interface DepositPsbt {
  psbtHex: string;
  /** The coins it spends, in input order. */
  inputs: BitcoinCoin[];
  /** Fee, satoshis (inputs − outputs). */
  feeSat: bigint;
  /** Change returned to the user, satoshis (0 when none). */
  changeSat: bigint;
  /** Estimated signed virtual size, vbytes. */
  vsize: number;
}

function scriptOf(address: string, field: string): Uint8Array {
  const script = regtestOutputScript(address);
  if (script === null) throw new SandboxApiError(400, 'INVALID_ADDRESS', `${field} ${address} is not a regtest Bitcoin address`, field);
  return script;
}

/**
 * Signed virtual size of a transaction spending `inputs` outputs of one kind, with worst-case witnesses:
 * P2WPKH [72-byte signature, 33-byte key], P2TR [64-byte signature].
 *
 * @returns vbytes
 */
export function estimateVsize(kind: BitcoinSpendKind, inputs: number, outputs: { script: Uint8Array; value: bigint }[]): number {
  const tx = new Transaction();
  tx.version = 2;
  for (let i = 0; i < inputs; i++) tx.addInput(new Uint8Array(32), i);
  for (const o of outputs) tx.addOutput(o.script, o.value);
  for (let i = 0; i < inputs; i++) {
    tx.setWitness(i, kind === 'p2wpkh' ? [new Uint8Array(72), new Uint8Array(33)] : [new Uint8Array(64)]);
  }
  return tx.virtualSize();
}

/**
 * Selects coins (largest first) and builds the deposit PSBT.
 *
 * @returns the PSBT hex and what it spends and pays
 * @throws SandboxApiError 400 `INSUFFICIENT_FUNDS` (errorData: the balance) when the coins do not exceed the amount
 *   plus the fee; `INVALID_ADDRESS` when the user cannot spend by key with a witness (neither P2WPKH nor P2TR)
 */
export function buildDepositPsbt(p: DepositPsbtParams): DepositPsbt {
  const userScript = scriptOf(p.user, 'user');
  const kind = bitcoinSpendKind(userScript);
  if (kind === null) throw new SandboxApiError(400, 'INVALID_ADDRESS', `user ${p.user} is neither P2WPKH nor P2TR`, 'user');
  const depositOut = { script: scriptOf(p.depository, 'depository'), value: p.amount };
  const memoOut = { script: orderIdMemoScript(p.orderId), value: 0n };
  const changeOut = (value: bigint) => ({ script: userScript, value });
  const sorted = [...p.coins].sort((a, b) => (a.value === b.value ? 0 : a.value > b.value ? -1 : 1));
  const balance = sorted.reduce((sum, c) => sum + c.value, 0n);
  const feeFor = (inputs: number, withChange: boolean) =>
    BigInt(estimateVsize(kind, inputs, withChange ? [depositOut, memoOut, changeOut(1n)] : [depositOut, memoOut])) * p.feeRateSatPerVb;

  let chosen: BitcoinCoin[] = [];
  let total = 0n;
  for (const coin of sorted) {
    chosen = [...chosen, coin];
    total += coin.value;
    if (total >= p.amount + feeFor(chosen.length, true)) break;
  }
  const needed = p.amount + feeFor(Math.max(chosen.length, 1), false);
  if (total < needed || balance <= p.amount) {
    throw new SandboxApiError(
      400,
      'INSUFFICIENT_FUNDS',
      `Bitcoin balance of ${p.user} is ${balance} sat (confirmed, unspent), which does not exceed the amount ${p.amount} sat plus a fee of about ${needed - p.amount} sat; fund the address or lower the amount`,
      `balance=${balance}`,
    );
  }
  let change = total - p.amount - feeFor(chosen.length, true);
  const outputs = [depositOut, memoOut];
  if (change >= CHANGE_DUST_SATS) outputs.push(changeOut(change));
  else change = 0n;

  const psbt = new Psbt({ network: networks.regtest });
  psbt.setLocktime(0);
  for (const coin of chosen)
    psbt.addInput({ hash: coin.txid, index: coin.vout, sequence: RBF_SEQUENCE, witnessUtxo: { script: userScript, value: coin.value } });
  for (const o of outputs) psbt.addOutput({ script: o.script, value: o.value });
  const outTotal = outputs.reduce((sum, o) => sum + o.value, 0n);
  return {
    psbtHex: psbt.toHex(),
    inputs: chosen,
    feeSat: total - outTotal,
    changeSat: change,
    vsize: estimateVsize(kind, chosen.length, outputs),
  };
}

/**
 * The single `deposit` step of a Bitcoin-origin quote, with a status `check`.
 *
 * @param requestId the quote's request id
 * @param psbtHex the deposit PSBT ({@link buildDepositPsbt})
 * @param outputSymbol symbol of the output currency (for the description)
 */
export function buildBvmSteps(requestId: Hex, psbtHex: string, outputSymbol: string): StepJson<BvmStepDataJson>[] {
  return [depositStep(requestId, outputSymbol, { psbt: psbtHex })];
}
