/**
 * What an approval binds the money to (docs/approvals.md "What is signed"): the chain ids and addresses of both
 * ends, read back from the very text the approvers signed, and the comparison with the ends a planned transfer
 * resolves to now. A config edit that repoints a wallet (its key, its address) or a recipient changes the resolved
 * address, and the approval no longer covers the transfer. Pure.
 */
import { APPROVAL_REQUEST_KIND } from './canonical.ts';

/** One end as bound: chain id and address. */
export interface BoundEnd {
  chainId: number;
  address: string;
}

/** Both ends of a transfer as an approval binds them. */
export interface BoundEnds {
  origin: BoundEnd;
  destination: BoundEnd;
}

function endOf(value: unknown): BoundEnd | null {
  if (typeof value !== 'object' || value === null) return null;
  const { chainId, address } = value as { chainId?: unknown; address?: unknown }; // checked just below
  return Number.isSafeInteger(chainId) && typeof address === 'string' && address !== '' ? { chainId: chainId as number, address } : null;
}

/**
 * The ends a stored request's signed text binds, or null when it binds none: a text of another kind (the first
 * format, `ballast-approval-request/v1`, named config names only) or one that cannot be read.
 *
 * @param message the canonical text the approvers signed (`approval_requests.message`)
 */
export function boundEndsOf(message: string): BoundEnds | null {
  let body: unknown;
  try {
    body = JSON.parse(message);
  } catch {
    return null; // not the canonical JSON: binds nothing
  }
  if (typeof body !== 'object' || body === null || (body as { kind?: unknown }).kind !== APPROVAL_REQUEST_KIND) return null;
  const origin = endOf((body as { origin?: unknown }).origin);
  const destination = endOf((body as { destination?: unknown }).destination);
  return origin && destination ? { origin, destination } : null;
}

/** EVM addresses compare without regard to their checksum case; every other address byte for byte. */
export function sameAddress(a: string, b: string): boolean {
  const evm = /^0x[0-9a-fA-F]{40}$/;
  return evm.test(a) && evm.test(b) ? a.toLowerCase() === b.toLowerCase() : a === b;
}

/**
 * Why the ends a planned transfer resolves to now are not the approved ones, in one line, or null when they are.
 *
 * @param approved what the signed text binds ({@link boundEndsOf}); null: it binds no address (refused)
 * @param now the planned transfer's origin wallet address and destination recipient, with their chain ids
 */
export function boundEndsMismatch(approved: BoundEnds | null, now: BoundEnds): string | null {
  if (approved === null) return 'the signed text binds no addresses (an older approval format)';
  for (const side of ['origin', 'destination'] as const) {
    const was = approved[side];
    const is = now[side];
    if (was.chainId !== is.chainId) return `the ${side} chain is ${is.chainId} now, approved ${was.chainId}`;
    if (!sameAddress(was.address, is.address)) return `the ${side} address is ${is.address} now, approved ${was.address}`;
  }
  return null;
}
