/**
 * Replace-by-fee for the sandbox's Bitcoin node: the BIP-125 replacement rules as Bitcoin Core 28 applies
 * them with `-mempoolfullrbf=1` (its default), in Core's order and with its reject reasons and messages
 * (`policy/rbf.cpp`, `validation.cpp` `MemPoolAccept::ReplacementChecks`). Fees and sizes are integers:
 * satoshis and virtual bytes; fee rates are compared as Core's `CFeeRate`, i.e. satoshis per 1000 vbytes
 * rounded down. Pure: no I/O.
 */
import type { Transaction } from 'bitcoinjs-lib';
import { BitcoinTxRejectedError } from './errors.ts';
import type { LedgerTx, Spender } from './ledger.ts';

/** Highest nSequence that signals replaceability (BIP-125 `MAX_BIP125_RBF_SEQUENCE`). */
export const MAX_BIP125_RBF_SEQUENCE = 0xfffffffd;
/** Most mempool transactions one replacement may evict, descendants included (BIP-125 rule 5). */
export const MAX_REPLACEMENT_CANDIDATES = 100;
const COIN = 100_000_000n;

/** Fee and size of a mempool transaction, as the replacement rules read them. */
export interface FeeEntry {
  /** Transaction id (big-endian hex). */
  txid: string;
  /** Fee in satoshis. */
  fee: bigint;
  /** Virtual size in vbytes (BIP-141). */
  vsize: number;
}

/** What {@link checkReplacement} compares. */
export interface ReplacementCase {
  /** The new transaction: txid, fee (satoshis) and vsize. */
  replacement: FeeEntry;
  /** Mempool transactions spending one of its inputs (the direct conflicts). */
  direct: readonly FeeEntry[];
  /** Every transaction the replacement would evict: the direct conflicts and all their mempool descendants. */
  all: readonly FeeEntry[];
  /** Txids of the outputs each of the replacement's inputs spends, in input order. */
  inputParents: readonly string[];
  /** Txids of the outputs the direct conflicts' inputs spend. */
  directConflictParents: ReadonlySet<string>;
  /** Whether a txid is in the mempool (to tell unconfirmed inputs). */
  inMempool(txid: string): boolean;
  /** Incremental relay fee rate, satoshis per vbyte (Core's `-incrementalrelayfee`, 1 sat/vB by default). */
  incrementalRelayFeeSatPerVb: bigint;
}

/** Whether a transaction signals replaceability (BIP-125): some input's nSequence ≤ 0xfffffffd. */
export function signalsOptInRbf(tx: Transaction): boolean {
  return tx.ins.some((input) => input.sequence <= MAX_BIP125_RBF_SEQUENCE);
}

/** Core's `CFeeRate(fee, vsize)`: satoshis per 1000 vbytes, rounded down. */
export function feeRatePerKvb(fee: bigint, vsize: number): bigint {
  return vsize > 0 ? (fee * 1000n) / BigInt(vsize) : 0n;
}

/** Core's `FormatMoney`: BTC with 8 decimals, trailing zeros trimmed down to 2 decimals (`0.00001`, `1.00`). */
export function formatMoney(sats: bigint): string {
  const abs = sats < 0n ? -sats : sats;
  let text = `${abs / COIN}.${(abs % COIN).toString().padStart(8, '0')}`;
  while (text.endsWith('0') && text.length - text.indexOf('.') > 3) text = text.slice(0, -1);
  return sats < 0n ? `-${text}` : text;
}

/** Core's `CFeeRate::ToString`: `0.00001000 BTC/kvB`. */
function formatFeeRate(perKvb: bigint): string {
  return `${perKvb / COIN}.${(perKvb % COIN).toString().padStart(8, '0')} BTC/kvB`;
}

/**
 * A transaction may not spend an output of a transaction it would replace (Core's
 * `EntriesAndTxidsDisjoint`, checked before the replacement rules).
 *
 * @param ancestors txids of the replacement's mempool ancestors
 * @throws BitcoinTxRejectedError `BTC_TX_SPENDS_CONFLICTING` (`bad-txns-spends-conflicting-tx`)
 */
