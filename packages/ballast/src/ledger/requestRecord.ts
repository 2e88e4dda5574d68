/**
 * What a GET /requests/v3 record says about a finished request, for the ledger. Pure; no I/O.
 *
 * Sources:
 * - realized fees: `data.fees.actual` (docs/relay-contract.md "Full fee breakdown (`data.fees` in GET /requests/v3)":
 *   `actual` is computed at fill time; components `execution`, `swap`, `platform`, `app`, `sponsored`, each `usd`
 *   negative for a cost). The platform component is read under `platform`, else `service` / `relay` like the quote API.
 * - received amount: the Relay API's records (status record, request record, quote `details`) carry no delivered
 *   amount. Relay's published v3 record (`data.route.actual.destination.outputCurrency.amount`, destination base
 *   units) is read when present and the request is `success`; otherwise the caller falls back to the order's
 *   guaranteed `minimumAmount` and records that source.
 */
import { z } from 'zod';
import { DecimalString, parseUsdMicros, UintString } from '@ballast/protocol/core/units.ts';
import { COMPONENT_KEYS, FEE_COMPONENTS, type FeeComponent } from '../policy/feeBreakdown.ts';

/** Fee costs in micro-USD per component (positive = a cost; a rebate reads 0), see {@link feesFromComponents}. */
export type ComponentCosts = Record<FeeComponent, bigint>;

const UsdEntry = z.looseObject({ usd: DecimalString });
const FeesActual = z.looseObject({ fees: z.looseObject({ actual: z.record(z.string(), z.unknown()) }) });
const RouteActual = z.looseObject({
  route: z.looseObject({
    actual: z.looseObject({
      destination: z.looseObject({ outputCurrency: z.looseObject({ amount: UintString }) }),
    }),
  }),
});

/**
 * Reads costs from a component map keyed like `data.fees.actual` or `expandedPriceImpact` (`{usd}` per key).
 *
 * @param components object whose members hold `usd` decimal strings (negative = cost)
 * @returns micro-USD costs per component, or null when any of execution, swap, platform, app is missing or
 *   malformed (a partial breakdown would under-report; the caller then uses another source)
 */
export function feesFromComponents(components: Record<string, unknown>): ComponentCosts | null {
  const out = {} as ComponentCosts; // every key is set below or null is returned
  for (const c of FEE_COMPONENTS) {
    const key = COMPONENT_KEYS[c].find((k) => components[k] !== undefined);
    const parsed = key === undefined ? null : UsdEntry.safeParse(components[key]);
    if (!parsed?.success) return null;
    const micros = parseUsdMicros(parsed.data.usd);
    out[c] = micros < 0n ? -micros : 0n;
  }
  return out;
}

/**
 * Realized fees of a request record: `data.fees.actual`, when complete.
 *
 * @param data the record's `data` object (unknown shape until parsed here)
 * @returns micro-USD costs, or null when `data.fees.actual` is absent or incomplete
 */
export function actualFeesOf(data: unknown): ComponentCosts | null {
  const parsed = FeesActual.safeParse(data);
  return parsed.success ? feesFromComponents(parsed.data.fees.actual) : null;
}

/**
 * Output delivered by a filled request: `data.route.actual.destination.outputCurrency.amount` (destination base
 * units), or null when the record does not carry it.
 */
export function receivedAmountOf(data: unknown): bigint | null {
  const parsed = RouteActual.safeParse(data);
  return parsed.success ? BigInt(parsed.data.route.actual.destination.outputCurrency.amount) : null; // UintString checked digits
}
