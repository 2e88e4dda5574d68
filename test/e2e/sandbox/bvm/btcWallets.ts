/**
 * Test wallets for the sandbox Bitcoin node: regtest P2WPKH and P2TR keys (ecpair + bitcoinjs payments),
 * PSBT building and signing the way a wallet does it (witnessUtxo / tapInternalKey, signInput, finalize,
 * extract), and small HTTP helpers for the Esplora API.
 */
import { crypto as btcCrypto, initEccLib, networks, payments, Psbt, script as btcScript, toXOnly, type Transaction } from 'bitcoinjs-lib';
import { ECPairFactory, type ECPairInterface } from 'ecpair';
import * as ecc from 'tiny-secp256k1';

initEccLib(ecc);
export const ECPair = ECPairFactory(ecc);
export const regtest = networks.regtest;

/** A key with its address, output script and the signer a PSBT needs (tweaked for P2TR). */
export interface TestWallet {
  kind: 'p2wpkh' | 'p2tr';
  key: ECPairInterface;
  address: string;
  output: Uint8Array;
  /** What signs this wallet's inputs: the key itself (P2WPKH) or the taproot-tweaked key (P2TR). */
  signer: ECPairInterface;
  /** x-only internal key (P2TR only). */
  internalKey?: Uint8Array;
}

/** A fresh regtest P2WPKH wallet (`bcrt1q…`). */
export function p2wpkhWallet(): TestWallet {
  const key = ECPair.makeRandom({ network: regtest });
  const pay = payments.p2wpkh({ pubkey: key.publicKey, network: regtest });
  return { kind: 'p2wpkh', key, address: pay.address!, output: pay.output!, signer: key }; // p2wpkh from a pubkey always has both
}

/** A fresh regtest P2TR key-path wallet (`bcrt1p…`), BIP-86 style (no script tree). */
export function p2trWallet(): TestWallet {
  const key = ECPair.makeRandom({ network: regtest });
  const internalKey = toXOnly(key.publicKey);
  const pay = payments.p2tr({ internalPubkey: internalKey, network: regtest });
  const signer = key.tweak(btcCrypto.taggedHash('TapTweak', internalKey));
  return { kind: 'p2tr', key, address: pay.address!, output: pay.output!, signer, internalKey }; // p2tr from a key always has both
}

/** An outpoint owned by a wallet, with its value in satoshis. */
export interface Coin {
  txid: string;
  vout: number;
  value: bigint;
  owner: TestWallet;
}

/** An output to create: to an address, or an OP_RETURN with the given data. */
export type PlannedOutput = { address: string; value: bigint } | { opReturn: Uint8Array };

/**
 * Builds, signs (each input by its owner, with an optional explicit sighash type), finalizes and extracts.
 *
 * @returns the signed transaction
 */
export function buildSigned(coins: Coin[], outputs: PlannedOutput[], opts: { sighashType?: number } = {}): Transaction {
  const psbt = new Psbt({ network: regtest });
  for (const coin of coins) {
    psbt.addInput({
      hash: coin.txid,
      index: coin.vout,
      witnessUtxo: { script: coin.owner.output, value: coin.value },
      ...(coin.owner.internalKey ? { tapInternalKey: coin.owner.internalKey } : {}),
      ...(opts.sighashType !== undefined ? { sighashType: opts.sighashType } : {}),
    });
  }
  for (const out of outputs) {
    if ('opReturn' in out) psbt.addOutput({ script: btcScript.compile([btcScript.OPS.OP_RETURN, out.opReturn]), value: 0n });
    else psbt.addOutput({ address: out.address, value: out.value });
  }
  coins.forEach((coin, i) => psbt.signInput(i, coin.owner.signer, opts.sighashType !== undefined ? [opts.sighashType] : undefined));
  psbt.finalizeAllInputs();
  return psbt.extractTransaction();
}

/** POSTs a raw transaction to `<url>/tx`. */
export async function postTx(url: string, hex: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${url}/tx`, { method: 'POST', body: hex });
  return { status: res.status, text: await res.text() };
}

/** GETs JSON, failing the test on a non-200 answer. */
export async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T; // test helper: the caller names the shape it expects
}

/** GETs text with its status. */
export async function getText(url: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url);
  return { status: res.status, text: await res.text() };
}

/** Esplora's rejection text for a bitcoind reason. */
export function rpcError(code: number, message: string): string {
  return `sendrawtransaction RPC error: ${JSON.stringify({ code, message })}`;
}
