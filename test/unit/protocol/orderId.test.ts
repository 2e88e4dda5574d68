import { getOrderId } from '@reservoir0x/relay-protocol-sdk';
import { describe, expect, it } from 'vitest';
import { computeOrderId, OrderIdError } from '../../../packages/protocol/src/protocol/orderId.ts';
import { slugVmTypesFromChains } from '../../../packages/protocol/src/protocol/vmTypes.ts';
import { OrderDataSchema, type OrderData } from '../../../packages/protocol/src/relay/schemas.ts';
import { offlineQuote } from '../../fixtures/offlineQuote.ts';
import { FIXTURE, loadChainsFixture, loadQuoteFixture, relayFixturesPresent } from '../../fixtures/relay.ts';

/**
 * Published settlement test vector (relayprotocol/relay-settlement packages/sdk/test/order.test.ts):
 * native ETH on Base → USDC on Solana, refunds on both chains, a mixed-case EVM refund recipient.
 */
const PUBLISHED_ORDER: OrderData = OrderDataSchema.parse({
  version: 'v1',
  solverChainId: 'base',
  solver: '0xfd073a9ccb34f8a13c466eb16dff990d6178a5ef',
  salt: '0x0ef19e8ac216cebd161d73425c0b1e1ae12f5a4d56fc54cddb4f9755c5e7b1b8',
  inputs: [
    {
      payment: {
        chainId: 'base',
        currency: '0x0000000000000000000000000000000000000000',
        amount: '100000000000000',
        weight: '1',
      },
      refunds: [
        {
          chainId: 'base',
          recipient: '0x8B5E4dB198FfC7f69f8F11F6592f682717dF1D92',
          currency: '0x0000000000000000000000000000000000000000',
          minimumAmount: '0',
          deadline: 1774878936,
          extraData: '0x000000000000000000000000b92fe925dc43a0ecde6c8b1a2709c170ec4fff4f',
        },
        {
          chainId: 'solana',
          recipient: '7EaP2zkxDLo86x4rnNwwLhB593PsbMva41dqfrfxhsb1',
          currency: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
          minimumAmount: '0',
          deadline: 1774878936,
          extraData: '0x',
        },
      ],
    },
  ],
  output: {
    chainId: 'solana',
    payments: [
      {
        recipient: '7EaP2zkxDLo86x4rnNwwLhB593PsbMva41dqfrfxhsb1',
        currency: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
        minimumAmount: '187151',
        expectedAmount: '196567',
      },
    ],
    calls: [],
    deadline: 1774878936,
    extraData: '0x',
  },
  fees: [],
});
const PUBLISHED_ORDER_ID = '0x67f44dc715059f196cd133e54e4bbe125773cb6d7053d24389fbda361f4c14d8';
const PUBLISHED_VM_TYPES = { base: 'ethereum-vm', bitcoin: 'bitcoin-vm', solana: 'solana-vm' } as const;

describe.skipIf(!relayFixturesPresent)('computeOrderId on the genuine quote', () => {
  it('reproduces the orderId of the genuine quote fixture from its orderData and /chains', () => {
    const quote = loadQuoteFixture();
    const v2 = quote.protocol!.v2!; // the fixture carries protocol.v2
    const id = computeOrderId(v2.orderData, slugVmTypesFromChains(loadChainsFixture()));
    expect(id).toBe(FIXTURE.orderId);
    expect(id).toBe(v2.orderId.toLowerCase());
  });
});

describe('computeOrderId', () => {
  it('agrees with the settlement SDK on the offline quote, whose orderId it carries', () => {
    const { quote, chains, facts } = offlineQuote();
    const v2 = quote.protocol!.v2!; // the offline quote is built with protocol data
    const vmTypes = slugVmTypesFromChains(chains);
    const id = computeOrderId(v2.orderData, vmTypes);
    // The SDK's types are narrower spellings of the same JSON shapes; same runtime data.
    expect(getOrderId(v2.orderData as Parameters<typeof getOrderId>[0], vmTypes as Parameters<typeof getOrderId>[1])).toBe(id);
    expect(id).toBe(facts.orderId);
  });

  it('reproduces the published settlement vector (Base native → Solana USDC)', () => {
    expect(computeOrderId(PUBLISHED_ORDER, PUBLISHED_VM_TYPES)).toBe(PUBLISHED_ORDER_ID);
  });

  it('changes when any hashed field changes (minimumAmount, recipient case is not a change)', () => {
    const base = computeOrderId(PUBLISHED_ORDER, PUBLISHED_VM_TYPES);
    const lowerRefund = structuredClone(PUBLISHED_ORDER);
    lowerRefund.inputs[0]!.refunds[0]!.recipient = lowerRefund.inputs[0]!.refunds[0]!.recipient.toLowerCase();
    expect(computeOrderId(lowerRefund, PUBLISHED_VM_TYPES)).toBe(base);

    const lessOut = structuredClone(PUBLISHED_ORDER);
    lessOut.output.payments[0]!.minimumAmount = '187150';
    expect(computeOrderId(lessOut, PUBLISHED_VM_TYPES)).not.toBe(base);
  });

  it('throws OrderIdError naming the path when a chain slug is not in /chains', () => {
    const { solana: _omitted, ...withoutSolana } = PUBLISHED_VM_TYPES;
    expect(() => computeOrderId(PUBLISHED_ORDER, withoutSolana)).toThrow(OrderIdError);
    expect(() => computeOrderId(PUBLISHED_ORDER, withoutSolana)).toThrow(/inputs\[0\]\.refunds\[1\]/);
  });

  it('throws OrderIdError when an address does not match its chain VM', () => {
    const bad = structuredClone(PUBLISHED_ORDER);
    bad.output.payments[0]!.recipient = '0x03508bb71268bba25ecacc8f620e01866650532c'; // EVM hex on Solana
    expect(() => computeOrderId(bad, PUBLISHED_VM_TYPES)).toThrow(/output\.payments\[0\]\.recipient/);
  });
});
