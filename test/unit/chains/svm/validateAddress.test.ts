/**
 * A Solana wallet address is the canonical base58 of a 32-byte key, case-sensitive; an EVM address is named as such.
 */
import { describe, expect, it } from 'vitest';
import { validateSvmAddress } from '../../../../packages/ballast/src/chains/svm/validateAddress.ts';

const GOOD = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';

describe('validateSvmAddress', () => {
  it('accepts base58 public keys, including the system program', () => {
    expect(validateSvmAddress(GOOD)).toBeNull();
    expect(validateSvmAddress('11111111111111111111111111111111')).toBeNull();
  });

  it('names an EVM address as one', () => {
    expect(validateSvmAddress('0x03508bb71268bba25ecacc8f620e01866650532c')).toMatch(
      /is an EVM address; a Solana address is the base58 text of a 32-byte public key/,
    );
  });

  it.each([
    ['a changed case', GOOD.toLowerCase()],
    ['a letter outside base58', `${GOOD.slice(0, -1)}0`],
    ['a short key', GOOD.slice(0, 20)],
    ['nothing', ''],
  ])('refuses %s', (_what, address) => {
    expect(validateSvmAddress(address)).toMatch(/^not a Solana address: .*case-sensitive\)$/);
  });
});
