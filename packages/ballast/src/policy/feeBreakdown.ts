/**
 * Extraction of a quote's fee breakdown in micro-USD (docs/relay-contract.md "Full fee breakdown", "Fee components"):
 * `details.expandedPriceImpact` holds `{usd}` per component (`execution`, `swap`, platform, `app`,
 * `sponsored`), and `details.totalImpact.usd` the total value lost. Pure; no I/O.
 */
import { parseUsdMicros } from '@ballast/protocol/core/units.ts';
import type { QuoteDetails } from '@ballast/protocol/relay/schemas.ts';

/** Fee components Ballast caps (docs/relay-contract.md "Fee components"; `sponsored` is informational only). */
export type FeeComponent = 'execution' | 'swap' | 'platform' | 'app';

/** Components in reporting order. */
export const FEE_COMPONENTS: readonly FeeComponent[] = ['execution', 'swap', 'platform', 'app'];

/**
 * Keys under which each component may appear in `expandedPriceImpact`, first match wins. The platform
 * component is `platform` in GET /requests/v3, `service` in the documented quote API (docs/relay-contract.md "Full fee
 * breakdown"), and `relay` in live quotes.
 */
export const COMPONENT_KEYS: Readonly<Record<FeeComponent, readonly string[]>> = {
  execution: ['execution'],
  swap: ['swap'],
  platform: ['platform', 'service', 'relay'],
  app: ['app'],
};

/**
 * Costs of one quote, all positive micro-USD (1 USD = 1_000_000). A component's cost is `-usd` when its `usd`
 * is negative, else 0 (a positive value is a rebate). `totalMicros` is `-totalImpact.usd` (0 if positive), or
 * the sum of component costs when `totalImpact` is absent. `inputUsdMicros` is `currencyIn.amountUsd`.
 */
export interface FeeBreakdown {
  inputUsdMicros: bigint | null;
  components: Record<FeeComponent, bigint>;
  /** Portion subsidised by the integrator (`expandedPriceImpact.sponsored.usd`), informational. */
  sponsoredMicros: bigint;
  /**
   * The total cost. From {@link extractFees}: the API's own account (above). From the fee policy with an origin
   * cost (src/policy/feePolicy.ts): that plus `originCostMicros` when it is known.
   */
  totalMicros: bigint;
  /**
   * What the origin chain charges for the quote's transactions (miner fee, Solana fees, EVM gas estimate),
   * micro-USD, counted in `totalMicros`; null when it is unknown (then not counted); absent when the fee policy
   * was not given it. See src/policy/originCost.ts.
   */
  originCostMicros?: bigint | null;
}

/** A breakdown plus what the quote did not say, so a policy can fail closed. */
export interface ExtractedFees {
  breakdown: FeeBreakdown;
  /** False when `details.expandedPriceImpact` is absent. */
  hasComponents: boolean;
  /** Components with no entry in `expandedPriceImpact` (their cost reads 0 in `breakdown`). */
  missingComponents: FeeComponent[];
  /** False when neither `totalImpact` nor a complete `expandedPriceImpact` gives the total. */
  hasTotal: boolean;
}

function cost(usd: string): bigint {
  const micros = parseUsdMicros(usd);
  return micros < 0n ? -micros : 0n;
}

/**
 * Reads the fee breakdown of quote `details`.
 *
 * @param details parsed quote `details` (its USD fields are already checked decimal strings)
 * @returns costs in micro-USD and which parts were missing
 */
export function extractFees(details: QuoteDetails): ExtractedFees {
  const expanded = details.expandedPriceImpact;
  const components = { execution: 0n, swap: 0n, platform: 0n, app: 0n } satisfies Record<FeeComponent, bigint>;
  const missingComponents: FeeComponent[] = [];
  for (const component of FEE_COMPONENTS) {
    const key = COMPONENT_KEYS[component].find((k) => expanded !== undefined && Object.hasOwn(expanded, k));
    const entry = key !== undefined ? expanded?.[key] : undefined;
    if (entry) components[component] = cost(entry.usd);
    else missingComponents.push(component);
  }
  const sponsoredUsd = expanded?.['sponsored']?.usd;
  const sponsored = sponsoredUsd !== undefined ? parseUsdMicros(sponsoredUsd) : 0n;
  const componentSum = FEE_COMPONENTS.reduce((sum, c) => sum + components[c], 0n);
  const totalUsd = details.totalImpact?.usd;
  const amountUsd = details.currencyIn.amountUsd;
  return {
    breakdown: {
      inputUsdMicros: amountUsd !== undefined ? parseUsdMicros(amountUsd) : null,
      components,
      sponsoredMicros: sponsored > 0n ? sponsored : 0n,
      totalMicros: totalUsd !== undefined ? cost(totalUsd) : componentSum,
    },
    hasComponents: expanded !== undefined,
    missingComponents: expanded !== undefined ? missingComponents : [...FEE_COMPONENTS],
    hasTotal: totalUsd !== undefined || (expanded !== undefined && missingComponents.length === 0),
  };
}
