/**
 * The `solanaTxTooLarge` fault (docs/relay-contract.md "Errors": `SOLANA_TX_TOO_LARGE`; "Limits": 1232 bytes,
 * `maxRouteLength` recommended 4 then 3, a single `includedOriginSwapSources` entry as the size-conservative option).
 * While it is set, a Solana-origin quote behaves as if the origin swap route added accounts and data to the deposit
 * transaction: each hop of the route (the request's `maxRouteLength`, 4 when absent; 1 with a single swap
 * source) adds {@link SIMULATED_HOP_BYTES} bytes on top of the measured deposit transaction, and the quote
 * is refused unless the request narrows the route as far as the fault demands. Pure.
 */
import { SandboxApiError } from './errors.ts';

/** Largest Solana transaction on the wire, bytes (docs/relay-contract.md "Limits"). */
export const SOLANA_TX_LIMIT_BYTES = 1232;
/**
 * Hops of the simulated origin route when the request does not limit them (docs/relay-contract.md "Limits": the first
 * recommendation).
 */
export const DEFAULT_ROUTE_HOPS = 4;
/** Bytes a simulated route adds per hop (accounts, lookup-table indexes and swap data). */
export const SIMULATED_HOP_BYTES = 400;

/**
 * How far a request must narrow the route for the deposit to fit while the fault is set: `maxRouteLength` at
 * most `fitsAtMaxRouteLength` (null: no route length fits), or (when `fitsWithSingleSource`) exactly one
 * `includedOriginSwapSources` entry.
 */
export interface SolanaTxTooLargeFault {
  fitsAtMaxRouteLength: number | null;
  fitsWithSingleSource: boolean;
}

/** The routing fields of a Solana-origin quote request, as the sandbox saw them (tests read the sequence). */
export interface SolanaRoutingRequest {
  maxRouteLength: number | null;
  includedOriginSwapSources: string[] | null;
  /** What the sandbox answered: `ok` or `SOLANA_TX_TOO_LARGE`. */
  outcome: 'ok' | 'SOLANA_TX_TOO_LARGE';
  /** The simulated wire size, bytes (the measured deposit transaction alone when the fault is off). */
  sizeBytes: number;
}

/**
 * Judges a Solana-origin request under the fault.
 *
 * @param request the request's routing fields
 * @param depositBytes measured wire size of the deposit transaction alone
 * @param fault the fault in force, or null (then only the measured size counts)
 * @returns what to record; `outcome` says whether the quote may be served
 */
export function judgeSolanaSize(
  request: { maxRouteLength?: number | undefined; includedOriginSwapSources?: string[] | undefined },
  depositBytes: number,
  fault: SolanaTxTooLargeFault | null,
): SolanaRoutingRequest {
  const maxRouteLength = request.maxRouteLength ?? null;
  const sources = request.includedOriginSwapSources ?? null;
  const seen = { maxRouteLength, includedOriginSwapSources: sources ? [...sources] : null };
  if (fault === null) {
    return { ...seen, outcome: depositBytes > SOLANA_TX_LIMIT_BYTES ? 'SOLANA_TX_TOO_LARGE' : 'ok', sizeBytes: depositBytes };
  }
  const singleSource = sources !== null && sources.length === 1;
  const fits =
    (fault.fitsWithSingleSource && singleSource) ||
    (fault.fitsAtMaxRouteLength !== null && maxRouteLength !== null && maxRouteLength <= fault.fitsAtMaxRouteLength);
  const hops = singleSource ? 1 : Math.max(1, maxRouteLength ?? DEFAULT_ROUTE_HOPS);
  const simulated = depositBytes + hops * SIMULATED_HOP_BYTES;
  // The fault decides; the reported size is kept on the side of the decision.
  const sizeBytes = fits ? Math.min(simulated, SOLANA_TX_LIMIT_BYTES) : Math.max(simulated, SOLANA_TX_LIMIT_BYTES + hops);
  return { ...seen, outcome: fits ? 'ok' : 'SOLANA_TX_TOO_LARGE', sizeBytes };
}

/**
 * The error answered for an oversized Solana deposit transaction (docs/relay-contract.md "Errors": the message reports the
 * measured size and the bytes over the limit).
 */
export function solanaTxTooLargeError(sizeBytes: number): SandboxApiError {
  const over = sizeBytes - SOLANA_TX_LIMIT_BYTES;
  return new SandboxApiError(
    400,
    'SOLANA_TX_TOO_LARGE',
    `Solana transaction too large: ${sizeBytes} bytes, ${over} bytes over the ${SOLANA_TX_LIMIT_BYTES}-byte limit; ` +
      'restrict routing (maxRouteLength, includedOriginSwapSources) or change the amount',
    `size=${sizeBytes}`,
  );
}