export function checkSpendsNoConflict(txid: string, ancestors: ReadonlySet<string>, all: readonly FeeEntry[]): void {
  const hit = all.find((entry) => ancestors.has(entry.txid));
  if (hit === undefined) return;
  throw new BitcoinTxRejectedError(
    'BTC_TX_SPENDS_CONFLICTING',
    { reason: `bad-txns-spends-conflicting-tx, ${txid} spends conflicting transaction ${hit.txid}` },
    'a replacement must not spend outputs of the transactions it replaces',
  );
}

/**
 * BIP-125 replacement rules 6, 5, 2, 3 and 4, in Bitcoin Core's order:
 * - 6: the replacement's fee rate is above each direct conflict's own fee rate;
 * - 5: at most {@link MAX_REPLACEMENT_CANDIDATES} transactions are evicted;
 * - 2: every unconfirmed input of the replacement spends a transaction a direct conflict also spends from;
 * - 3: its fee ≥ the total fee of everything it evicts;
 * - 4: its fee − that total ≥ the incremental relay fee × its own vsize.
 * (Rule 1, opt-in signalling, is waived under full-RBF; the caller applies it when full-RBF is off.)
 *
 * @throws BitcoinTxRejectedError `BTC_TX_REPLACEMENT_FEE_TOO_LOW` (`insufficient fee`, rules 6, 3, 4),
 *   `BTC_TX_REPLACEMENT_TOO_MANY` (`too many potential replacements`, rule 5),
 *   `BTC_TX_REPLACEMENT_ADDS_UNCONFIRMED` (`replacement-adds-unconfirmed`, rule 2)
 */
export function checkReplacement(c: ReplacementCase): void {
  const { replacement: r } = c;
  const newRate = feeRatePerKvb(r.fee, r.vsize);
  for (const original of c.direct) {
    const oldRate = feeRatePerKvb(original.fee, original.vsize);
    if (newRate <= oldRate) {
      throw new BitcoinTxRejectedError(
        'BTC_TX_REPLACEMENT_FEE_TOO_LOW',
        {
          reason: `insufficient fee, rejecting replacement ${r.txid}; new feerate ${formatFeeRate(newRate)} <= old feerate ${formatFeeRate(oldRate)}`,
        },
        `pay a higher fee rate than ${original.txid}`,
      );
    }
  }
  if (c.all.length > MAX_REPLACEMENT_CANDIDATES) {
    throw new BitcoinTxRejectedError(
      'BTC_TX_REPLACEMENT_TOO_MANY',
      {
        reason: `too many potential replacements, rejecting replacement ${r.txid}; too many potential replacements (${c.all.length} > ${MAX_REPLACEMENT_CANDIDATES})`,
      },
      'replace fewer transactions at once',
    );
  }
  c.inputParents.forEach((parent, inputIndex) => {
    if (!c.directConflictParents.has(parent) && c.inMempool(parent)) {
      throw new BitcoinTxRejectedError(
        'BTC_TX_REPLACEMENT_ADDS_UNCONFIRMED',
        { reason: `replacement-adds-unconfirmed, replacement ${r.txid} adds unconfirmed input, idx ${inputIndex}`, inputIndex },
        'a replacement may spend only confirmed outputs or outputs the replaced transactions spent from',
      );
    }
  });
  const originalFees = c.all.reduce((sum, e) => sum + e.fee, 0n);
  if (r.fee < originalFees) {
    throw new BitcoinTxRejectedError(
      'BTC_TX_REPLACEMENT_FEE_TOO_LOW',
      {
        reason: `insufficient fee, rejecting replacement ${r.txid}, less fees than conflicting txs; ${formatMoney(r.fee)} < ${formatMoney(originalFees)}`,
      },
      `pay at least ${originalFees} sat plus ${c.incrementalRelayFeeSatPerVb} sat/vB of its own vsize`,
    );
  }
  const additional = r.fee - originalFees;
  const relayFee = c.incrementalRelayFeeSatPerVb * BigInt(r.vsize);
  if (additional < relayFee) {
    throw new BitcoinTxRejectedError(
      'BTC_TX_REPLACEMENT_FEE_TOO_LOW',
      {
        reason: `insufficient fee, rejecting replacement ${r.txid}, not enough additional fees to relay; ${formatMoney(additional)} < ${formatMoney(relayFee)}`,
      },
      `pay at least ${originalFees + relayFee} sat`,
    );
  }
}

