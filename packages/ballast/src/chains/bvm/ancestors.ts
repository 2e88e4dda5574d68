/**
 * The unconfirmed ancestors of a deposit that spends our own unconfirmed change (only where
 * `chains.<name>.allowOwnUnconfirmedInputs` is set): recorded with the deposit when it is signed, because once a
 * parent is replaced (by our cancel of it) or evicted, the node forgets it, and with it the outputs the deposit
 * spends; `/tx/:parent/outspend/:n` then answers 404 and nothing would ever prove the deposit dead. With the
 * parents' raw transactions kept, `lookup` proves the child dead when an ancestor is: one of the ancestor's own
 * inputs spent by another transaction mined at the reorg depth (src/chains/bvm/txState.ts); the record is read
 * back by `recordedAncestors` (src/chains/bvm/txRecord.ts).
 */
import { Transaction } from 'bitcoinjs-lib';
import { z } from 'zod';
import type { EsploraClient } from './esploraClient.ts';
import { BvmAdapterError } from './errors.ts';
import { outpointsOf, type Outpoint } from './txRecord.ts';
import { readTxStatus } from './txState.ts';

/** Most unconfirmed ancestors one deposit may have: Bitcoin Core's default `-limitancestorcount` (25). */
export const MAX_UNCONFIRMED_ANCESTORS = 25;

/**
 * Reads the unconfirmed ancestors of a transaction spending `inputs`: each parent the node has in its mempool,
 * its own unconfirmed parents, and so on (raw transactions, hex).
 *
 * @returns the ancestors' raw transactions, nearest first (empty when every input is confirmed)
 * @throws BvmAdapterError when a parent is unknown to the node or there are more than
 *   {@link MAX_UNCONFIRMED_ANCESTORS}; BvmEsploraError when a read fails
 */
export async function readUnconfirmedAncestors(esplora: EsploraClient, inputs: readonly Outpoint[]): Promise<string[]> {
  const queue = [...new Set(inputs.map((i) => i.txid.toLowerCase()))];
  const seen = new Set<string>();
  const found: string[] = [];
  while (queue.length > 0) {
    const txid = queue.shift()!; // non-empty: the loop condition
    if (seen.has(txid)) continue;
    seen.add(txid);
    const status = await readTxStatus(esplora, txid);
    if (status === null) throw new BvmAdapterError(`parent transaction ${txid} is unknown to the node; a deposit on it is not signed`);
    if (status.confirmed) continue;
    const hex = await esplora.getTextOrNull(
      `/tx/${txid}/hex`,
      z
        .string()
        .trim()
        .regex(/^(?:[0-9a-fA-F]{2})+$/),
    );
    if (hex === null) throw new BvmAdapterError(`parent transaction ${txid} is unknown to the node; a deposit on it is not signed`);
    found.push(hex.toLowerCase());
    if (found.length > MAX_UNCONFIRMED_ANCESTORS) {
      throw new BvmAdapterError(
        `the deposit would have more than ${MAX_UNCONFIRMED_ANCESTORS} unconfirmed ancestors (Bitcoin Core's ancestor limit); not signed`,
      );
    }
    for (const o of outpointsOf(Transaction.fromHex(hex))) queue.push(o.txid);
  }
  return found;
}
