/**
 * The `ballast verify-quote --origin-facts` file schema: Bitcoin utxos confirmed unless the file says otherwise
 * (`confirmed: false` or Esplora's `status.confirmed: false`), `parentOurs` kept; optional tip height, fee
 * estimate and reserved outpoints (txids lower-cased); malformed values refused naming the field.
 */
import { describe, expect, it } from 'vitest';
import { OriginFactsFileSchema } from '../../../packages/ballast/src/cli/originFactsFile.ts';

const A = 'a1'.repeat(32);

describe('OriginFactsFileSchema', () => {
  it('reads utxos in the short and the Esplora form, and the optional Bitcoin facts', () => {
    const facts = OriginFactsFileSchema.parse({
      utxos: [
        { txid: A, vout: 0, value: 60000 },
        { txid: A, vout: 1, value: '5000', status: { confirmed: false, block_height: 1 } },
        { txid: A, vout: 2, value: 7000, confirmed: false, parentOurs: true },
      ],
      tipHeight: 870000,
      feeEstimate: { targetBlocks: 1008, satPerVb: 1.2 },
      reservedOutpoints: [`${'B2'.repeat(32)}:3`],
    });
    expect(facts).toEqual({
      utxos: [
        { txid: A, vout: 0, value: 60_000n, confirmed: true },
        { txid: A, vout: 1, value: 5_000n, confirmed: false },
        { txid: A, vout: 2, value: 7_000n, confirmed: false, parentOurs: true },
      ],
      tipHeight: 870_000n,
      feeEstimate: { targetBlocks: 1008, satPerVb: 1.2 },
      reservedOutpoints: [`${'b2'.repeat(32)}:3`],
    });
    expect(OriginFactsFileSchema.parse({})).toEqual({});
  });

  it('refuses a malformed outpoint and an unknown key, naming the field', () => {
    const bad = OriginFactsFileSchema.safeParse({ reservedOutpoints: [`${A}-3`] });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]).toMatchObject({ path: ['reservedOutpoints', 0], message: 'expected an outpoint "<txid>:<vout>"' });
    expect(OriginFactsFileSchema.safeParse({ tipheight: 1 }).success).toBe(false);
  });
});
