import { describe, expect, it } from 'vitest';
import { sameTxId } from '../../../packages/ballast/src/core/txId.ts';

describe('sameTxId', () => {
  it('compares hex ids case-insensitively, with or without 0x', () => {
    expect(sameTxId('0xABcd', '0xabCD')).toBe(true);
    expect(sameTxId('abcd', '0xABCD')).toBe(true);
    expect(sameTxId('0xabcd', '0xabce')).toBe(false);
  });

  it('compares base58 Solana signatures exactly', () => {
    const sig = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW';
    expect(sameTxId(sig, sig)).toBe(true);
    expect(sameTxId(sig, sig.toLowerCase())).toBe(false);
  });
});
