/**
 * Finds a Relay deposit for one order on a Solana chain: the successful transactions that name our wallet
 * (`getSignaturesForAddress`, newest first, in pages) back to a lookback bound, each read with
 * `getTransaction`, and the `DepositEvent`s the depository program logged in them (src/chains/svm/
 * depositLogs.ts). A deposit is ours when its id is the order id, its depositor our wallet and its amount the
 * payment amount. The current slot is read first, so "none" holds up to that slot. Reads use `confirmed`:
 * a deposit confirmed but not yet final must still be found, or the order would be paid twice.
 *
 * A search that cannot cover its window (too many signatures, a listed transaction the node cannot return,
 * unreadable logs of a transaction that calls the depository) throws: it proves nothing.
 */
import { PublicKey, type ConfirmedSignatureInfo } from '@solana/web3.js';
import type { DepositQuery, DepositSearch } from '../adapter.ts';
import { depositEventsInLogs } from './depositLogs.ts';
import { SvmDepositSearchIncompleteError } from './errors.ts';
import { svmAccountKeys } from './networkCost.ts';
import type { SvmRpc } from './rpc.ts';
import { svmBlockRef } from './signatureStatus.ts';

/** How far back deposits are searched, in slots (about one day at 400 ms per slot). */
export const DEPOSIT_LOOKBACK_SLOTS = 216_000n;
/** Most signatures one `getSignaturesForAddress` page returns (the RPC's limit). */
const PAGE_LIMIT = 1000;
/** Most signatures one search looks at before giving up (each costs a getTransaction when it succeeded). */
export const MAX_DEPOSIT_SEARCH_SIGNATURES = 2000;

/** Options of {@link findSvmDeposit}. */
export interface FindSvmDepositOptions {
  /** Slots searched back from the current one (default {@link DEPOSIT_LOOKBACK_SLOTS}). */
  lookbackSlots?: bigint;
  /** Signatures looked at before the search gives up (default {@link MAX_DEPOSIT_SEARCH_SIGNATURES}). */
  maxSignatures?: number;
}

/**
 * Searches deposits for `query.orderId` crediting `query.user` with `query.amount`.
 *
 * @param query depository program id (GET /chains), order id (0x hex, 32 bytes), our wallet, amount in base units
 * @returns `found` with the deposit's signature and slot, or `none` up to the slot read first
 * @throws SvmRpcError on any node error; SvmDepositSearchIncompleteError when the window cannot be covered
 */
export async function findSvmDeposit(rpc: SvmRpc, query: DepositQuery, opts: FindSvmDepositOptions = {}): Promise<DepositSearch> {
  const lookback = opts.lookbackSlots ?? DEPOSIT_LOOKBACK_SLOTS;
  const maxSignatures = opts.maxSignatures ?? MAX_DEPOSIT_SEARCH_SIGNATURES;
  const slot = BigInt(await rpc.call('getSlot', (c) => c.getSlot({ commitment: 'confirmed' })));
  const lowest = slot > lookback ? slot - lookback : 0n;
  const user = new PublicKey(query.user);
  const orderId = query.orderId.toLowerCase();
  let before: string | undefined;
  let seen = 0;
  for (;;) {
    const options = before === undefined ? { limit: PAGE_LIMIT } : { limit: PAGE_LIMIT, before };
    const page: ConfirmedSignatureInfo[] = await rpc.call('getSignaturesForAddress', (c) =>
      c.getSignaturesForAddress(user, options, 'confirmed'),
    );
    for (const info of page) {
      if (BigInt(info.slot) < lowest) return { kind: 'none', atBlock: slot };
      seen += 1;
      if (seen > maxSignatures) {
        throw new SvmDepositSearchIncompleteError(
          `${rpc.at}: more than ${maxSignatures} transactions of ${query.user} since slot ${lowest}; no deposit for order ${query.orderId} is proven absent`,
        );
      }
      if (info.err !== null) continue; // a failed transaction deposited nothing
      const tx = await rpc.call('getTransaction', (c) =>
        c.getTransaction(info.signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }),
      );
      if (!tx) {
        throw new SvmDepositSearchIncompleteError(
          `${rpc.at}: the node lists ${info.signature} for ${query.user} but does not return it; no deposit is proven absent`,
        );
      }
      if (!tx.meta || tx.meta.err !== null) continue;
      const scan = depositEventsInLogs(tx.meta.logMessages ?? [], query.depository);
      const ours = scan.events.find((e) => e.id.toLowerCase() === orderId && e.depositor === query.user && e.amount === query.amount);
      if (ours)
        return {
          kind: 'found',
          deposit: { txHash: info.signature, blockNumber: BigInt(tx.slot), blockHash: svmBlockRef(BigInt(tx.slot)) },
        };
      const logsMissing = tx.meta.logMessages === null || tx.meta.logMessages === undefined;
      if ((!scan.complete || logsMissing) && svmAccountKeys(tx).includes(query.depository)) {
        throw new SvmDepositSearchIncompleteError(
          `${rpc.at}: the logs of ${info.signature}, which calls the depository, cannot be read to the end; no deposit is proven absent`,
        );
      }
    }
    const last = page.at(-1);
    if (page.length < PAGE_LIMIT || last === undefined) return { kind: 'none', atBlock: slot };
    before = last.signature;
  }
}
