/**
 * Fees as people read them, one labelled vocabulary for `history` and `report`: `quoted` is what the accepted quote
 * said (`transfers.fees_usd`, the fee policy's total with the origin cost estimate when known); `paid` is what the
 * ledger counts once the transfer settled (src/ledger/ledgerEntry.ts: the Relay fee components, from the request's
 * actual fees or else the quote's breakdown, plus the network cost the origin chain charged, in its native currency
 * and in USD). Rounded for people (src/cli/format.ts); `--json` and CSV keep every digit.
 */
import type { ComponentCosts } from '../ledger/requestRecord.ts';
import type { LedgerEntry } from '../ledger/ledgerEntry.ts';
import { formatNative, formatUsd, roundUsd } from './format.ts';

/** What a transfer's fees are read from. */
export interface FeeFacts {
  /** Micro-USD the accepted quote's fees came to; null when none was recorded. */
  quotedMicros: bigint | null;
  /** The ledger entry, once the transfer settled; null before (or for a transfer that never had one). */
  ledger: Pick<LedgerEntry, 'fees' | 'feesSource' | 'gasPaid' | 'gasDecimals' | 'gasUsdMicros' | 'totalFeesUsdMicros'> | null;
  /** The origin chain's native symbol (e.g. `ETH`), for the network cost; null when the store does not know it. */
  nativeSymbol: string | null;
  /** The origin chain's name, to say which native currency when its symbol is unknown. */
  originChain: string;
}

/** Sum of the Relay fee components, micro-USD. */
export function relayFeeMicros(fees: ComponentCosts): bigint {
  return fees.execution + fees.swap + fees.platform + fees.app;
}

/** A network cost: `0.0001211 ETH (0.24 USD)`; the USD part left out when no price was known. */
export function networkCost(
  gasPaid: bigint,
  decimals: number | null,
  symbol: string | null,
  chain: string,
  usdMicros: bigint | null,
): string {
  const native = formatNative(gasPaid, decimals, symbol ?? `${chain}-native`);
  return usdMicros === null ? native : `${native} (${formatUsd(usdMicros)})`;
}

/**
 * The fee lines of one transfer, quoted and paid side by side:
 *
 * ```
 * quoted 1.10 USD
 * paid 0.62 USD: Relay 0.60 USD, network 0.0001211 ETH (0.02 USD)
 * ```
 *
 * "paid" is `—` until the transfer has a ledger entry; its Relay part is marked `as quoted` when the API gave no
 * actual fees and the ledger took the quote's breakdown.
 */
export function feeLines(f: FeeFacts): string[] {
  const quoted = `quoted ${formatUsd(f.quotedMicros)}`;
  const l = f.ledger;
  if (!l) return [quoted, 'paid — (not settled)'];
  const relay = l.fees
    ? `Relay ${formatUsd(relayFeeMicros(l.fees))}${l.feesSource === 'quote_breakdown' ? ' as quoted' : ''}`
    : 'no Relay fee';
  const network =
    l.gasPaid === null
      ? 'network cost unknown'
      : `network ${networkCost(l.gasPaid, l.gasDecimals, f.nativeSymbol, f.originChain, l.gasUsdMicros)}`;
  return [quoted, `paid ${formatUsd(l.totalFeesUsdMicros)}: ${relay}, ${network}`];
}

/** The Relay fee components in one line, USD rounded: `execution 0.50, swap 0.05, platform 0.01, app 0.00`. */
export function componentLine(fees: ComponentCosts): string {
  return `execution ${roundUsd(fees.execution)}, swap ${roundUsd(fees.swap)}, platform ${roundUsd(fees.platform)}, app ${roundUsd(fees.app)}`;
}