/** What {@link checkMempoolReplacement} reads of the ledger. */
export interface MempoolView {
  /** A held (confirmed or mempool) transaction by txid. */
  tx(txid: string): LedgerTx | undefined;
  /** The transaction spending an output, if any. */
  spenderOf(txid: string, vout: number): Spender | undefined;
  inMempool(txid: string): boolean;
}

/** Big-endian hex of the txid an input spends from. */
function parentOf(input: Transaction['ins'][number]): string {
  return Buffer.from(input.hash).reverse().toString('hex');
}

/** `txid` and every mempool transaction spending its outputs, recursively, added to `into`. */
function collectDescendants(view: MempoolView, txid: string, into: Set<string>): void {
  if (into.has(txid)) return;
  into.add(txid);
  view.tx(txid)?.tx.outs.forEach((_out, vout) => {
    const spender = view.spenderOf(txid, vout);
    if (spender !== undefined && view.inMempool(spender.txid)) collectDescendants(view, spender.txid, into);
  });
}

/** Txids of the mempool transactions `tx` spends from, directly or through other mempool transactions. */
function mempoolAncestors(view: MempoolView, tx: Transaction): Set<string> {
  const found = new Set<string>();
  const pending = tx.ins.map(parentOf);
  for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
    if (found.has(id) || !view.inMempool(id)) continue;
    found.add(id);
    for (const input of view.tx(id)?.tx.ins ?? []) pending.push(parentOf(input));
  }
  return found;
}

/**
 * Every replacement check of a broadcast whose inputs are already spent by the mempool transactions
 * `conflicts`: {@link checkSpendsNoConflict}, then {@link checkReplacement} over the conflicts and all their
 * mempool descendants.
 *
 * @param candidate the new transaction, its txid and fee in satoshis
 * @param conflicts txids of the mempool transactions spending its inputs (held by `view`)
 * @param incrementalRelayFeeSatPerVb Core's incremental relay fee, satoshis per vbyte
 * @throws BitcoinTxRejectedError as those two functions
 */
export function checkMempoolReplacement(
  view: MempoolView,
  candidate: { tx: Transaction; txid: string; fee: bigint },
  conflicts: ReadonlySet<string>,
  incrementalRelayFeeSatPerVb: bigint,
): void {
  const entry = (id: string): FeeEntry => {
    const held = view.tx(id)!; // conflicts and their descendants are held
    return { txid: id, fee: held.fee, vsize: held.tx.virtualSize() };
  };
  const all = new Set<string>();
  for (const conflict of conflicts) collectDescendants(view, conflict, all);
  const allEntries = [...all].map(entry);
  checkSpendsNoConflict(candidate.txid, mempoolAncestors(view, candidate.tx), allEntries);
  const directConflictParents = new Set<string>();
  for (const conflict of conflicts) for (const input of view.tx(conflict)?.tx.ins ?? []) directConflictParents.add(parentOf(input));
  checkReplacement({
    replacement: { txid: candidate.txid, fee: candidate.fee, vsize: candidate.tx.virtualSize() },
    direct: [...conflicts].map(entry),
    all: allEntries,
    inputParents: candidate.tx.ins.map(parentOf),
    directConflictParents,
    inMempool: (id) => view.inMempool(id),
    incrementalRelayFeeSatPerVb,
  });
}
