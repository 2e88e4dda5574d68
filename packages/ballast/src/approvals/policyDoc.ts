/**
 * The approval policy as a signed document (docs/approvals.md "The approval policy"): the canonical text of
 * everything that decides who must sign what — approvers and their keys, thresholds and quorums (default, per asset,
 * per `policy.routes` entry), expiry, validators (URL, answer key, timeout; never the HMAC secret) and the address
 * book — chained to the digest of the policy it replaces. The daemon uses only a policy whose text carries a quorum
 * of the previous approved policy's approvers (src/approvals/policyChain.ts). Pure.
 */
import { getAddress, sha256, stringToBytes, type Hex } from 'viem';
import { z } from 'zod';
import type { ApprovalsConfig } from '../config/approvalsSchema.ts';
import type { RouteRule } from '../planner/types.ts';
import { canonicalJson } from './canonical.ts';
import { sameAddress } from './bound.ts';

/** The `kind` of every policy text: a signature over it cannot be taken for one over anything else. */
export const APPROVAL_POLICY_KIND = 'ballast-approval-policy/v1';

const EVM_ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

/** An EVM address in its EIP-55 form, anything else as it is: a case change in the config is no policy change. */
function canonicalKey(key: string): string {
  return EVM_ADDRESS_RE.test(key) ? getAddress(key) : key;
}

const Usd = z.string().regex(/^[0-9]+(\.[0-9]{1,6})?$/);
const Quorum = z.number().int().min(1);
const Rule = { aboveUsd: Usd.optional(), required: Quorum.optional() };

/** One address the policy lets money go to: a configured holding's chain and wallet, and its address there. */
const BookEntrySchema = z.strictObject({ chain: z.string(), chainId: z.number().int(), wallet: z.string(), address: z.string().min(1) });

/** The policy's content: what the approvers decide. */
const PolicyContentSchema = z.strictObject({
  approvers: z.record(z.string(), z.string().min(1)),
  aboveUsd: Usd,
  required: Quorum,
  expiresAfterSec: z.number().int().min(1),
  assets: z.record(z.string(), z.strictObject(Rule)).optional(),
  /** Every `policy.routes` entry in order (the first match wins), with its sign-off keys when it has any. */
  routes: z.array(z.strictObject({ from: z.string(), to: z.string(), asset: z.string().optional(), ...Rule })).optional(),
  validateAboveUsd: Usd.optional(),
  validators: z.record(z.string(), z.strictObject({ url: z.string(), key: z.string(), timeoutMs: z.number().int() })).optional(),
  addressBook: z.strictObject({ required: z.boolean(), addresses: z.array(BookEntrySchema) }),
});

/** The content of an approval policy (see the schema above). USD thresholds are decimal strings. */
export type ApprovalPolicyContent = z.output<typeof PolicyContentSchema>;

/** One address book entry. */
export type AddressBookEntry = z.output<typeof BookEntrySchema>;

const PolicyTextSchema = z.strictObject({
  kind: z.literal(APPROVAL_POLICY_KIND),
  previous: z
    .string()
    .regex(/^0x[0-9a-f]{64}$/)
    .nullable(),
  policy: PolicyContentSchema,
});

/** A parsed policy text: the digest of the policy it replaces (null: the first, bootstrapped one) and its content. */
export interface PolicyDocument {
  previous: Hex | null;
  policy: ApprovalPolicyContent;
}

/** The parts of the loaded config a policy is read from. */
export interface PolicySource {
  policy: { approvals?: ApprovalsConfig | undefined; routes?: readonly RouteRule[] | undefined };
  assets: Readonly<Record<string, ReadonlyArray<{ chain: string; chainId: number; wallet: string; address: string }>>>;
}

/**
 * The approval policy the config describes, or null when it has no `policy.approvals`. The address book is every
 * configured holding's address (deduplicated, sorted by chain then wallet); approver and validator keys in
 * canonical form.
 */
