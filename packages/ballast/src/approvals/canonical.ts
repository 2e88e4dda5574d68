/**
 * The canonical description of an approval request: the exact text an approver signs (docs/approvals.md
 * "What is signed"). JSON with object keys sorted by UTF-16 code unit (JavaScript's default sort), no
 * whitespace, amounts as decimal strings, times as integer milliseconds since the epoch. A `kind` field names the
 * format, so a signature over it cannot be mistaken for a signature over anything else. Pure.
 */
import type { FeeCaps } from '../policy/feePolicy.ts';

/**
 * The `kind` of every request body this version writes. v2 binds the chain ids and addresses of both ends; a v1
 * body (config names only) is no longer honoured: an open v1 request is closed `not_needed`.
 */
export const APPROVAL_REQUEST_KIND = 'ballast-approval-request/v2';

/** The `kind` of the first format, which named the ends by config names only. */
export const APPROVAL_REQUEST_KIND_V1 = 'ballast-approval-request/v1';

/** One end of the approved transfer: a configured holding. */
export interface ApprovalHolding {
  /** Config name of the chain. */
  chain: string;
  /** Config name of the wallet. */
  wallet: string;
  /** The currency's address on that chain, as configured. */
  currency: string;
}

/**
 * One end of the approved transfer as the money sees it: the chain's id and the address that pays (origin: the
 * wallet's address) or receives (destination: the recipient), besides the config names.
 */
export interface BoundHolding extends ApprovalHolding {
  /** The chain's id (Relay's `chainId`). */
  chainId: number;
  /** The origin wallet's address, or the destination recipient's address, as the quote names it. */
  address: string;
}

/**
 * The terms of a transfer as approvers and validators see them: the asset, both ends bound to chain ids and
 * addresses, `amountIn` (origin base units, decimal string), `amountUsd` (the quote's USD value, decimal string, or
 * null) and the fee caps in force for the route.
 */
export interface TransferTerms {
  asset: string;
  origin: BoundHolding;
  destination: BoundHolding;
  amountIn: string;
  amountUsd: string | null;
  maxFees: FeeCaps;
}

/**
 * What an approval request approves. `amountIn` is origin base units as a decimal string; `amountUsd` the
 * quote's `details.currencyIn.amountUsd` (USD decimal string) or null when the quote gave none; `maxFees` the
 * fee caps in force for the route (policy.maxFees with the route's overrides); times integer ms.
 */
export interface ApprovalRequestBody extends TransferTerms {
  kind: typeof APPROVAL_REQUEST_KIND;
  /** The request's id in the store (`approval_requests.id`). */
  id: number;
  /** The planner's reason for the transfer. */
  reason: string;
  createdAtMs: number;
  expiresAtMs: number;
}

/** A JSON value the canonical form accepts: no floats, no undefined inside arrays. */
type Json = string | number | boolean | null | Json[] | { [key: string]: Json | undefined };

/**
 * Canonical JSON of a value: keys sorted, no whitespace, `undefined` object members left out.
 *
 * @throws TypeError on a number that is not a safe integer, a bigint, or any other non-JSON value
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new TypeError(`canonical JSON holds integers only, got ${value}`);
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, Json | undefined>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  throw new TypeError(`canonical JSON cannot hold a ${typeof value}`);
}

/**
 * The text approvers sign for a request: {@link canonicalJson} of its body.
 *
 * @example
 * approvalMessage({ kind: 'ballast-approval-request/v2', id: 7, asset: 'USDC', ... })
 * // → '{"amountIn":"25000000000","amountUsd":"25000.00",...,"kind":"ballast-approval-request/v2",...}'
 */
export function approvalMessage(body: ApprovalRequestBody): string {
  return canonicalJson(body);
}
