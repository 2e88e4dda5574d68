/**
 * Finds the Bitcoin deposit of one order among the depository address's transactions (Esplora
 * `/address/:a/txs`, then `/address/:a/txs/chain/:last_seen_txid` pages, newest first). A transaction is the
 * order's deposit when (docs/design.md "Bitcoin step data"):
 * - one output pays the depository's script exactly the payment amount;
 * - its first OP_RETURN output is the order-id memo of this order;
 * - its depositor is our wallet: the memo's `|depositor=` address when present, else the address the first
 *   input spends from (compared by output script, so any rendering of the address matches).
 *
 * Absence is proven only over what was read: the mempool (when the server listed all of it) and every
 * confirmed transaction down to {@link DEPOSIT_LOOKBACK_BLOCKS} below the tip read before the search. A
 * search that cannot cover that throws, and so does a deposit seen only in the mempool.
 */
import type { DepositQuery, DepositSearch } from '../adapter.ts';
import { bitcoinOutputScript, decodeOrderIdMemoScript } from '@ballast/protocol/protocol/bitcoinDeposit.ts';
import type { EsploraClient } from './esploraClient.ts';
import { HeightTextSchema, TxListSchema, type EsploraTx } from './esploraSchemas.ts';
import { BvmDepositSearchIncompleteError, BvmDepositUnconfirmedError } from './errors.ts';

/** How far below the tip confirmed deposits are searched, blocks (about a week; order deadlines are shorter). */
export const DEPOSIT_LOOKBACK_BLOCKS = 1_008n;
/** Most pages of confirmed transactions read in one search. */
export const MAX_DEPOSIT_PAGES = 200;
/** Mempool transactions Esplora lists at most on the first page; a full list may be cut short. */
export const ESPLORA_MEMPOOL_PAGE = 50;

/** What identifies the order's deposit, in the form transactions are compared in. */
export interface DepositPattern {
  /** Output script of the depository, hex. */
  depositoryScript: string;
  /** Output script of our wallet, hex. */
  userScript: string;
  /** Order id, 0x + 64 lower-case hex digits. */
  orderId: string;
  /** Payment amount, satoshis. */
  amount: bigint;
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** Output script of a Bitcoin address as hex, or null when the text is not one. */
function scriptHexOf(address: string): string | null {
  try {
    return hex(bitcoinOutputScript(address));
  } catch {
    return null; // not an address: it matches nothing
  }
}

/** The pattern of a query. @throws AddressEncodingError when the depository or our wallet is not a Bitcoin address */
export function depositPattern(query: DepositQuery): DepositPattern {
  return {
    depositoryScript: hex(bitcoinOutputScript(query.depository)),
    userScript: hex(bitcoinOutputScript(query.user)),
    orderId: query.orderId.toLowerCase(),
    amount: query.amount,
  };
}

/** Whether `tx` is the order's deposit (see the file docs). Pure. */
export function isOrderDeposit(tx: EsploraTx, pattern: DepositPattern): boolean {
  const pays = tx.vout.some((o) => o.scriptpubkey.toLowerCase() === pattern.depositoryScript && o.value === pattern.amount);
  if (!pays) return false;
  const firstOpReturn = tx.vout.find((o) => o.scriptpubkey.toLowerCase().startsWith('6a'));
  const memo = firstOpReturn ? decodeOrderIdMemoScript(Buffer.from(firstOpReturn.scriptpubkey, 'hex')) : null;
  if (!memo || memo.orderId !== pattern.orderId) return false;
  const depositorScript =
    memo.depositor !== undefined ? scriptHexOf(memo.depositor) : (tx.vin[0]?.prevout?.scriptpubkey.toLowerCase() ?? null);
  return depositorScript === pattern.userScript;
}

/** Options of {@link findBvmDeposit}. */
export interface FindBvmDepositOptions {
  /** Blocks below the tip searched (default {@link DEPOSIT_LOOKBACK_BLOCKS}). */
  lookbackBlocks?: bigint;
  /** Most confirmed pages read (default {@link MAX_DEPOSIT_PAGES}). */
  maxPages?: number;
}

/**
 * Searches the depository's transactions for the order's deposit.
 *
 * @returns `found` with the confirmed deposit's txid, height and block hash, or `none` with the tip read before
 *   the search (nothing matching was mined or is in the mempool)
 * @throws BvmDepositUnconfirmedError when the deposit is only in the mempool (nothing is proven yet)
 * @throws BvmDepositSearchIncompleteError when the search could not cover the mempool or the lookback window
 * @throws BvmEsploraError on any HTTP failure; AddressEncodingError when an address of the query is not Bitcoin's
 */
export async function findBvmDeposit(
  esplora: EsploraClient,
  query: DepositQuery,
  opts: FindBvmDepositOptions = {},
): Promise<DepositSearch> {
  const pattern = depositPattern(query);
  const lookback = opts.lookbackBlocks ?? DEPOSIT_LOOKBACK_BLOCKS;
  const maxPages = opts.maxPages ?? MAX_DEPOSIT_PAGES;
  const tip = await esplora.getText('/blocks/tip/height', HeightTextSchema);
  const floor = tip - lookback;
  const base = `/address/${encodeURIComponent(query.depository)}/txs`;

  const first = await esplora.getJson(base, TxListSchema);
  const mempool = first.filter((t) => !t.status.confirmed);
  const pending = mempool.find((t) => isOrderDeposit(t, pattern));
  let page = first.filter((t) => t.status.confirmed);
  let pages = 1;
  let covered = false;
  for (;;) {
    for (const tx of page) {
      if (tx.status.confirmed && isOrderDeposit(tx, pattern)) {
        return {
          kind: 'found',
          deposit: { txHash: tx.txid, blockNumber: BigInt(tx.status.block_height), blockHash: tx.status.block_hash },
        };
      }
    }
    const last = page[page.length - 1];
    if (!last || !last.status.confirmed || BigInt(last.status.block_height) < floor) {
      covered = true;
      break;
    }
    if (pages >= maxPages) break;
    page = await esplora.getJson(`${base}/chain/${last.txid}`, TxListSchema);
    pages += 1;
  }
  if (pending) {
    throw new BvmDepositUnconfirmedError(
      `deposit ${pending.txid} for order ${pattern.orderId} is in the mempool, not yet mined; look again after the next block`,
    );
  }
  if (!covered) {
    throw new BvmDepositSearchIncompleteError(
      `${esplora.at}: ${pages} pages of depository ${query.depository}'s transactions did not reach block ${floor}; no deposit for order ${pattern.orderId} is proven absent`,
    );
  }
  if (mempool.length >= ESPLORA_MEMPOOL_PAGE) {
    throw new BvmDepositSearchIncompleteError(
      `${esplora.at} listed ${mempool.length} mempool transactions of depository ${query.depository}, possibly not all; no deposit for order ${pattern.orderId} is proven absent`,
    );
  }
  return { kind: 'none', atBlock: tip };
}
