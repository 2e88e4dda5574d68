/**
 * Esplora's JSON shapes (github.com/Blockstream/esplora API.md), built from the sandbox's Bitcoin ledger:
 * transactions, transaction status, outspends, blocks, address statistics and UTXOs. Field names and
 * nesting follow Esplora exactly; satoshi amounts are JSON numbers there, so bigints are converted here, at
 * the edge (every amount is at most 21e14, well inside the exact range of a double). Pure: no I/O.
 */
import { scriptToAddress, type BitcoinNetworkName } from './address.ts';
import type { AddressActivity, AddressUtxo, TxoStats } from './addressIndex.ts';
import type { LedgerBlock, LedgerTx, UtxoLedger } from './ledger.ts';
import { classifyScript, scriptAsm, type EsploraScriptType } from './script.ts';

/** `status` of a transaction or output. */
export type EsploraStatus = { confirmed: false } | { confirmed: true; block_height: number; block_hash: string; block_time: number };

/** An output (`vout[]` entry or `vin[].prevout`). */
export interface EsploraOutput {
  scriptpubkey: string;
  scriptpubkey_asm: string;
  scriptpubkey_type: EsploraScriptType;
  /** Absent for scripts without an address (OP_RETURN, …). */
  scriptpubkey_address?: string;
  /** Satoshis. */
  value: number;
}

/** An input (`vin[]` entry). */
export interface EsploraInput {
  txid: string;
  vout: number;
  prevout: EsploraOutput | null;
  scriptsig: string;
  scriptsig_asm: string;
  /** Witness stack items as hex; absent when the input has no witness. */
  witness?: string[];
  is_coinbase: boolean;
  sequence: number;
}

/** A transaction (`GET /tx/:txid`). */
export interface EsploraTx {
  txid: string;
  version: number;
  locktime: number;
  vin: EsploraInput[];
  vout: EsploraOutput[];
  size: number;
  weight: number;
  /** Satoshis. */
  fee: number;
  status: EsploraStatus;
}

/** `GET /tx/:txid/outspend/:vout` entry. */
export type EsploraOutspend = { spent: false } | { spent: true; txid: string; vin: number; status: EsploraStatus };

/** `GET /block/:hash`. */
export interface EsploraBlock {
  id: string;
  height: number;
  version: number;
  timestamp: number;
  tx_count: number;
  size: number;
  weight: number;
  merkle_root: string;
  previousblockhash: string | null;
  mediantime: number;
  nonce: number;
  bits: number;
  difficulty: number;
}

/** Esplora's per-address stats with sums as numbers. */
export interface EsploraTxoStats {
  funded_txo_count: number;
  funded_txo_sum: number;
  spent_txo_count: number;
  spent_txo_sum: number;
  tx_count: number;
}

/** `GET /address/:address`. */
export interface EsploraAddress {
  address: string;
  chain_stats: EsploraTxoStats;
  mempool_stats: EsploraTxoStats;
}

/** `GET /address/:address/utxo` entry. */
export interface EsploraUtxo {
  txid: string;
  vout: number;
  status: EsploraStatus;
  /** Satoshis. */
  value: number;
}

/** Difficulty of a regtest block (`bits` 0x207fffff). */
const REGTEST_DIFFICULTY = 4.656542373906925e-10;

/** Satoshis as a JSON number (exact: never above 21e14). */
function satsNumber(value: bigint): number {
  return Number(value);
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** Status of a block-held item (undefined block = unconfirmed). */
export function statusJson(block: LedgerBlock | undefined): EsploraStatus {
  return block
    ? { confirmed: true, block_height: block.height, block_hash: block.hash, block_time: block.timestampSec }
    : { confirmed: false };
}

/** An output in Esplora's shape, with the address written for `network`. */
export function outputJson(script: Uint8Array, value: bigint, network: BitcoinNetworkName): EsploraOutput {
  const address = scriptToAddress(script, network);
  return {
    scriptpubkey: hex(script),
    scriptpubkey_asm: scriptAsm(script),
    scriptpubkey_type: classifyScript(script),
    ...(address !== null ? { scriptpubkey_address: address } : {}),
    value: satsNumber(value),
  };
}

/** A transaction in Esplora's shape. */
export function txJson(ledger: UtxoLedger, entry: LedgerTx, network: BitcoinNetworkName): EsploraTx {
  const { tx } = entry;
  return {
    txid: entry.txid,
    version: tx.version,
    locktime: tx.locktime,
    vin: tx.ins.map((input, i): EsploraInput => {
      const prev = entry.prevouts[i] ?? null;
      return {
        txid: Buffer.from(input.hash).reverse().toString('hex'),
        vout: input.index,
        prevout: prev === null ? null : outputJson(prev.script, prev.value, network),
        scriptsig: hex(input.script),
        scriptsig_asm: scriptAsm(input.script),
        ...(input.witness.length > 0 ? { witness: input.witness.map(hex) } : {}),
        is_coinbase: entry.isCoinbase,
        sequence: input.sequence,
      };
    }),
    vout: tx.outs.map((out) => outputJson(out.script, out.value, network)),
    size: tx.byteLength(),
    weight: tx.weight(),
    fee: satsNumber(entry.fee),
    status: statusJson(ledger.blockOf(entry.txid)),
  };
}

/** The spender of output `vout` of `txid` in Esplora's outspend shape. */
export function outspendJson(ledger: UtxoLedger, txid: string, vout: number): EsploraOutspend {
  const spender = ledger.spenderOf(txid, vout);
  if (spender === undefined) return { spent: false };
  return { spent: true, txid: spender.txid, vin: spender.vin, status: statusJson(ledger.blockOf(spender.txid)) };
}

/** A block in Esplora's shape; `mediantime` is the median timestamp of it and its 10 predecessors. */
export function blockJson(ledger: UtxoLedger, block: LedgerBlock): EsploraBlock {
  const times: number[] = [];
  for (let h = block.height; h >= 0 && h > block.height - 11; h--) times.push(ledger.blockAt(h)!.timestampSec); // h within the chain
  times.sort((a, b) => a - b);
  return {
    id: block.hash,
    height: block.height,
    version: block.version,
    timestamp: block.timestampSec,
    tx_count: block.txids.length,
    size: block.size,
    weight: block.weight,
    merkle_root: block.merkleRoot,
    previousblockhash: block.height === 0 ? null : block.prevHash,
    mediantime: times[Math.floor(times.length / 2)]!, // times holds at least the block itself
    nonce: block.nonce,
    bits: block.bits,
    difficulty: REGTEST_DIFFICULTY,
  };
}

function statsJson(stats: TxoStats): EsploraTxoStats {
  return {
    funded_txo_count: stats.funded_txo_count,
    funded_txo_sum: satsNumber(stats.funded_txo_sum),
    spent_txo_count: stats.spent_txo_count,
    spent_txo_sum: satsNumber(stats.spent_txo_sum),
    tx_count: stats.tx_count,
  };
}

/** `GET /address/:address` body; `address` is echoed as the caller wrote it. */
export function addressJson(address: string, activity: AddressActivity): EsploraAddress {
  return { address, chain_stats: statsJson(activity.chain), mempool_stats: statsJson(activity.mempool) };
}

/** `GET /address/:address/utxo` entry. */
export function utxoJson(utxo: AddressUtxo): EsploraUtxo {
  return { txid: utxo.txid, vout: utxo.vout, status: statusJson(utxo.block), value: satsNumber(utxo.value) };
}