export function policyContentOf(config: PolicySource): ApprovalPolicyContent | null {
  const a = config.policy.approvals;
  if (!a) return null;
  const book = new Map<string, AddressBookEntry>();
  for (const entries of Object.values(config.assets)) {
    for (const e of entries) {
      const address = canonicalKey(e.address);
      book.set(`${e.chain}\u0000${e.wallet}`, { chain: e.chain, chainId: e.chainId, wallet: e.wallet, address });
    }
  }
  const addresses = [...book.entries()].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([, e]) => e);
  const routes = (config.policy.routes ?? []).map((r) => ({
    from: r.from,
    to: r.to,
    ...(r.asset !== undefined ? { asset: r.asset } : {}),
    ...(r.approvals?.aboveUsd !== undefined ? { aboveUsd: r.approvals.aboveUsd } : {}),
    ...(r.approvals?.required !== undefined ? { required: r.approvals.required } : {}),
  }));
  const validators = Object.entries(a.validators ?? {}).map(
    ([name, v]) => [name, { url: v.url, key: canonicalKey(v.key), timeoutMs: v.timeoutMs }] as const,
  );
  return {
    approvers: Object.fromEntries(Object.entries(a.approvers).map(([name, key]) => [name, canonicalKey(key)])),
    aboveUsd: a.aboveUsd,
    required: a.required,
    expiresAfterSec: a.expiresAfterSec,
    ...(a.assets && Object.keys(a.assets).length > 0 ? { assets: a.assets } : {}),
    ...(routes.length > 0 ? { routes } : {}),
    ...(a.validateAboveUsd !== undefined ? { validateAboveUsd: a.validateAboveUsd } : {}),
    ...(validators.length > 0 ? { validators: Object.fromEntries(validators) } : {}),
    addressBook: { required: a.addressBook === 'required', addresses },
  };
}

/**
 * The text approvers sign: canonical JSON (src/approvals/canonical.ts) of `{kind, previous, policy}`.
 *
 * @param previous the digest of the approved policy this one replaces; null for the first one (`ballast policy init`)
 */
export function policyText(content: ApprovalPolicyContent, previous: Hex | null): string {
  return canonicalJson({ kind: APPROVAL_POLICY_KIND, previous, policy: content });
}

/** A policy's digest: SHA-256 of the UTF-8 bytes of its text, 0x hex (FIPS 180-4). */
export function policyDigest(text: string): Hex {
  return sha256(stringToBytes(text));
}

/** Whether two contents are the same policy (their canonical JSON is equal). */
export function sameContent(a: ApprovalPolicyContent, b: ApprovalPolicyContent): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/**
 * Reads a stored policy text back.
 *
 * @returns the document, or null when the text is not a canonical policy text of this kind (a text that is not
 *   exactly its own canonical form is refused too: the digest must name one text only)
 */
export function parsePolicyText(text: string): PolicyDocument | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = PolicyTextSchema.safeParse(json);
  if (!parsed.success) return null;
  const doc = { previous: parsed.data.previous as Hex | null, policy: parsed.data.policy };
  return policyText(doc.policy, doc.previous) === text ? doc : null;
}

/**
 * Whether the policy lets money go to `address` on chain `chainId`: with `addressBook.required`, only to an address
 * in its book (EVM addresses compare without regard to case); without it, anywhere.
 */
export function addressBookAllows(policy: ApprovalPolicyContent, chainId: number, address: string): boolean {
  if (!policy.addressBook.required) return true;
  return policy.addressBook.addresses.some((e) => e.chainId === chainId && sameAddress(e.address, address));
}

/**
 * What a proposal changes, one line per top-level field that differs (approvers added, removed or re-keyed by
 * name), for the approvers to read before they sign; empty when the contents are the same.
 */
export function policyChanges(before: ApprovalPolicyContent, after: ApprovalPolicyContent): string[] {
  const lines: string[] = [];
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort() as Array<keyof ApprovalPolicyContent>;
  for (const key of keys) {
    const was = before[key] === undefined ? 'none' : canonicalJson(before[key]);
    const is = after[key] === undefined ? 'none' : canonicalJson(after[key]);
    if (was === is) continue;
    if (key === 'approvers') {
      for (const name of [...new Set([...Object.keys(before.approvers), ...Object.keys(after.approvers)])].sort()) {
        const a = before.approvers[name];
        const b = after.approvers[name];
        if (a === b) continue;
        lines.push(
          a === undefined
            ? `approver added: ${name} ${b}`
            : b === undefined
              ? `approver removed: ${name}`
              : `approver ${name}: key ${a} → ${b}`,
        );
      }
      continue;
    }
    lines.push(`${key}: ${was} → ${is}`);
  }
  return lines;
}
