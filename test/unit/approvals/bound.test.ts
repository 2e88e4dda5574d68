import { describe, expect, it } from 'vitest';
import { boundEndsMismatch, boundEndsOf } from '../../../packages/ballast/src/approvals/bound.ts';

const EVM = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const SOL = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const text = (kind: string) =>
  JSON.stringify({
    kind,
    origin: { chain: 'alpha', chainId: 31001, wallet: 'treasury', address: EVM, currency: '0xusdc' },
    destination: { chain: 'solana', chainId: 792703809, wallet: 'vault', address: SOL, currency: 'mint' },
  });

describe('boundEndsOf', () => {
  it('reads the chain ids and addresses a v2 text binds', () => {
    expect(boundEndsOf(text('ballast-approval-request/v2'))).toEqual({
      origin: { chainId: 31001, address: EVM },
      destination: { chainId: 792703809, address: SOL },
    });
  });

  it('binds nothing for the v1 text, another kind, an end without an address, or text that is not JSON', () => {
    expect(boundEndsOf(text('ballast-approval-request/v1'))).toBeNull();
    expect(boundEndsOf(text('something-else/v2'))).toBeNull();
    expect(boundEndsOf(JSON.stringify({ kind: 'ballast-approval-request/v2', origin: { chainId: 1 }, destination: {} }))).toBeNull();
    expect(boundEndsOf('not json')).toBeNull();
  });
});

describe('boundEndsMismatch', () => {
  const approved = boundEndsOf(text('ballast-approval-request/v2'))!;

  it('matches the same ends, an EVM address in another checksum case included', () => {
    expect(boundEndsMismatch(approved, { ...approved, origin: { chainId: 31001, address: EVM.toLowerCase() } })).toBeNull();
  });

  it('names the side and both values when an address or a chain id differs; other addresses compare byte for byte', () => {
    expect(boundEndsMismatch(approved, { ...approved, destination: { chainId: 792703809, address: SOL.toLowerCase() } })).toBe(
      `the destination address is ${SOL.toLowerCase()} now, approved ${SOL}`,
    );
    expect(boundEndsMismatch(approved, { ...approved, origin: { chainId: 1, address: EVM } })).toBe(
      'the origin chain is 1 now, approved 31001',
    );
    expect(boundEndsMismatch(null, approved)).toMatch(/binds no addresses/);
  });
});
