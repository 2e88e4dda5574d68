/**
 * The unconfirmed ancestors of a deposit that spends our own unconfirmed change (only where
 * `chains.<name>.allowOwnUnconfirmedInputs` is set): recorded with the deposit when it is signed, because once a
 * parent is replaced (by our cancel of it) or evicted, the node forgets it, and with it the outputs the deposit
 * spends; `/tx/:parent/outspend/:n` then answers 404 and nothing would ever prove the deposit dead. With the
 * parents' raw transactions kept, `lookup` proves the child dead when an ancestor is: one of the ancestor's own
 * inputs spent by another transaction mined at the reorg depth (src/chains/bvm/txState.ts).
 */
import { Transaction } from 'bitcoinjs-lib';
import { z } from 'zod';
import type { RecordedTx } from '../adapter.ts';
import type { EsploraClient } from './esploraClient.ts';
import { TxStatusSchema } from './esploraSchemas.ts';
import { BvmAdapterError } from './errors.ts';
import type { Outpoint } from './txRecord.ts';

/** Most unconfirmed ancestors one deposit may have: Bitcoin Core's default `-limitancestorcount` (25). */
export const MAX_UNCONFIRMED_ANCESTORS = 25;

const txidOf = (tx: Transaction): string => tx.getId();
const inputTxid = (i: Transaction['ins'][number]): string => Buffer.from(i.hash).reverse().toString('hex');

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
    const status = await esplora.getJsonOrNull(`/tx/${txid}/status`, TxStatusSchema);
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
    for (const i of Transaction.fromHex(hex).ins) queue.push(inputTxid(i));
  }
  return found;
}

const AncestorsRecordSchema = z.looseObject({ ancestors: z.string().min(1) });

/** The ancestors recorded with a transaction (`request.ancestors`, comma-separated raw hex), parsed; [] when none. */
export function recordedAncestors(tx: RecordedTx): { txid: string; inputs: Outpoint[] }[] {
  const record = AncestorsRecordSchema.safeParse(tx.request);
  if (!record.success) return [];
  const out: { txid: string; inputs: Outpoint[] }[] = [];
  for (const hex of record.data.ancestors.split(',')) {
    try {
      const parsed = Transaction.fromHex(hex);
      out.push({ txid: txidOf(parsed), inputs: parsed.ins.map((i) => ({ txid: inputTxid(i), vout: i.index })) });
    } catch {
      continue; // not a transaction: it proves nothing
    }
  }
  return out;
}
