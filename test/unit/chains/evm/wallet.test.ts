/**
 * EVM signer construction from a raw key: the derived address of a published dev key, bytes and hex input
 * agreeing, and refusals of malformed and out-of-range keys.
 */
import { hexToBytes, recoverMessageAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { evmSignerFromKey } from '../../../../packages/ballast/src/chains/evm/wallet.ts';

/** Anvil's first dev key and its address: public test material. */
const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
/** secp256k1 group order n: the first invalid scalar. */
const CURVE_ORDER = '0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141';

describe('evmSignerFromKey', () => {
  it('derives the checksummed address from hex and from bytes, and the account signs for it', async () => {
    const fromHex = evmSignerFromKey(KEY);
    const fromBytes = evmSignerFromKey(hexToBytes(KEY));
    if (!fromHex.ok || !fromBytes.ok) throw new Error('expected both keys to load');
    expect(fromHex.signer.address).toBe(ADDRESS);
    expect(fromBytes.signer.address).toBe(ADDRESS);
    const signature = await fromBytes.signer.account.signMessage({ message: 'ballast' });
    expect(await recoverMessageAddress({ message: 'ballast', signature })).toBe(ADDRESS);
  });

  it.each([
    ['31 bytes', KEY.slice(0, -2), 'malformed'],
    ['no 0x', KEY.slice(2), 'malformed'],
    ['non-hex digit', `${KEY.slice(0, -1)}g`, 'malformed'],
    ['zero', `0x${'0'.repeat(64)}`, 'out-of-range'],
    ['the curve order', CURVE_ORDER, 'out-of-range'],
  ] as const)('refuses %s', (_name, key, reason) => {
    const r = evmSignerFromKey(key as `0x${string}`); // malformed on purpose
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toBe(reason);
    expect(r.problem).not.toContain(KEY.slice(4, 60));
  });

  it('refuses 33 bytes given as bytes', () => {
    const r = evmSignerFromKey(new Uint8Array(33).fill(1));
    expect(r).toMatchObject({ ok: false, reason: 'malformed' });
  });
});
