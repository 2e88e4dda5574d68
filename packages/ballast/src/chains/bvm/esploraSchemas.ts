/**
 * zod schemas of the Esplora answers the Bitcoin adapter reads (github.com/Blockstream/esplora API.md): text
 * heights and hashes, transaction status, transactions, outspends, address statistics and unspent outputs.
 * Only the fields Ballast uses are kept. Satoshi amounts are JSON numbers there; they become `bigint` here,
 * and a number that is not a safe integer is refused rather than rounded; a transaction's fee is derived from them.
 * Pure: no I/O.
 */
import { z } from 'zod';

/** A satoshi amount as Esplora writes it (a JSON number), read as a bigint; refused unless an exact safe integer ≥ 0. */
export const SatsSchema = z
  .number()
  .int()
  .nonnegative()
  .refine((n) => Number.isSafeInteger(n), 'not an exact integer number of satoshis')
  .transform((n) => BigInt(n));

/** A transaction id or block hash: 64 hex digits (lower-cased). */
export const HashSchema = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'expected 64 hex digits')
  .transform((s) => s.toLowerCase());

/** A block height as text (`/blocks/tip/height`), read as a bigint. */
export const HeightTextSchema = z
  .string()
  .trim()
  .regex(/^[0-9]{1,10}$/, 'expected a block height (decimal digits)')
  .transform((s) => BigInt(s));

/** A block hash as text (`/block-height/:h`, `/blocks/tip/hash`). */
export const HashTextSchema = z.string().trim().pipe(HashSchema);

const HeightSchema = z.number().int().nonnegative();

/** `status` of a transaction: in a block (height, hash) or not (mempool). */
export const TxStatusSchema = z.discriminatedUnion('confirmed', [
  z.object({ confirmed: z.literal(false) }),
  z.object({ confirmed: z.literal(true), block_height: HeightSchema, block_hash: HashSchema }),
]);
/** Parsed {@link TxStatusSchema}. */
export type EsploraTxStatus = z.output<typeof TxStatusSchema>;

/** An output (`vout[]` or `vin[].prevout`): script hex, address when it has one, value in satoshis. */
export const TxOutputSchema = z.object({
  scriptpubkey: z.string().regex(/^(?:[0-9a-fA-F]{2})*$/, 'expected hex'),
  scriptpubkey_address: z.string().optional(),
  value: SatsSchema,
});
/** Parsed {@link TxOutputSchema}. */
export type EsploraTxOutput = z.output<typeof TxOutputSchema>;

/** A transaction (`/tx/:id`, `/address/:a/txs` entries). */
export const TxSchema = z.object({
  txid: HashSchema,
  vin: z.array(
    z.object({
      txid: HashSchema,
      vout: z.number().int().nonnegative(),
      prevout: TxOutputSchema.nullable(),
      is_coinbase: z.boolean(),
    }),
  ),
  vout: z.array(TxOutputSchema),
  /** BIP-141 weight units; vsize is ⌈weight ÷ 4⌉. */
  weight: z.number().int().positive().optional(),
  status: TxStatusSchema,
});
/** Parsed {@link TxSchema}. */
export type EsploraTx = z.output<typeof TxSchema>;

/**
 * The miner fee an Esplora transaction paid, satoshis: Σ prevouts − Σ outputs; null when a prevout is missing (a
 * coinbase, or a server that left it out).
 */
export function esploraTxFee(tx: EsploraTx): bigint | null {
  if (tx.vin.some((i) => i.prevout === null)) return null;
  return tx.vin.reduce((s, i) => s + i.prevout!.value, 0n) - tx.vout.reduce((s, o) => s + o.value, 0n); // null prevouts returned above
}

/** A page of an address's transactions. */
export const TxListSchema = z.array(TxSchema);

/** `/tx/:id/outspend/:vout`: unspent, or spent by input `vin` of `txid`. */
export const OutspendSchema = z.discriminatedUnion('spent', [
  z.object({ spent: z.literal(false) }),
  z.object({ spent: z.literal(true), txid: HashSchema, vin: z.number().int().nonnegative(), status: TxStatusSchema.optional() }),
]);
/** Parsed {@link OutspendSchema}. */
export type EsploraOutspend = z.output<typeof OutspendSchema>;

/** `/tx/:id/outspends`: one {@link OutspendSchema} per output, in order. */
export const OutspendsSchema = z.array(OutspendSchema);

const TxoStatsSchema = z.object({ funded_txo_sum: SatsSchema, spent_txo_sum: SatsSchema });

/** `/address/:a`: output sums over confirmed (`chain_stats`) and mempool (`mempool_stats`) transactions. */
export const AddressStatsSchema = z.object({ chain_stats: TxoStatsSchema, mempool_stats: TxoStatsSchema });
/** Parsed {@link AddressStatsSchema}. */
export type EsploraAddressStats = z.output<typeof AddressStatsSchema>;

/** `/address/:a/utxo`: unspent outputs, value in satoshis. */
export const UtxoListSchema = z.array(
  z.object({ txid: HashSchema, vout: z.number().int().nonnegative(), value: SatsSchema, status: TxStatusSchema }),
);

/** `/fee-estimates`: confirmation target in blocks (decimal text) → fee rate, sat/vB (may be fractional). */
export const FeeEstimatesSchema = z.record(
  z.string().regex(/^[0-9]{1,6}$/, 'expected a confirmation target in blocks'),
  z.number().nonnegative().finite(),
);
