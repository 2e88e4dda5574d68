/**
 * The treasury's ERC-20 allowances to every contract GET /chains names (Ballast; docs/design.md "Approvals"): an
 * allowance left with a router or approval proxy can be spent by anyone, so an operator needs to see it and
 * revoke it. Reads only; signs nothing.
 */
import { getAddress, isAddressEqual, zeroAddress, type Address } from 'viem';
import { allowanceReaderOf, type AllowanceQuery } from '../chains/capabilities.ts';
import type { CycleContext } from '../cycle/context.ts';
import type { ChainsResponse } from '@ballast/protocol/relay/schemas.ts';
import { depositoryOf, indexChains, listedContracts } from '../verify/chainsIndex.ts';

/** One allowance of a configured wallet on a configured token to a contract GET /chains names. */
export interface AllowanceRow {
  chain: string;
  chainId: number;
  asset: string;
  token: Address;
  wallet: string;
  owner: Address;
  /** Where GET /chains names the spender, e.g. `contracts.v3.erc20Router` or `protocol.v2.depository`. */
  spenderName: string;
  spender: Address;
  /** Token base units; null when the read failed (`error` says why). */
  allowance: bigint | null;
  error?: string;
  /** True when the spender is not the chain's depository: anyone may be able to spend this allowance. */
  risky: boolean;
}

/**
 * Reads every (configured ERC-20 asset entry × contract GET /chains names for its chain) allowance, one
 * multicall per chain. Native entries and chains GET /chains does not list are left out; contracts listed
 * under several names are read once per name.
 *
 * @param ctx the wired runtime (chains and their clients, config assets)
 * @param chainsDoc a parsed GET /chains response
 * @returns every row read, in config order
 */
export async function listAllowances(ctx: Pick<CycleContext, 'config' | 'chains'>, chainsDoc: ChainsResponse): Promise<AllowanceRow[]> {
  const index = indexChains(chainsDoc);
  const perChain = new Map<string, { rows: AllowanceRow[]; queries: AllowanceQuery[] }>();
  for (const [asset, entries] of Object.entries(ctx.config.assets)) {
    for (const entry of entries) {
      const listed = index.byId(entry.chainId);
      if (!listed || listed.vmType !== 'evm') continue; // allowances exist on EVM chains only
      const token = getAddress(entry.currency);
      if (isAddressEqual(token, zeroAddress)) continue;
      const owner = getAddress(entry.address); // an EVM chain's wallet: config checked a checksummed address
      const depository = depositoryOf(listed);
      const bucket = perChain.get(entry.chain) ?? { rows: [], queries: [] };
      perChain.set(entry.chain, bucket);
      for (const contract of listedContracts(listed)) {
        if (!/^0x[0-9a-fA-F]{40}$/.test(contract.address)) continue;
        const spender = getAddress(contract.address);
        bucket.queries.push({ token, owner, spender });
        bucket.rows.push({
          chain: entry.chain,
          chainId: entry.chainId,
          asset,
          token,
          wallet: entry.wallet,
          owner,
          spenderName: contract.name,
          spender,
          allowance: null,
          risky: depository === undefined || !isAddressEqual(spender, getAddress(depository)),
        });
      }
    }
  }
  const out: AllowanceRow[] = [];
  for (const [chainName, { rows, queries }] of perChain) {
    const chain = ctx.chains.get(chainName);
    const reader = chain && allowanceReaderOf(chain);
    const results = reader
      ? await reader.readAllowances(queries)
      : queries.map(() => ({ amount: null, error: `chain ${chainName} is not an evm chain` }));
    rows.forEach((row, i) => {
      const r = results[i]!;
      out.push({ ...row, allowance: r.amount, ...(r.error ? { error: r.error } : {}) });
    });
  }
  return out;
}
