/**
 * The solver's Bitcoin keys: P2WPKH regtest wallets (ecpair + bitcoinjs-lib) for its own funds and for the
 * depository address, and real signed spends from them: a payment with change (fills) and a sweep of one
 * deposit output (refunds). Pure: coins and fee rates are passed in.
 */
import { initEccLib, networks, payments, Psbt } from 'bitcoinjs-lib';
import { ECPairFactory, type ECPairInterface } from 'ecpair';
import * as ecc from 'tiny-secp256k1';
import { CHANGE_DUST_SATS, estimateVsize, type BitcoinCoin } from '../quote/bvmSteps.ts';

initEccLib(ecc);
const ECPair = ECPairFactory(ecc);

/** A P2WPKH key wallet on regtest. */
export interface BtcKeyWallet {
  key: ECPairInterface;
  /** `bcrt1q…` */
  address: string;
  script: Uint8Array;
}

/** A regtest P2WPKH wallet of `key` (a fresh random key by default). */
export function p2wpkhKeyWallet(key: ECPairInterface = ECPair.makeRandom({ network: networks.regtest })): BtcKeyWallet {
  const pay = payments.p2wpkh({ pubkey: key.publicKey, network: networks.regtest });
  if (!pay.address || !pay.output) throw new Error('p2wpkh of a public key always has an address and an output');
  return { key, address: pay.address, script: pay.output };
}

/** A signed transaction: raw hex and txid. */
export interface SignedTx {
  hex: string;
  txid: string;
}

/** Signs (SIGHASH_ALL), finalizes and extracts a spend of `coins` (all paying `wallet`) to `outputs`. */
export function signSpend(
  wallet: BtcKeyWallet,
  coins: readonly BitcoinCoin[],
  outputs: readonly { script: Uint8Array; value: bigint }[],
): SignedTx {
  const psbt = new Psbt({ network: networks.regtest });
  for (const c of coins) psbt.addInput({ hash: c.txid, index: c.vout, witnessUtxo: { script: wallet.script, value: c.value } });
  for (const o of outputs) psbt.addOutput({ script: o.script, value: o.value });
  psbt.signAllInputs(wallet.key);
  psbt.finalizeAllInputs();
  const tx = psbt.extractTransaction();
  return { hex: tx.toHex(), txid: tx.getId() };
}

/**
 * A payment of `amount` sat to `to` from `wallet`'s coins (largest first), change back to the wallet.
 *
 * @param feeRateSatPerVb fee rate, sat/vB
 * @throws Error naming the shortfall when the coins do not cover amount + fee
 */
export function buildPayment(
  wallet: BtcKeyWallet,
  coins: readonly BitcoinCoin[],
  to: Uint8Array,
  amount: bigint,
  feeRateSatPerVb: bigint,
): SignedTx {
  const sorted = [...coins].sort((a, b) => (a.value === b.value ? 0 : a.value > b.value ? -1 : 1));
  const chosen: BitcoinCoin[] = [];
  let total = 0n;
  const fee = (n: number) =>
    BigInt(
      estimateVsize('p2wpkh', n, [
        { script: to, value: amount },
        { script: wallet.script, value: 1n },
      ]),
    ) * feeRateSatPerVb;
  for (const coin of sorted) {
    chosen.push(coin);
    total += coin.value;
    if (total >= amount + fee(chosen.length)) break;
  }
  const change = total - amount - fee(chosen.length);
  if (change < 0n) throw new Error(`the solver's Bitcoin wallet holds ${total} sat, short of ${amount} sat plus the fee`);
  const outputs = [{ script: to, value: amount }];
  if (change >= CHANGE_DUST_SATS) outputs.push({ script: wallet.script, value: change });
  return signSpend(wallet, chosen, outputs);
}

/**
 * Sweeps one output of `wallet` to `to`, less the fee; `value` is what the one output pays `to`, satoshis.
 *
 * @throws Error when what is left after the fee is below the dust threshold
 */
export function buildSweep(wallet: BtcKeyWallet, coin: BitcoinCoin, to: Uint8Array, feeRateSatPerVb: bigint): SignedTx & { value: bigint } {
  const fee = BigInt(estimateVsize('p2wpkh', 1, [{ script: to, value: coin.value }])) * feeRateSatPerVb;
  const value = coin.value - fee;
  if (value < CHANGE_DUST_SATS) throw new Error(`${coin.value} sat less a ${fee} sat fee is below the dust threshold`);
  return { ...signSpend(wallet, [coin], [{ script: to, value }]), value };
}
