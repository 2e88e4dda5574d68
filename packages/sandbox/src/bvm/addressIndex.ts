/**
 * Per-address views of the sandbox's Bitcoin ledger, keyed by output script (hex) so every network form of
 * an address sees the same coins: Esplora's funded/spent statistics, the unspent outputs, the transaction
 * history, both balance rules, and the payments an address received (with the first OP_RETURN's data and
 * the first input's address, which a Relay solver reads from a deposit). Pure: reads the ledger, no I/O.
 */
import { scriptToAddress, type BitcoinNetworkName } from './address.ts';
import type { LedgerBlock, LedgerTx, UtxoLedger } from './ledger.ts';
import { opReturnData } from './script.ts';

/** Esplora's per-address counters for one part of the history; sums in satoshis. */
export interface TxoStats {
  funded_txo_count: number;
  funded_txo_sum: bigint;
  spent_txo_count: number;
  spent_txo_sum: bigint;
  tx_count: number;
}

/** Statistics of confirmed transactions (`chain`) and mempool transactions (`mempool`). */
export interface AddressActivity {
  chain: TxoStats;
  mempool: TxoStats;
}

/** An unspent output of an address (not spent by any confirmed or mempool transaction). */
export interface AddressUtxo {
  txid: string;
  vout: number;
  /** Value in satoshis. */
  value: bigint;
  /** The block holding it; undefined while unconfirmed. */
  block: LedgerBlock | undefined;
}

/** One output paying a watched address, as a deposit watcher needs it. */
export interface BitcoinPayment {
  txid: string;
  vout: number;
  /** Value in satoshis. */
  value: bigint;
  /** Data of the transaction's first OP_RETURN output (all pushes concatenated); null when it has none. */
  opReturn: Uint8Array | null;
  /** `opReturn` as UTF-8 text when it is valid UTF-8; otherwise null. */
  opReturnText: string | null;
  /** Height and hash of the holding block; null while in the mempool. */
  blockHeight: number | null;
  blockHash: string | null;
  /** tip height − block height + 1; 0 while in the mempool. */
  confirmations: number;
  /** Address (in the node's network) of the output the first input spends; null for funding transactions. */
  firstInputAddress: string | null;
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const utf8 = new TextDecoder('utf-8', { fatal: true });

function emptyStats(): TxoStats {
  return { funded_txo_count: 0, funded_txo_sum: 0n, spent_txo_count: 0, spent_txo_sum: 0n, tx_count: 0 };
}

/** Whether `entry` pays to or spends from `scriptHex`. */
function touches(entry: LedgerTx, scriptHex: string): boolean {
  return entry.tx.outs.some((o) => hex(o.script) === scriptHex) || entry.prevouts.some((p) => p !== null && hex(p.script) === scriptHex);
}

/**
 * Esplora's `chain_stats` / `mempool_stats` of a script: outputs funded by, and outputs spent by,
 * confirmed and mempool transactions respectively.
 */
export function addressActivity(ledger: UtxoLedger, scriptHex: string): AddressActivity {
  const result: AddressActivity = { chain: emptyStats(), mempool: emptyStats() };
  for (const entry of ledger.allTxs()) {
    const stats = ledger.blockOf(entry.txid) ? result.chain : result.mempool;
    let touched = false;
    for (const out of entry.tx.outs) {
      if (hex(out.script) !== scriptHex) continue;
      stats.funded_txo_count += 1;
      stats.funded_txo_sum += out.value;
      touched = true;
    }
    for (const prev of entry.prevouts) {
      if (prev === null || hex(prev.script) !== scriptHex) continue;
      stats.spent_txo_count += 1;
      stats.spent_txo_sum += prev.value;
      touched = true;
    }
    if (touched) stats.tx_count += 1;
  }
  return result;
}

/**
 * Balance counting the mempool both ways: funded − spent over confirmed and mempool transactions, satoshis.
 */
export function totalBalance(activity: AddressActivity): bigint {
  const { chain, mempool } = activity;
  return chain.funded_txo_sum + mempool.funded_txo_sum - chain.spent_txo_sum - mempool.spent_txo_sum;
}

/**
 * The Bitcoin balance of docs/relay-contract.md "POST /quote/v2": funded outputs − spent outputs − pending
 * spent outputs, i.e. `chain_stats.funded_txo_sum − chain_stats.spent_txo_sum − mempool_stats.spent_txo_sum`,
 * satoshis. Unconfirmed incoming outputs do not count; unconfirmed spends do.
 */
export function specBalance(activity: AddressActivity): bigint {
  return activity.chain.funded_txo_sum - activity.chain.spent_txo_sum - activity.mempool.spent_txo_sum;
}

/** Unspent outputs of a script, confirmed ones first (oldest first), then mempool ones. */
export function addressUtxos(ledger: UtxoLedger, scriptHex: string): AddressUtxo[] {
  const utxos: AddressUtxo[] = [];
  for (const entry of ledger.allTxs()) {
    entry.tx.outs.forEach((out, vout) => {
      if (hex(out.script) !== scriptHex || ledger.spenderOf(entry.txid, vout) !== undefined) return;
      utxos.push({ txid: entry.txid, vout, value: out.value, block: ledger.blockOf(entry.txid) });
    });
  }
  return utxos;
}

/** Txids touching a script: mempool ones newest first, confirmed ones newest first (by height, then position). */
export function addressTxids(ledger: UtxoLedger, scriptHex: string): { mempool: string[]; chain: string[] } {
  const mempool: LedgerTx[] = [];
  const chain: string[] = [];
  for (const entry of ledger.allTxs()) {
    if (!touches(entry, scriptHex)) continue;
    if (ledger.blockOf(entry.txid)) chain.push(entry.txid);
    else mempool.push(entry);
  }
  mempool.sort((a, b) => b.seq - a.seq);
  return { mempool: mempool.map((e) => e.txid), chain: chain.reverse() };
}

/**
 * Every output paying `scriptHex`, oldest first (confirmed in chain order, then the mempool), with what a
 * deposit watcher reads from its transaction.
 *
 * @param network network in which to write `firstInputAddress`
 */
export function listPayments(ledger: UtxoLedger, scriptHex: string, network: BitcoinNetworkName): BitcoinPayment[] {
  const tipHeight = ledger.tip.height;
  const payments: BitcoinPayment[] = [];
  for (const entry of ledger.allTxs()) {
    const firstOpReturn = entry.tx.outs.find((o) => o.script[0] === 0x6a);
    const data = firstOpReturn ? opReturnData(firstOpReturn.script) : null;
    let text: string | null = null;
    if (data !== null) {
      try {
        text = utf8.decode(data);
      } catch {
        text = null; // binary OP_RETURN data: the bytes are still returned in `opReturn`
      }
    }
    const block = ledger.blockOf(entry.txid);
    const firstPrev = entry.prevouts[0];
    entry.tx.outs.forEach((out, vout) => {
      if (hex(out.script) !== scriptHex) return;
      payments.push({
        txid: entry.txid,
        vout,
        value: out.value,
        opReturn: data,
        opReturnText: text,
        blockHeight: block?.height ?? null,
        blockHash: block?.hash ?? null,
        confirmations: block ? tipHeight - block.height + 1 : 0,
        firstInputAddress: firstPrev ? scriptToAddress(firstPrev.script, network) : null,
      });
    });
  }
  return payments;
}
