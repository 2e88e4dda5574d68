/**
 * The `--origin-facts` file of `ballast verify-quote`: what the verifier needs from the origin chain and must not
 * take from the quote (src/verify/deposit/types.ts `OriginChainFacts`): for a Solana origin the contents of the
 * address lookup tables the quote names; for a Bitcoin origin our wallet's unspent outputs (as Esplora's
 * `/address/:a/utxo` lists them; `value` in satoshis), and optionally the tip height, the node's fee estimate
 * and the outpoints our in-flight deposits spend.
 *
 * An unspent output is confirmed unless it says otherwise, by `confirmed: false` or Esplora's
 * `status.confirmed: false`; an unconfirmed one is accepted only with `parentOurs: true` (every input of the
 * transaction that created it is ours).
 */
import { z } from 'zod';
import type { OriginChainFacts } from '../verify/deposit/types.ts';

const Sats = z
  .union([z.string().regex(/^[0-9]+$/, 'expected satoshis as a decimal integer'), z.number().int().nonnegative()])
  .transform((v) => BigInt(v));
const Txid = z.string().regex(/^[0-9a-fA-F]{64}$/, 'expected a 64-hex-digit txid');

const Utxo = z.looseObject({
  txid: Txid,
  vout: z.number().int().nonnegative(),
  value: Sats,
  confirmed: z.boolean().optional(),
  status: z.looseObject({ confirmed: z.boolean() }).optional(),
  parentOurs: z.boolean().optional(),
});

const FeeEstimate = z.union([
  z.strictObject({ targetBlocks: z.number().int().positive(), satPerVb: z.number().nonnegative().finite() }),
  z.strictObject({ problem: z.string().min(1) }),
]);

/**
 * `{ lookupTables?: { <table>: [<address>, …] }, utxos?: [{ txid, vout, value, confirmed?, parentOurs? }],
 * tipHeight?: <height>, feeEstimate?: { targetBlocks, satPerVb } | { problem }, reservedOutpoints?: ["<txid>:<vout>", …] }`.
 */
export const OriginFactsFileSchema = z
  .strictObject({
    lookupTables: z.record(z.string().min(1), z.array(z.string().min(1))).optional(),
    utxos: z.array(Utxo).optional(),
    tipHeight: z
      .union([z.string().regex(/^[0-9]+$/, 'expected a block height'), z.number().int().nonnegative()])
      .transform((v) => BigInt(v))
      .optional(),
    feeEstimate: FeeEstimate.optional(),
    reservedOutpoints: z.array(z.string().regex(/^[0-9a-fA-F]{64}:[0-9]{1,10}$/, 'expected an outpoint "<txid>:<vout>"')).optional(),
  })
  .transform((f): OriginChainFacts => ({
    ...(f.lookupTables ? { lookupTables: f.lookupTables } : {}),
    ...(f.utxos
      ? {
          utxos: f.utxos.map((u) => ({
            txid: u.txid,
            vout: u.vout,
            value: u.value,
            confirmed: u.confirmed ?? u.status?.confirmed ?? true,
            ...(u.parentOurs !== undefined ? { parentOurs: u.parentOurs } : {}),
          })),
        }
      : {}),
    ...(f.tipHeight !== undefined ? { tipHeight: f.tipHeight } : {}),
    ...(f.feeEstimate ? { feeEstimate: f.feeEstimate } : {}),
    ...(f.reservedOutpoints ? { reservedOutpoints: f.reservedOutpoints.map((o) => o.toLowerCase()) } : {}),
  }));
