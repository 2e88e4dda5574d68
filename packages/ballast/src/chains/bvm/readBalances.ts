/**
 * Bitcoin balances as the planner sees them. The Bitcoin balance of docs/relay-contract.md "POST /quote/v2" is
 * funded outputs − spent outputs − pending spent outputs, in satoshis, i.e. from Esplora's `/address/:a`:
 * `chain_stats.funded_txo_sum − chain_stats.spent_txo_sum − mempool_stats.spent_txo_sum` (unconfirmed incoming
 * outputs do not count, unconfirmed spends do). The planner is handed the *spendable* balance: that amount
 * minus `chains.<name>.minerFeeReserveSats`, floored at 0, so a transfer never plans away the coins that must
 * pay the deposit transaction's miner fee.
 *
 * All holdings are read at one tip: the tip hash is read before and after the address reads, and the read is
 * repeated (a few times at most) when a block arrived in between.
 */
import type { BalancesRead, Holding } from '../adapter.ts';
import { shortErrorMessage } from '../../core/errorMessage.ts';
import type { EsploraClient } from './esploraClient.ts';
import { AddressStatsSchema, HashTextSchema, HeightTextSchema, type EsploraAddressStats } from './esploraSchemas.ts';
import { checkEsploraNetwork } from './network.ts';
import type { BvmNetwork } from './wallet.ts';

/** Reads of the whole set tried before giving up because blocks keep arriving in between. */
export const BALANCE_READ_ATTEMPTS = 3;

/**
 * The Bitcoin balance (docs/relay-contract.md "POST /quote/v2") of one address, satoshis: confirmed funded − confirmed spent
 * − mempool spent. Can be negative only if the server's statistics are inconsistent.
 */
export function specBalanceSats(stats: EsploraAddressStats): bigint {
  return stats.chain_stats.funded_txo_sum - stats.chain_stats.spent_txo_sum - stats.mempool_stats.spent_txo_sum;
}

/**
 * What the planner may move, satoshis: {@link specBalanceSats} minus the miner-fee reserve, never below 0.
 *
 * @param reserveSats `chains.<name>.minerFeeReserveSats`
 */
export function spendableSats(stats: EsploraAddressStats, reserveSats: bigint): bigint {
  const left = specBalanceSats(stats) - reserveSats;
  return left > 0n ? left : 0n;
}

/** What {@link readBvmBalances} needs besides the client. */
export interface ReadBvmBalancesOptions {
  /** Config name of the chain. */
  name: string;
  network: BvmNetwork;
  /** The native currency id; any other currency is refused per holding. */
  nativeCurrency: string;
  /** Satoshis kept back for miner fees (`chains.<name>.minerFeeReserveSats`). */
  minerFeeReserveSats: bigint;
  /** Null when an address is a valid wallet address of this chain, else why not. */
  validateAddress(address: string): string | null;
}

type Amount = { amount: bigint } | { amount: null; error: string };

/**
 * Checks the server's network, then reads every holding at one tip.
 *
 * @returns `{ ok: true, atBlock, amounts }` (one entry per holding, spendable satoshis or that holding's error),
 *   or `{ ok: false, error }` when the network check or the tip read fails; never throws
 */
export async function readBvmBalances(
  esplora: EsploraClient,
  opts: ReadBvmBalancesOptions,
  holdings: readonly Holding[],
): Promise<BalancesRead> {
  try {
    await checkEsploraNetwork(esplora, opts.name, opts.network);
  } catch (error) {
    return { ok: false, error: shortErrorMessage(error) };
  }
  let lastMove = '';
  for (let attempt = 0; attempt < BALANCE_READ_ATTEMPTS; attempt++) {
    let before: string;
    let height: bigint;
    try {
      before = await esplora.getText('/blocks/tip/hash', HashTextSchema);
      height = await esplora.getText('/blocks/tip/height', HeightTextSchema);
    } catch (error) {
      return { ok: false, error: shortErrorMessage(error) };
    }
    const amounts = await readAmounts(esplora, opts, holdings);
    let after: string;
    try {
      after = await esplora.getText('/blocks/tip/hash', HashTextSchema);
    } catch (error) {
      return { ok: false, error: shortErrorMessage(error) };
    }
    if (after === before) return { ok: true, atBlock: height, amounts };
    lastMove = `${before} → ${after}`;
  }
  return {
    ok: false,
    error: `${esplora.at}: the tip moved during each of ${BALANCE_READ_ATTEMPTS} balance reads (last ${lastMove}); try again`,
  };
}

/** One amount per holding; each address read once. */
async function readAmounts(esplora: EsploraClient, opts: ReadBvmBalancesOptions, holdings: readonly Holding[]): Promise<Amount[]> {
  const byAddress = new Map<string, Promise<Amount>>();
  const readAddress = (address: string): Promise<Amount> => {
    let read = byAddress.get(address);
    if (!read) {
      read = esplora
        .getJson(`/address/${encodeURIComponent(address)}`, AddressStatsSchema)
        .then((stats): Amount => ({ amount: spendableSats(stats, opts.minerFeeReserveSats) }))
        .catch((error: unknown): Amount => ({ amount: null, error: shortErrorMessage(error) }));
      byAddress.set(address, read);
    }
    return read;
  };
  return Promise.all(
    holdings.map(async (h): Promise<Amount> => {
      if (h.currency !== opts.nativeCurrency) {
        return {
          amount: null,
          error: `currency ${h.currency} is not BTC (${opts.nativeCurrency}); Bitcoin has no tokens, chain ${opts.name} holds only BTC`,
        };
      }
      const invalid = opts.validateAddress(h.address);
      if (invalid !== null) return { amount: null, error: invalid };
      return readAddress(h.address);
    }),
  );
}
