/**
 * Lookups over a GET /chains document (spec "Chain object"): by protocol slug (`protocol.v2.chainId`), by
 * numeric id, the canonical depository of a chain, and every contract address a chain lists.
 */
import type { Chain, ChainsResponse } from '../relay/schemas.ts';
import { slugVmTypesFromChains, type SlugVmTypes } from '../protocol/vmTypes.ts';

/** Read-only index of a parsed GET /chains response. */
export interface ChainsIndex {
  /** Chain whose `protocol.v2.chainId` equals `slug` (first one if the document repeats a slug). */
  bySlug(slug: string): Chain | undefined;
  /** Chain whose numeric `id` equals `id`. */
  byId(id: number): Chain | undefined;
  /** Protocol slug → protocol VM type, for order-id hashing (spec verification 3). */
  readonly slugVmTypes: SlugVmTypes;
}

/**
 * Builds a {@link ChainsIndex}.
 *
 * @param chains parsed GET /chains response
 */
export function indexChains(chains: ChainsResponse): ChainsIndex {
  const slugs = new Map<string, Chain>();
  const ids = new Map<number, Chain>();
  for (const chain of chains.chains) {
    const slug = chain.protocol?.v2?.chainId;
    if (slug && !slugs.has(slug)) slugs.set(slug, chain);
    if (!ids.has(chain.id)) ids.set(chain.id, chain);
  }
  return {
    bySlug: (slug) => slugs.get(slug),
    byId: (id) => ids.get(id),
    slugVmTypes: slugVmTypesFromChains(chains),
  };
}

/**
 * The canonical depository of a chain, `protocol.v2.depository` of GET /chains (spec verification 4: never
 * taken from the quote alone).
 *
 * @returns the address, or undefined when the chain lists none
 */
export function depositoryOf(chain: Chain): string | undefined {
  const depository = chain.protocol?.v2?.depository;
  return depository ? depository : undefined;
}

/**
 * Approval spenders GET /chains lists for a chain: every address under `chain.contracts` (spec "Chain object":
 * erc20Router, approvalProxy, relayReceiver, ..., and nested groups such as `v3`) EXCEPT the generic multicall
 * contracts (`multicall3`, `multicaller`, `onlyOwnerMulticaller`, any key containing "multicall"): anyone can
 * make those call `transferFrom`, so an allowance to them can be drained by a stranger.
 *
 * @returns addresses as listed (not normalised), in document order
 */
export function contractAddresses(chain: Chain): string[] {
  const out: string[] = [];
  const walk = (value: unknown, key: string): void => {
    if (key.toLowerCase().includes('multicall')) return;
    if (typeof value === 'string') {
      if (value.length > 0) out.push(value);
    } else if (Array.isArray(value)) {
      value.forEach((v) => walk(v, key));
    } else if (value !== null && typeof value === 'object') {
      Object.entries(value).forEach(([k, v]) => walk(v, k));
    }
  };
  walk(chain.contracts ?? {}, '');
  return out;
}
