/**
 * The canonical order of a sandbox quote (docs/relay-contract.md "protocol.v2" orderData), shaped like real quotes
 * (docs/design.md "Real orderData"; fixture `quote-v2-base-usdc-to-arbitrum-usdt.json` and the published lighter and
 * hyperliquid quotes): payment weight "1"; two refunds with `minimumAmount` "0" and the output deadline — one on
 * the origin chain in the payment currency, one on the destination chain in the output currency; `extraData`
 * of an EVM leg = that chain's v3 `erc20Router` left-padded to 32 bytes, of a non-EVM leg empty (`0x`); the
 * solver is the EVM solver and `solverChainId` an EVM chain (the origin when it is EVM). Pure.
 */
import type { Address, Hex } from 'viem';
import { bridgeOrderData } from '@ballast/protocol/protocol/quoteParts.ts';
import type { OrderData } from '../api/wire/orderData.ts';
import { routerExtraData, type SandboxChainTable } from './chainTable.ts';
import type { QuoteRoute } from './request.ts';
import { isEvmChain, vmTypeOf, type SandboxAnyChain } from './vmChains.ts';

/** `extraData` of an order leg on `chain`: the v3 router word on EVM, empty elsewhere. */
export function legExtraData(chain: SandboxAnyChain): Hex {
  return isEvmChain(chain) ? routerExtraData(chain) : '0x';
}

/**
 * The protocol slug of the chain the order names as the solver's: the origin when it is EVM, else the
 * destination when it is EVM, else the first EVM chain of the table (real non-EVM-origin orders name an EVM
 * chain, e.g. "base").
 *
 * @throws Error when no EVM chain exists (the sandbox always starts at least one)
 */
export function solverChainSlug(route: QuoteRoute, table: SandboxChainTable): string {
  if (isEvmChain(route.origin)) return route.origin.slug;
  if (isEvmChain(route.destination)) return route.destination.slug;
  const first = table[0];
  if (!first) throw new Error('the sandbox has no EVM chain to name as the solver chain');
  return first.slug;
}

/** Amounts and times of an order. Amounts in destination base units; deadline unix seconds. */
export interface OrderTerms {
  solver: Address;
  salt: Hex;
  minimumOut: bigint;
  expectedOut: bigint;
  deadlineSec: number;
}

/**
 * Builds the order of a route (the shared one-input bridge order, `@ballast/protocol` protocol/quoteParts.ts). The
 * origin refund pays `refundTo`, else `user` (as the documented quote without `refundTo` shows: both its refunds
 * name the user, although the service then refunds nothing automatically); the destination refund pays the same
 * when origin and destination share a VM, else the recipient (an origin-chain address cannot receive on the
 * destination chain).
 */
export function buildOrderData(route: QuoteRoute, table: SandboxChainTable, terms: OrderTerms): OrderData {
  const sameVm = vmTypeOf(route.origin) === vmTypeOf(route.destination);
  const refundTo = route.refundTo ?? route.user;
  return bridgeOrderData({
    solverChainId: solverChainSlug(route, table),
    solver: terms.solver,
    salt: terms.salt,
    origin: { slug: route.origin.slug, currency: route.currencyIn.address, extraData: legExtraData(route.origin) },
    destination: { slug: route.destination.slug, currency: route.currencyOut.address, extraData: legExtraData(route.destination) },
    amountIn: route.amountIn,
    refundTo: { origin: refundTo, destination: sameVm ? refundTo : route.recipient },
    recipient: route.recipient,
    expectedOut: terms.expectedOut,
    minimumOut: terms.minimumOut,
    deadlineSec: terms.deadlineSec,
  });
}
