/**
 * Address lookup tables a Solana quote names (`data.addressLookupTableAddresses` of its step items), read on
 * chain: their contents are facts the verifier and the signer take from the chain, never from the quote.
 * All tables are read in one `getMultipleAccounts` round trip. A table that does not exist, is not owned by
 * the lookup-table program, does not decode, or is deactivated (it can no longer be used by a new
 * transaction) is left out, so the verifier refuses a quote that needs it (`tx-size`) and signing refuses too.
 */
import { AddressLookupTableAccount, AddressLookupTableProgram, PublicKey } from '@solana/web3.js';
import type { QuoteResponse } from '@ballast/protocol/relay/schemas.ts';
import { parseSvmStepData } from '../../verify/deposit/svmStepData.ts';
import { readAccounts } from './readBalances.ts';
import type { SvmFinality, SvmRpc } from './rpc.ts';

/** Table address → its addresses in order, base58 (`OriginChainFacts.lookupTables`). */
export type LookupTableContents = Record<string, string[]>;

/**
 * Every lookup table named by the quote's step items, in first-seen order, without repeats. Items whose
 * `data` is not Solana step data name none (the verifier refuses them). Pure.
 */
export function quoteLookupTableAddresses(quote: QuoteResponse): string[] {
  const named = new Set<string>();
  for (const step of quote.steps) {
    for (const item of step.items) {
      const parsed = parseSvmStepData(item.data);
      if (parsed.ok) for (const table of parsed.data.addressLookupTableAddresses) named.add(table);
    }
  }
  return [...named];
}

/**
 * Reads lookup tables.
 *
 * @param addresses table addresses, base58 (already validated as public keys)
 * @returns the usable tables found: address → contents; the others are absent (see the file comment)
 * @throws SvmRpcError on any node error
 */
export async function readLookupTables(rpc: SvmRpc, addresses: readonly string[], commitment: SvmFinality): Promise<LookupTableContents> {
  const out: LookupTableContents = {};
  if (addresses.length === 0) return out;
  const { accounts } = await readAccounts(rpc, addresses, commitment);
  for (const address of addresses) {
    const info = accounts.get(address);
    if (!info || !info.owner.equals(AddressLookupTableProgram.programId)) continue;
    let state: AddressLookupTableAccount['state'];
    try {
      state = AddressLookupTableAccount.deserialize(info.data);
    } catch {
      continue; // not a lookup table's layout: unusable, left out
    }
    const table = new AddressLookupTableAccount({ key: new PublicKey(address), state });
    if (!table.isActive()) continue;
    out[address] = state.addresses.map((a) => a.toBase58());
  }
  return out;
}
