/**
 * Parsing a Solana step item's `data` (relay-kit's shape): exact decoded values on a good item, and a message
 * naming the field on every bad shape.
 */
import { describe, expect, it } from 'vitest';
import { isSvmPublicKey, parseSvmStepData } from '../../../packages/ballast/src/verify/deposit/svmStepData.ts';

const USER = '27q8k7t3VAdZgeG679xpgmm9WD4g3EgVfNQaVgfGocPL';
const PROGRAM = '99vQwtBwYtrqqD9YSXbdum3KBdxPAVxYTaQ3cfnJSrN2';
const TABLE = 'Hm9fUgcn7qwDaiNTFiGh6pNtVATgnaRcmK6Bbx6EMZfP';

function item(overrides: Record<string, unknown> = {}, ix: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    instructions: [{ keys: [{ pubkey: USER, isSigner: true, isWritable: true }], programId: PROGRAM, data: '0d9eFF00', ...ix }],
    addressLookupTableAddresses: [TABLE],
    ...overrides,
  };
}

function errorOf(raw: unknown): string {
  const parsed = parseSvmStepData(raw);
  if (parsed.ok) throw new Error('expected a parse failure');
  return parsed.error;
}

describe('parseSvmStepData', () => {
  it('decodes instructions, keys and data bytes exactly', () => {
    const parsed = parseSvmStepData(item({ extra: 'kept out' }));
    expect(parsed).toEqual({
      ok: true,
      data: {
        instructions: [
          { programId: PROGRAM, keys: [{ pubkey: USER, isSigner: true, isWritable: true }], data: Uint8Array.of(0x0d, 0x9e, 0xff, 0x00) },
        ],
        addressLookupTableAddresses: [TABLE],
      },
    });
  });

  it('accepts empty instruction data and no lookup tables', () => {
    const parsed = parseSvmStepData({ instructions: [{ keys: [], programId: PROGRAM, data: '' }] });
    expect(parsed.ok && parsed.data.instructions[0]!.data.length).toBe(0);
    expect(parsed.ok && parsed.data.addressLookupTableAddresses).toEqual([]);
  });

  it.each([
    [
      'a pubkey that is not base58',
      item({}, { keys: [{ pubkey: '0OIl', isSigner: false, isWritable: false }] }),
      'instructions.0.keys.0.pubkey: expected a base58 Solana public key',
    ],
    [
      'a 31-byte pubkey',
      item({}, { programId: '1111111111111111111111111111111' }),
      'instructions.0.programId: expected a base58 Solana public key',
    ],
    ['data with 0x', item({}, { data: '0x0d9e' }), 'instructions.0.data: expected hex without 0x'],
    ['data of an odd length', item({}, { data: 'abc' }), 'instructions.0.data: expected hex without 0x'],
    [
      'a flag given as a string',
      item({}, { keys: [{ pubkey: USER, isSigner: 'true', isWritable: false }] }),
      'instructions.0.keys.0.isSigner',
    ],
    ['no instructions', item({ instructions: [] }), 'instructions:'],
    [
      'a bad lookup table address',
      item({ addressLookupTableAddresses: ['nope'] }),
      'addressLookupTableAddresses.0: expected a base58 Solana public key',
    ],
    ['an EVM transaction', { from: '0x00', to: '0x00', data: '0x', chainId: 1 }, 'instructions:'],
  ])('names the field of %s', (_name, raw, message) => {
    expect(errorOf(raw)).toContain(message);
  });
});

describe('isSvmPublicKey', () => {
  it('accepts 32-byte base58 keys and refuses the rest', () => {
    expect(isSvmPublicKey(USER)).toBe(true);
    expect(isSvmPublicKey('11111111111111111111111111111111')).toBe(true);
    expect(isSvmPublicKey('0x27q8')).toBe(false);
    expect(isSvmPublicKey(`${USER}1`)).toBe(false);
    expect(isSvmPublicKey('')).toBe(false);
  });
});
