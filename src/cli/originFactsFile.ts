/**
 * The `--origin-facts` file of `ballast verify-quote`: what the verifier needs from the origin chain and must not
 * take from the quote (src/verify/deposit/types.ts `OriginChainFacts`): for a Solana origin the contents of the
 * address lookup tables the quote names, for a Bitcoin origin our wallet's unspent outputs (as Esplora's
 * `/address/:a/utxo` lists them; `value` in satoshis).
 */
import { z } from 'zod';
import type { OriginChainFacts } from '../verify/deposit/types.ts';

const Sats = z.union([z.string().regex(/^[0-9]+$/, 'expected satoshis as a decimal integer'), z.number().int().nonnegative()]).transform((v) => BigInt(v));

/** `{ lookupTables?: { <table>: [<address>, …] }, utxos?: [{ txid, vout, value }] }`. */
export const OriginFactsFileSchema = z
  .strictObject({
    lookupTables: z.record(z.string().min(1), z.array(z.string().min(1))).optional(),
    utxos: z.array(z.looseObject({ txid: z.string().regex(/^[0-9a-fA-F]{64}$/, 'expected a 64-hex-digit txid'), vout: z.number().int().nonnegative(), value: Sats })).optional(),
  })
  .transform(
    (f): OriginChainFacts => ({
      ...(f.lookupTables ? { lookupTables: f.lookupTables } : {}),
      ...(f.utxos ? { utxos: f.utxos.map((u) => ({ txid: u.txid, vout: u.vout, value: u.value })) } : {}),
    }),
  );
