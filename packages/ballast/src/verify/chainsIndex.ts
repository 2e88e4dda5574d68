/**
 * Lookups over a GET /chains document (docs/relay-contract.md "Chain object"): by protocol slug (`protocol.v2.chainId`), by
 * numeric id, the canonical depository of a chain, and every contract address a chain lists.
 */
import type { Chain, ChainsResponse } from '@ballast/protocol/relay/schemas.ts';
import { slugVmTypesFromChains, type SlugVmTypes } from '@ballast/protocol/protocol/vmTypes.ts';

/** Read-only index of a parsed GET /chains response. */
export interface ChainsIndex {
  /** Chain whose `protocol.v2.chainId` equals `slug` (first one if the document repeats a slug). */
  bySlug(slug: string): Chain | undefined;
  /** Chain whose numeric `id` equals `id`. */
  byId(id: number): Chain | undefined;
  /** Protocol slug → protocol VM type, for order-id hashing (docs/relay-contract.md "Local quote verification" 3). */
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
 * The canonical depository of a chain, `protocol.v2.depository` of GET /chains (docs/relay-contract.md "Local quote
 * verification" 4: never taken from the quote alone).
 *
 * @returns the address, or undefined when the chain lists none
 */
export function depositoryOf(chain: Chain): string | undefined {
  const depository = chain.protocol?.v2?.depository;
  return depository ? depository : undefined;
}

/**
 * A contract address GET /chains names for a chain, with where it was named: a JavaScript-style path such as
 * `contracts.v3.erc20Router`, or `contracts["v3.2"].approvalProxy` for a key that is not a plain identifier.
 */
export interface ListedContract {
  name: string;
  address: string;
}

/** A key that can follow a dot in a path; any other (`v3.2`) is written in brackets so the path stays unambiguous. */
const IDENTIFIER_RE = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Every contract GET /chains names for a chain: each non-empty string under `chain.contracts` (docs/relay-contract.md "Chain
 * object": multicall3, multicaller, onlyOwnerMulticaller, relayReceiver, erc20Router, approvalProxy and the
 * nested `v3` group; since Router 3.2 also the `v3.2` group, docs/design.md "Router 3.2"; any other group is
 * walked the same way), then `protocol.v2.depository`. Addresses are returned as listed (not normalised), in
 * document order.
 */
export function listedContracts(chain: Chain): ListedContract[] {
  const out: ListedContract[] = [];
  const walk = (value: unknown, path: string): void => {
    if (typeof value === 'string') {
      if (value.length > 0) out.push({ name: path, address: value });
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => walk(v, `${path}[${i}]`));
    } else if (value !== null && typeof value === 'object') {
      Object.entries(value).forEach(([k, v]) => walk(v, IDENTIFIER_RE.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`));
    }
  };
  walk(chain.contracts ?? {}, 'contracts');
  const depository = depositoryOf(chain);
  if (depository) out.push({ name: 'protocol.v2.depository', address: depository });
  return out;
}
