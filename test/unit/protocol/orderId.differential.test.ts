/**
 * Differential test: Ballast's computeOrderId against the settlement SDK's getOrderId
 * (`@reservoir0x/relay-protocol-sdk@0.0.63`) on randomly generated orders covering every address family
 * Ballast hashes (EVM hex of random case, Hyperliquid hex, Solana base58, Bitcoin bech32 v0 / bech32m v1 and
 * legacy Base58Check P2PKH / P2SH).
 */
import { getOrderId } from '@reservoir0x/relay-protocol-sdk';
import { base58, bech32, bech32m, createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2';
import { getAddress, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { computeOrderId } from '../../../packages/protocol/src/protocol/orderId.ts';
import type { ProtocolVmType } from '../../../packages/protocol/src/protocol/vmTypes.ts';
import type { OrderData } from '../../../packages/protocol/src/relay/schemas.ts';
import { SeededRandom } from '../../fixtures/seededRandom.ts';

const SEED = 'ballast-order-id-differential-v1';
const CASES = 200;
const MAX_UINT256_BITS = 256;
const MAX_UINT32 = 2 ** 32 - 1;

// Only VM names that both implementations know, so the table type-checks against either.
type SharedVmType = 'ethereum-vm' | 'hyperliquid-vm' | 'solana-vm' | 'bitcoin-vm';
const VM_TYPES: Record<string, SharedVmType & ProtocolVmType> = {
  ethereum: 'ethereum-vm',
  base: 'ethereum-vm',
  arbitrum: 'ethereum-vm',
  hyperliquid: 'hyperliquid-vm',
  solana: 'solana-vm',
  bitcoin: 'bitcoin-vm',
};
const SLUGS = Object.keys(VM_TYPES);

function randomCaseHex(rng: SeededRandom, bytes: number): string {
  const hex = rng.hex(bytes).slice(2);
  return '0x' + [...hex].map((c) => (rng.bool() ? c.toUpperCase() : c)).join('');
}

const base58check = createBase58check(sha256);

function bitcoinAddress(rng: SeededRandom): string {
  const kind = rng.int(5);
  if (kind === 3) return base58check.encode(Uint8Array.from([0x00, ...rng.bytes(20)])); // P2PKH "1…"
  if (kind === 4) return base58check.encode(Uint8Array.from([0x05, ...rng.bytes(20)])); // P2SH "3…"
  if (kind === 0) return bech32.encode('bc', [0, ...bech32.toWords(rng.bytes(20))]); // P2WPKH
  if (kind === 1) return bech32.encode('bc', [0, ...bech32.toWords(rng.bytes(32))]); // P2WSH
  return bech32m.encode('bc', [1, ...bech32m.toWords(rng.bytes(32))]); // P2TR
}

function addressFor(rng: SeededRandom, slug: string): string {
  switch (VM_TYPES[slug]) {
    case 'ethereum-vm':
    case 'hyperliquid-vm':
      return randomCaseHex(rng, 20);
    case 'solana-vm':
      return base58.encode(rng.bytes(32));
    case 'bitcoin-vm':
      return bitcoinAddress(rng);
    default:
      throw new Error(`no generator for ${slug}`);
  }
}

function uint(rng: SeededRandom): string {
  // Mostly random widths, sometimes the extremes.
  const roll = rng.int(10);
  if (roll === 0) return '0';
  if (roll === 1) return ((1n << 256n) - 1n).toString();
  return rng.bigint(MAX_UINT256_BITS).toString();
}

function deadline(rng: SeededRandom): number {
  return rng.int(10) === 0 ? MAX_UINT32 : rng.int(MAX_UINT32 + 1);
}

function randomOrder(rng: SeededRandom): OrderData {
  const solverRaw = rng.hex(20);
  const outSlug = rng.pick(SLUGS);
  return {
    version: 'v1',
    solverChainId: rng.pick(SLUGS),
    // The solver is an EIP-712 `address`: viem requires lower case or a valid checksum there.
    solver: rng.bool() ? solverRaw : getAddress(solverRaw),
    salt: rng.hex(32),
    inputs: Array.from({ length: 1 + rng.int(2) }, () => {
      const paySlug = rng.pick(SLUGS);
      return {
        payment: { chainId: paySlug, currency: addressFor(rng, paySlug), amount: uint(rng), weight: uint(rng) },
        refunds: Array.from({ length: rng.int(4) }, () => {
          const slug = rng.pick(SLUGS);
          return {
            chainId: slug,
            recipient: addressFor(rng, slug),
            currency: addressFor(rng, slug),
            minimumAmount: uint(rng),
            deadline: deadline(rng),
            extraData: rng.hex(rng.int(65)),
          };
        }),
      };
    }),
    output: {
      chainId: outSlug,
      payments: Array.from({ length: 1 + rng.int(2) }, () => ({
        recipient: addressFor(rng, outSlug),
        currency: addressFor(rng, outSlug),
        minimumAmount: uint(rng),
        expectedAmount: uint(rng),
      })),
      calls: Array.from({ length: rng.int(3) }, () => rng.hex(rng.int(200))),
      deadline: deadline(rng),
      extraData: rng.hex(rng.int(65)),
    },
    fees: Array.from({ length: rng.int(3) }, () => {
      const recipientSlug = rng.pick(SLUGS);
      const currencySlug = rng.pick(SLUGS);
      return {
        recipientChainId: recipientSlug,
        recipient: addressFor(rng, recipientSlug),
        currencyChainId: currencySlug,
        currency: addressFor(rng, currencySlug),
        amount: uint(rng),
      };
    }),
  };
}

describe(`computeOrderId vs settlement SDK getOrderId (seed "${SEED}")`, () => {
  it(`agrees on ${CASES} random orders`, () => {
    const rng = new SeededRandom(SEED);
    const families = new Set<string>();
    const bitcoinKinds = new Set<string>();
    for (let i = 0; i < CASES; i++) {
      const order = randomOrder(rng);
      order.inputs.forEach((input) => input.refunds.forEach((r) => families.add(VM_TYPES[r.chainId]!)));
      for (const p of order.output.chainId === 'bitcoin' ? order.output.payments : []) bitcoinKinds.add(p.recipient.slice(0, 3));
      const ours: Hex = computeOrderId(order, VM_TYPES);
      const theirs = getOrderId(order, VM_TYPES);
      expect(ours, `case ${i}: ${JSON.stringify(order)}`).toBe(theirs.toLowerCase());
    }
    // The generator really exercised every address family.
    expect([...families].sort()).toEqual(['bitcoin-vm', 'ethereum-vm', 'hyperliquid-vm', 'solana-vm']);
    expect([...bitcoinKinds].map((k) => (k.startsWith('bc1') ? k : k[0])).sort()).toEqual(expect.arrayContaining(['1', '3', 'bc1']));
  });

  it('is not trivially equal: different random orders give different ids', () => {
    const rng = new SeededRandom(`${SEED}:distinct`);
    const ids = new Set(Array.from({ length: 20 }, () => computeOrderId(randomOrder(rng), VM_TYPES)));
    expect(ids.size).toBe(20);
  });
});
