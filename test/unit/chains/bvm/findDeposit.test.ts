/**
 * Which Esplora transaction is an order's Bitcoin deposit (isOrderDeposit), on transactions written in
 * Esplora's JSON and parsed by the adapter's schema: the depository paid exactly the amount, the first
 * OP_RETURN carrying the order id, and the depositor being our wallet — the memo's `|depositor=` when present
 * (which overrides the first input), else the first input's address, compared by script.
 */
import { networks } from 'bitcoinjs-lib';
import { describe, expect, it } from 'vitest';
import { depositPattern, isOrderDeposit } from '../../../../packages/ballast/src/chains/bvm/findDeposit.ts';
import { TxSchema, type EsploraTx } from '../../../../packages/ballast/src/chains/bvm/esploraSchemas.ts';
import { depositoryFor, memoScript, strangerAddress, testWallet } from '../../../fixtures/bvmQuote.ts';

const ORDER = `0x${'5a'.repeat(32)}`;
const ours = testWallet('p2wpkh', 'regtest');
const stranger = strangerAddress(networks.regtest);
const depository = depositoryFor(networks.regtest);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const pattern = depositPattern({ depository: depository.address, orderId: ORDER, user: ours.address, amount: 100_000n });

/** An Esplora transaction: first input from `from`, outputs as given (script hex, sats). */
function esploraTx(from: Uint8Array, outputs: { script: Uint8Array; value: number }[]): EsploraTx {
  return TxSchema.parse({
    txid: 'ee'.repeat(32),
    vin: [{ txid: '11'.repeat(32), vout: 0, prevout: { scriptpubkey: hex(from), value: 500_000 }, is_coinbase: false }],
    vout: outputs.map((o) => ({ scriptpubkey: hex(o.script), value: o.value })),
    status: { confirmed: true, block_height: 7, block_hash: 'AB'.repeat(32) },
  });
}

const pay = (value = 100_000) => ({ script: depository.script, value });
const memo = (text: string) => ({ script: memoScript(text), value: 0 });

describe('isOrderDeposit', () => {
  it('matches our payment of the amount with the order memo, from our first input', () => {
    const tx = esploraTx(ours.script, [pay(), memo(ORDER), { script: ours.script, value: 1_000 }]);
    expect(tx.status).toEqual({ confirmed: true, block_height: 7, block_hash: 'ab'.repeat(32) }); // hashes lower-cased
    expect(isOrderDeposit(tx, pattern)).toBe(true);
    expect(isOrderDeposit(esploraTx(ours.script, [memo(ORDER.toUpperCase().replace('0X', '0x')), pay()]), pattern)).toBe(true);
  });

  it.each([
    ['another amount', esploraTx(ours.script, [pay(99_999), memo(ORDER)])],
    ['another order id', esploraTx(ours.script, [pay(), memo(`0x${'5b'.repeat(32)}`)])],
    ['no memo', esploraTx(ours.script, [pay()])],
    ['a memo that is not exactly an order id', esploraTx(ours.script, [pay(), memo(`${ORDER}!`)])],
    ['the order memo only in the second OP_RETURN', esploraTx(ours.script, [pay(), memo('hello'), memo(ORDER)])],
    ['another depositor (first input)', esploraTx(stranger.script, [pay(), memo(ORDER)])],
    ['our inputs but the memo names another depositor', esploraTx(ours.script, [pay(), memo(`${ORDER}|depositor=${stranger.address}`)])],
    ['the payment to someone else', esploraTx(ours.script, [{ script: stranger.script, value: 100_000 }, memo(ORDER)])],
  ])('does not match %s', (_name, tx) => {
    expect(isOrderDeposit(tx, pattern)).toBe(false);
  });

  it('credits the memo’s depositor over the first input, comparing scripts (any network rendering)', () => {
    expect(isOrderDeposit(esploraTx(stranger.script, [pay(), memo(`${ORDER}|depositor=${ours.address}`)]), pattern)).toBe(true);
    const mainnetForm = testWallet('p2wpkh', 'bitcoin').address; // the same key's program written for mainnet
    expect(isOrderDeposit(esploraTx(stranger.script, [pay(), memo(`${ORDER}|depositor=${mainnetForm}`)]), pattern)).toBe(true);
  });

  it('the pattern refuses a depository or user that is not a Bitcoin address', () => {
    expect(() => depositPattern({ depository: '0xabc', orderId: ORDER, user: ours.address, amount: 1n })).toThrow(/not a Bitcoin address/);
  });
});
