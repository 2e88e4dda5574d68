/**
 * Resolves a v0 message's address-table lookups against current account state the way the runtime does
 * (Agave `AddressLookupTable::lookup`): the table must exist, be owned by the lookup-table program, decode,
 * not be deactivated, and every index must point at an address that is already active (addresses appended
 * in the current slot become usable in the next one). Pure: state comes through `readAccount`.
 */
import { AddressLookupTableAccount, PublicKey, type VersionedMessage } from '@solana/web3.js';
import type { AccountState } from './tokenState.ts';
import type { TransactionErrorJson } from './txErrors.ts';

/** The address lookup table program. */
export const ADDRESS_LOOKUP_TABLE_PROGRAM_ID = 'AddressLookupTab1e1111111111111111111111111';
const NOT_DEACTIVATED = 2n ** 64n - 1n;

/** Resolved lookups: the tables (web3.js form) and the loaded addresses in message order. */
export interface ResolvedLookups {
  tables: AddressLookupTableAccount[];
  /** base58 addresses loaded as writable, then as readonly (the order of the message's account keys). */
  writable: string[];
  readonly: string[];
}

/**
 * Resolves every lookup of `message` (legacy messages have none).
 *
 * @param slot the slot the transaction executes in
 * @param recentSlots slots still in the SlotHashes sysvar (a table deactivated at one of them is still usable)
 * @returns the lookups, or the transaction error a validator reports
 */
export function resolveLookups(
  message: VersionedMessage,
  readAccount: (address: string) => AccountState | null,
  slot: number,
  recentSlots: ReadonlySet<number>,
): ResolvedLookups | { error: TransactionErrorJson } {
  const out: ResolvedLookups = { tables: [], writable: [], readonly: [] };
  for (const lookup of message.addressTableLookups) {
    const key = lookup.accountKey.toBase58();
    const state = readAccount(key);
    if (state === null) return { error: 'AddressLookupTableNotFound' };
    if (state.owner !== ADDRESS_LOOKUP_TABLE_PROGRAM_ID) return { error: 'InvalidAddressLookupTableOwner' };
    let table: AddressLookupTableAccount;
    try {
      table = new AddressLookupTableAccount({
        key: new PublicKey(key),
        state: AddressLookupTableAccount.deserialize(Uint8Array.from(state.data)),
      });
    } catch {
      return { error: 'InvalidAddressLookupTableData' };
    }
    const deactivation = table.state.deactivationSlot;
    if (deactivation !== NOT_DEACTIVATED && deactivation !== BigInt(slot) && !recentSlots.has(Number(deactivation))) {
      return { error: 'AddressLookupTableNotFound' };
    }
    const active = slot > table.state.lastExtendedSlot ? table.state.addresses.length : table.state.lastExtendedSlotStartIndex;
    const pick = (indexes: number[], into: string[]): boolean =>
      indexes.every((i) => {
        const address = i < active ? table.state.addresses[i] : undefined;
        if (address === undefined) return false;
        into.push(address.toBase58());
        return true;
      });
    if (!pick(lookup.writableIndexes, out.writable) || !pick(lookup.readonlyIndexes, out.readonly)) {
      return { error: 'InvalidAddressLookupTableIndex' };
    }
    out.tables.push(table);
  }
  // The message lists all writable loads of every table before any readonly one.
  return out;
}
