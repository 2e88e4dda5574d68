/**
 * The pure decisions of the approval gate (docs/approvals.md "What the gate guarantees"): which threshold and
 * quorum apply to an asset, whether a transfer's USD value needs sign-offs, whether the fee caps in force are no
 * looser than the approved ones, and how many distinct configured approvers validly signed a request. No I/O.
 */
import { parseUsdMicros } from '@ballast/protocol/core/units.ts';
import type { FeeCap, FeeCaps } from '../policy/feePolicy.ts';
import { FEE_COMPONENTS } from '../policy/feeBreakdown.ts';
import { verifyApproval } from './verify.ts';

/** `policy.approvals` as the gate reads it (src/config/approvalsSchema.ts). */
export interface ApprovalsPolicy {
  /** USD decimal string. */
  aboveUsd: string;
  required: number;
  /** Approver name → EVM address or base58 ed25519 public key. */
  approvers: Readonly<Record<string, string>>;
  expiresAfterSec: number;
  assets?: Readonly<Record<string, { aboveUsd?: string | undefined; required?: number | undefined }>> | undefined;
}

/** The threshold (USD decimal string) and quorum that apply to one asset. */
export interface ApprovalRule {
  aboveUsd: string;
  required: number;
}

/** A `policy.routes` entry's `approvals` keys (src/config/approvalsSchema.ts `RouteApprovalsSchema`). */
export interface RouteApprovalRule {
  aboveUsd?: string | undefined;
  required?: number | undefined;
}

/**
 * The rule for a transfer of `asset`: the matching `policy.routes` entry's `approvals` keys over its
 * `assets.<asset>` entry's keys over the defaults, key by key.
 *
 * @param route the matching route entry's `approvals` (src/planner/routes.ts `routeRuleFor`), if any
 * @example
 * approvalRuleFor({ aboveUsd: '10000', required: 2, ... , assets: { ETH: { aboveUsd: '5000' } } }, 'ETH', { required: 3 })
 * // → { aboveUsd: '5000', required: 3 }
 */
export function approvalRuleFor(policy: ApprovalsPolicy, asset: string, route?: RouteApprovalRule): ApprovalRule {
  const own = policy.assets && Object.hasOwn(policy.assets, asset) ? policy.assets[asset] : undefined;
  return {
    aboveUsd: route?.aboveUsd ?? own?.aboveUsd ?? policy.aboveUsd,
    required: route?.required ?? own?.required ?? policy.required,
  };
}

/**
 * Whether a transfer worth `amountUsd` needs sign-offs under `rule`: above the threshold, or of unknown value
 * (null: the quote gave no USD value; fail closed).
 *
 * @throws TypeError when `amountUsd` is not a decimal string
 */
export function needsApproval(rule: ApprovalRule, amountUsd: string | null): boolean {
  if (amountUsd === null) return true;
  return parseUsdMicros(amountUsd) > parseUsdMicros(rule.aboveUsd);
}

/**
 * Whether the caps in force (`current`) are no looser than the approved ones: every cap the approval had is set
 * now too, at most as high. A cap the approval did not have may be added.
 */
export function capsNotLooser(current: FeeCaps, approved: FeeCaps): boolean {
  if (!bpsWithin(current.totalBps, approved.totalBps) || !usdWithin(current.totalUsd, approved.totalUsd)) return false;
  for (const c of FEE_COMPONENTS) {
    const was: FeeCap | undefined = approved.components?.[c];
    const now: FeeCap | undefined = current.components?.[c];
    if (!bpsWithin(now?.bps, was?.bps) || !usdWithin(now?.usd, was?.usd)) return false;
  }
  return true;
}

function bpsWithin(now: number | undefined, was: number | undefined): boolean {
  return was === undefined || (now !== undefined && now <= was);
}

function usdWithin(now: string | undefined, was: string | undefined): boolean {
  return was === undefined || (now !== undefined && parseUsdMicros(now) <= parseUsdMicros(was));
}

/** One stored sign-off: who, and the signature they gave. */
export interface SignOff {
  approver: string;
  signature: string;
}

/**
 * The distinct approvers whose sign-offs on `message` verify against the keys configured now (an approver
 * removed from the config, or whose key changed, no longer counts), sorted by name.
 */
export async function validApprovers(
  approvers: Readonly<Record<string, string>>,
  message: string,
  signOffs: readonly SignOff[],
): Promise<string[]> {
  const valid = new Set<string>();
  for (const s of signOffs) {
    if (valid.has(s.approver)) continue;
    if ((await verifyApproval(approvers, s.approver, message, s.signature)).ok) valid.add(s.approver);
  }
  return [...valid].sort();
}

/** Whether `approved` distinct approvers reach the quorum `required`. */
export function quorumReached(approved: readonly string[], required: number): boolean {
  return new Set(approved).size >= required;
}

/** Whether a request expiring at `expiresAtMs` is still open at `nowMs` (it expires at that instant). */
export function isLive(expiresAtMs: number, nowMs: number): boolean {
  return nowMs < expiresAtMs;
}
