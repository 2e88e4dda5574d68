/**
 * parseBvmPsbt: exact facts read back from PSBTs built with bitcoinjs (outpoints in explorer byte order,
 * values, scripts, OP_RETURN data, fee), problems instead of throws on text that is not a PSBT, and the
 * signed-size estimate checked against the same transactions really signed, finalized and extracted.
 */
import { type Psbt, type Transaction } from 'bitcoinjs-lib';
import { describe, expect, it } from 'vitest';
import {
  parseBvmPsbt,
  P2TR_KEY_PATH_WITNESS_WU,
  P2WPKH_WITNESS_WU,
  type ParsedBvmPsbt,
} from '../../../packages/ballast/src/verify/deposit/bvmPsbt.ts';
import { AMOUNT, buildPsbt, bvmCase, FEE, standardSpec, testWallet, UTXO_VALUES, type BvmCase } from '../../fixtures/bvmQuote.ts';

const WALLETS = [
  testWallet('p2wpkh', 'regtest'),
  testWallet('p2tr', 'regtest'),
  testWallet('p2wpkh', 'bitcoin'),
  testWallet('p2tr', 'bitcoin'),
];

function parsed(c: BvmCase, psbt: Psbt): ParsedBvmPsbt {
  const result = parseBvmPsbt(psbt.toHex(), c.wallet.network);
  if (!result.psbt) throw new Error(`expected a PSBT: ${result.problem}`);
  return result.psbt;
}

/** Signs every input with the wallet's key (SIGHASH_ALL / DEFAULT), finalizes and extracts. */
function signed(c: BvmCase, psbt: Psbt): Transaction {
  psbt.signAllInputs(c.wallet.signer);
  psbt.finalizeAllInputs();
  return psbt.extractTransaction();
}

describe.each(WALLETS.map((w) => [w.name, w] as const))('parseBvmPsbt, %s wallet', (_name, wallet) => {
  const c = bvmCase(wallet);

  it('reads outpoints, values, scripts, addresses, the OP_RETURN data and the fee exactly', () => {
    const p = parsed(c, buildPsbt(c, standardSpec(c)));
    expect(p.inputs.map((i) => [i.txid, i.vout, i.witnessUtxo?.value, i.kind, i.sighashType])).toEqual([
      ['a1'.repeat(32), 0, UTXO_VALUES[0], wallet.kind, null],
      ['b2'.repeat(32), 3, UTXO_VALUES[1], wallet.kind, null],
    ]);
    expect(p.inputs.every((i) => i.signedFields.length === 0 && i.scriptFields.length === 0)).toBe(true);
    expect(p.outputs.map((o) => [o.address, o.value, o.opReturn])).toEqual([
      [c.depository.address, AMOUNT, false],
      [undefined, 0n, true],
      [wallet.address, UTXO_VALUES[0] + UTXO_VALUES[1] - AMOUNT - FEE, false],
    ]);
    expect(new TextDecoder().decode(p.outputs[1]!.opReturnData!)).toBe(c.orderId);
    expect(p.feeSat).toBe(FEE);
    expect(p.inputTotalSat).toBe(140_000n);
  });

  it('estimates the signed vsize at or just above the real signed transaction', () => {
    const tx = signed(c, buildPsbt(c, standardSpec(c)));
    const estimate = parsed(c, buildPsbt(c, standardSpec(c))).size;
    if ('problem' in estimate) throw new Error(estimate.problem);
    expect(estimate.weight).toBeGreaterThanOrEqual(tx.weight());
    // Only a P2WPKH signature can come out shorter than the worst case (71 or 70 bytes instead of 72).
    const slackWu = wallet.kind === 'p2wpkh' ? 2 * 2 : 0;
    expect(estimate.weight - tx.weight()).toBeLessThanOrEqual(slackWu);
    expect(estimate.vsize).toBe(Math.ceil(estimate.weight / 4));
  });

  it('reports a signature already present', () => {
    const psbt = buildPsbt(c, standardSpec(c));
    psbt.signInput(0, wallet.signer);
    const p = parsed(c, psbt);
    expect(p.inputs[0]!.signedFields).toEqual([wallet.kind === 'p2wpkh' ? 'partialSig' : 'tapKeySig']);
    expect(p.inputs[1]!.signedFields).toEqual([]);
  });
});

describe('parseBvmPsbt on text that is not a PSBT', () => {
  const c = bvmCase(WALLETS[0]!);
  const good = buildPsbt(c, standardSpec(c)).toHex();

  it.each([
    ['empty text', '', 'not an even-length hex string'],
    ['odd-length hex', 'abc', 'not an even-length hex string'],
    ['non-hex text', 'zz', 'not an even-length hex string'],
    ['base64 instead of hex', Buffer.from(good, 'hex').toString('base64'), 'not an even-length hex string'],
    ['the published truncated prefix', '70736274ff0100fdb4010200000007d5', 'does not parse as a PSBT'],
    ['a PSBT missing its last byte', good.slice(0, -2), 'does not parse as a PSBT'],
    ['a bare transaction', '0200000000000000000000', 'does not parse as a PSBT'],
  ])('%s → a problem, no throw', (_what, text, problem) => {
    const result = parseBvmPsbt(text, c.wallet.network);
    expect(result.psbt).toBeUndefined();
    expect(result.problem).toContain(problem);
  });
});

describe('witness size figures', () => {
  it('are the BIP-141 byte counts of the two witness stacks', () => {
    expect(P2WPKH_WITNESS_WU).toBe(1 + 1 + 72 + 1 + 33);
    expect(P2TR_KEY_PATH_WITNESS_WU).toBe(1 + 1 + 64);
  });
});
