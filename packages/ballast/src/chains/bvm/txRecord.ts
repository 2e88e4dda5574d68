/**
 * The write-ahead record of a signed Bitcoin deposit (`SignedOriginTx.request`) and reading it back: the spent
 * outpoints are what later proves a lost transaction can never land (another transaction spent one of them).
 * When the record lacks them, the outpoints are read from the stored raw transaction instead. Pure.
 */
import { Transaction } from 'bitcoinjs-lib';
import { z } from 'zod';
import type { RecordedTx } from '../adapter.ts';
import type { SignedBvmTx } from './signPsbt.ts';

/** One spent output. */
export interface Outpoint {
  txid: string;
  vout: number;
}

/**
 * The JSON-safe record of a signed deposit: `wallet` (address), `inputs` (`txid:vout,…`), `outputs`
 * (`address:sats,…`), `fee` (satoshis, decimal string), `vsize` (vB) and `orderId` (of the memo, or null).
 */
export function bvmTxRecord(signed: SignedBvmTx, wallet: string): Record<string, string | number | boolean | null> {
  return {
    wallet,
    inputs: signed.inputs.join(','),
    outputs: signed.outputs.join(','),
    fee: signed.feeSat.toString(),
    vsize: signed.vsize,
    orderId: signed.orderId,
  };
}

/** The outpoints a parsed transaction spends, in input order (txids big-endian hex, as explorers write them). */
export function outpointsOf(tx: Transaction): Outpoint[] {
  return tx.ins.map((i) => ({ txid: Buffer.from(i.hash).reverse().toString('hex'), vout: i.index }));
}

const OUTPOINT_RE = /^([0-9a-f]{64}):([0-9]{1,10})$/;

const RecordSchema = z.looseObject({
  inputs: z
    .string()
    .transform((s) => s.split(','))
    .pipe(z.array(z.string().toLowerCase().regex(OUTPOINT_RE)).min(1)),
});

/**
 * The outpoints a recorded transaction spends: from `request.inputs`, else from `rawTx`.
 *
 * @returns the outpoints, or null when neither the record nor the raw transaction tells them
 */
export function recordedInputs(tx: RecordedTx): Outpoint[] | null {
  const record = RecordSchema.safeParse(tx.request);
  if (record.success) {
    return record.data.inputs.map((text) => {
      const [, txid, vout] = OUTPOINT_RE.exec(text)!; // the schema matched the same pattern
      return { txid: txid!, vout: Number(vout) };
    });
  }
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(tx.rawTx)) return null;
  try {
    const decoded = Transaction.fromHex(tx.rawTx);
    if (decoded.ins.length === 0) return null;
    return outpointsOf(decoded);
  } catch {
    return null; // not a transaction: the caller cannot prove anything from it
  }
}

const AncestorsRecordSchema = z.looseObject({ ancestors: z.string().min(1) });

/**
 * The unconfirmed ancestors recorded with a deposit on our own change (`request.ancestors`, comma-separated raw
 * hex, src/chains/bvm/ancestors.ts), parsed: each one's txid and the outpoints it spends; [] when none.
 */
export function recordedAncestors(tx: RecordedTx): { txid: string; inputs: Outpoint[] }[] {
  const record = AncestorsRecordSchema.safeParse(tx.request);
  if (!record.success) return [];
  const out: { txid: string; inputs: Outpoint[] }[] = [];
  for (const hex of record.data.ancestors.split(',')) {
    try {
      const parsed = Transaction.fromHex(hex);
      out.push({ txid: parsed.getId(), inputs: outpointsOf(parsed) });
    } catch {
      continue; // not a transaction: it proves nothing
    }
  }
  return out;
}
