/**
 * The write-ahead record of a Bitcoin deposit and reading its spent outpoints back (from the record, else from
 * the raw transaction); the confirmations policy; and address validation against the configured network with
 * messages that say what the text is instead.
 */
import { Transaction } from 'bitcoinjs-lib';
import { describe, expect, it } from 'vitest';
import { bvmTxRecord, recordedInputs } from '../../../../packages/ballast/src/chains/bvm/txRecord.ts';
import { requiredConfirmations } from '../../../../packages/ballast/src/chains/bvm/txState.ts';
import { validateBvmAddress } from '../../../../packages/ballast/src/chains/bvm/validateAddress.ts';

const A = 'a1'.repeat(32);
const B = 'b2'.repeat(32);

/** A raw transaction spending A:0 and B:3 (unsigned, enough to read outpoints). */
function rawSpending(): string {
  const tx = new Transaction();
  tx.addInput(Buffer.from(A, 'hex').reverse(), 0);
  tx.addInput(Buffer.from(B, 'hex').reverse(), 3);
  tx.addOutput(Buffer.from('0014' + '11'.repeat(20), 'hex'), 1_000n);
  return tx.toHex();
}

describe('bvmTxRecord / recordedInputs', () => {
  it('records inputs, outputs, fee as a decimal string, vsize and order id, and reads the inputs back', () => {
    const request = bvmTxRecord(
      {
        txid: 'cc'.repeat(32),
        rawTx: '00',
        inputs: [`${A}:0`, `${B}:3`],
        outputs: ['bcrt1qx:100000', 'OP_RETURN:0'],
        feeSat: 2_000n,
        vsize: 250,
        orderId: null,
      },
      'bcrt1qours',
    );
    expect(request).toEqual({
      wallet: 'bcrt1qours',
      inputs: `${A}:0,${B}:3`,
      outputs: 'bcrt1qx:100000,OP_RETURN:0',
      fee: '2000',
      vsize: 250,
      orderId: null,
    });
    // Read back from JSON, as the store hands it over.
    const stored = JSON.parse(JSON.stringify(request)) as unknown; // widened from any, as the store types it
    expect(recordedInputs({ txHash: 'cc'.repeat(32), rawTx: '0x', request: stored })).toEqual([
      { txid: A, vout: 0 },
      { txid: B, vout: 3 },
    ]);
  });

  it('falls back to the raw transaction, and gives null when neither tells the inputs', () => {
    expect(recordedInputs({ txHash: 'x', rawTx: rawSpending(), request: { inputs: 'garbage' } })).toEqual([
      { txid: A, vout: 0 },
      { txid: B, vout: 3 },
    ]);
    expect(recordedInputs({ txHash: 'x', rawTx: '0x', request: null })).toBeNull();
    expect(recordedInputs({ txHash: 'x', rawTx: 'abcd', request: {} })).toBeNull();
    expect(recordedInputs({ txHash: 'x', rawTx: '', request: { inputs: `${A}:0,nope` } })).toBeNull();
  });
});

describe('requiredConfirmations', () => {
  const policy = { confirmations: 1, highValueConfirmations: 3, highValueSats: 1_000_000n, reorgDepth: 6 };
  it('uses the high-value count at or above the threshold and when the amount is unknown', () => {
    expect(requiredConfirmations(policy, 999_999n)).toBe(1);
    expect(requiredConfirmations(policy, 1_000_000n)).toBe(3);
    expect(requiredConfirmations(policy, undefined)).toBe(3);
  });
});

describe('validateBvmAddress', () => {
  it.each([
    ['bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', 'mainnet', null],
    ['bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr', 'mainnet', null],
    ['1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH', 'mainnet', null],
    ['tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl', 'testnet', null],
    [
      '0x03508bb71268bba25ecacc8f620e01866650532c',
      'mainnet',
      '0x03508bb71268bba25ecacc8f620e01866650532c is an EVM address, not a Bitcoin address; a Bitcoin mainnet address looks like bc1q… or bc1p…',
    ],
    [
      'tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl',
      'mainnet',
      'tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl is a Bitcoin testnet address, but the chain is on mainnet',
    ],
    [
      'BC1QCR8TE4KR609GCAWUTMRZA0J4XV80JY8Z306FYU',
      'mainnet',
      'BC1QCR8TE4KR609GCAWUTMRZA0J4XV80JY8Z306FYU is written in upper case; write the address in lower case',
    ],
    [
      'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyv',
      'mainnet',
      'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyv is not a valid Bitcoin mainnet address',
    ],
    ['11111111111111111111111111111111', 'mainnet', '11111111111111111111111111111111 is not a valid Bitcoin mainnet address'],
  ] as const)('%s on %s', (address, network, expected) => {
    expect(validateBvmAddress(address, network)).toBe(expected);
  });
});
