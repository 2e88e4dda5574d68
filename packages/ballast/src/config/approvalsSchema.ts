/**
 * `policy.approvals:` — sign-offs required before a large transfer is signed (docs/approvals.md). A planned
 * transfer whose quoted USD value (`details.currencyIn.amountUsd`) is above `aboveUsd` waits until `required`
 * distinct approvers have signed its approval request with their own keys. Approver keys are an EVM address
 * (EIP-191 personal_sign) or a base58 ed25519 public key (Solana style). `assets.<asset>` overrides the threshold
 * and the quorum for one asset. Cross-field checks (asset names) are in checks.ts.
 */
import { z } from 'zod';
import { base58 } from '@scure/base';
import { NAME_RE } from './patterns.ts';

/** USD with at most 6 decimals, like the spending limits. */
const APPROVAL_USD_RE = /^[0-9]+(\.[0-9]{1,6})?$/;
const EVM_ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

/** Default lifetime of an approval request: 24 h. */
export const DEFAULT_APPROVAL_EXPIRY_SEC = 86_400;

/** A USD threshold named `name` in its messages. */
const usdThreshold = (name: string) =>
  z
    .string({ error: `write ${name} as a quoted USD decimal string, e.g. "10000"` })
    .regex(APPROVAL_USD_RE, `${name} must be a non-negative USD decimal string with at most 6 decimals, e.g. "10000"`);
const aboveUsd = usdThreshold('aboveUsd');

const required = z
  .number({ error: 'required must be a whole number of approvers (at least 1)' })
  .int('required must be a whole number of approvers (at least 1)')
  .min(1, 'required must be at least 1');

/** Whether `key` is a base58 string of exactly 32 bytes (an ed25519 public key). */
function isEd25519PublicKey(key: string): boolean {
  try {
    return base58.decode(key).length === 32;
  } catch {
    return false;
  }
}

/** One approver's public key: an EVM address, or a base58 ed25519 public key. */
const ApproverKeySchema = z
  .string({ error: 'an approver key must be an EVM address (0x + 40 hex digits) or a base58 ed25519 public key' })
  .refine(
    (key) => EVM_ADDRESS_RE.test(key) || isEd25519PublicKey(key),
    'expected an EVM address (0x + 40 hex digits) or a base58 ed25519 public key (32 bytes)',
  );

/** `policy.approvals.assets.<asset>`: the threshold and quorum for one asset. */
const AssetApprovalsSchema = z.strictObject({
  aboveUsd: aboveUsd.optional().describe("this asset's threshold, replacing policy.approvals.aboveUsd"),
  required: required.optional().describe("this asset's quorum, replacing policy.approvals.required"),
});

/**
 * `policy.routes[i].approvals`: the threshold and quorum on the routes the entry matches, over the asset's and the
 * defaults (needs `policy.approvals`; checks.ts).
 */
export const RouteApprovalsSchema = z
  .strictObject({
    aboveUsd: aboveUsd.optional().describe("threshold on this route, replacing the asset's and policy.approvals.aboveUsd"),
    required: required.optional().describe("quorum on this route, replacing the asset's and policy.approvals.required"),
  })
  .describe("sign-offs on this route (policy.approvals): aboveUsd and/or required over the asset's and the defaults");

/** Default time a validator has to answer, ms. */
export const DEFAULT_VALIDATOR_TIMEOUT_MS = 5_000;

/**
 * `policy.approvals.validators.<name>`: a service that can veto a transfer before it is signed (docs/approvals.md
 * "Validators"): Ballast POSTs the canonical validation request, HMAC-signed with `secret`, and needs an `allow`
 * signed with `key` within `timeoutMs`.
 */
const ValidatorSchema = z.strictObject({
  url: z
    .url({ protocol: /^https?$/, error: 'url must be an http(s) URL of the validator' })
    .describe('where the validation request is POSTed'),
  secret: z
    .string({ error: 'secret must be a string; use ${VALIDATOR_SECRET}' })
    .min(16, 'secret must be at least 16 characters (the HMAC-SHA256 key the validator verifies the request with)')
    .describe('HMAC-SHA256 key of the request signature (x-signature-sha256), as for notification webhooks'),
  key: ApproverKeySchema.describe("the validator's public key: its answers are signed with it (EVM address or base58 ed25519)"),
  timeoutMs: z
    .number({ error: 'timeoutMs must be a whole number of milliseconds' })
    .int('timeoutMs must be a whole number of milliseconds')
    .min(100, 'timeoutMs must be at least 100')
    .max(60_000, 'timeoutMs must be at most 60000')
    .default(DEFAULT_VALIDATOR_TIMEOUT_MS)
    .describe('an answer later than this is a veto (default 5000)'),
});

/** The `policy.approvals` section. */
export const ApprovalsSectionSchema = z
  .strictObject({
    aboveUsd: aboveUsd.describe('a transfer whose quoted USD value is above this waits for sign-offs before it is signed'),
    required: required.describe('distinct approvers whose valid signatures approve a request (at most the number of approvers)'),
    approvers: z
      .record(z.string().regex(NAME_RE, 'approver names are letters, digits, "_" and "-"'), ApproverKeySchema)
      .refine((a) => Object.keys(a).length > 0, 'list at least one approver: <name>: <EVM address or base58 ed25519 public key>')
      .describe('approver name → public key: an EVM address (EIP-191 signatures) or a base58 ed25519 public key'),
    expiresAfterSec: z
      .number({ error: 'expiresAfterSec must be a whole number of seconds' })
      .int('expiresAfterSec must be a whole number of seconds')
      .min(60, 'expiresAfterSec must be at least 60')
      .max(30 * 86_400, 'expiresAfterSec must be at most 2592000 (30 days)')
      .default(DEFAULT_APPROVAL_EXPIRY_SEC)
      .describe('an approval request (and every sign-off on it) is void this many seconds after it was created (default 86400)'),
    assets: z
      .record(z.string().regex(NAME_RE), AssetApprovalsSchema)
      .optional()
      .describe('per asset: aboveUsd and/or required replacing the defaults above'),
    validateAboveUsd: usdThreshold('validateAboveUsd')
      .optional()
      .describe('a transfer whose quoted USD value is above this is signed only after every validator allowed it'),
    validators: z
      .record(z.string().regex(NAME_RE, 'validator names are letters, digits, "_" and "-"'), ValidatorSchema)
      .optional()
      .describe('services that can veto a transfer above validateAboveUsd before it is signed'),
    addressBook: z
      .enum(['required', 'off'], { error: 'addressBook must be "required" or "off"' })
      .default('off')
      .describe("required: money goes only to the addresses in the approved policy's address book, whatever the amount"),
  })
  .superRefine((section, ctx) => {
    const count = Object.keys(section.approvers).length;
    const quorums: Array<[string[], number]> = [[['required'], section.required]];
    for (const [asset, own] of Object.entries(section.assets ?? {})) {
      if (own.required !== undefined) quorums.push([['assets', asset, 'required'], own.required]);
    }
    for (const [path, n] of quorums) {
      if (n > count) {
        ctx.addIssue({
          code: 'custom',
          path,
          message: `required ${n} is more than the ${count} approver(s) listed under policy.approvals.approvers; lower it or add approvers`,
        });
      }
    }
    const validators = Object.keys(section.validators ?? {}).length;
    if (validators > 0 !== (section.validateAboveUsd !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: validators > 0 ? ['validateAboveUsd'] : ['validators'],
        message:
          validators > 0
            ? 'validators are listed but validateAboveUsd is not set: set the USD value above which they must allow a transfer'
            : 'validateAboveUsd is set but no validator is listed under validators: list them or remove validateAboveUsd',
      });
    }
    const seen = new Map<string, string>();
    for (const [name, key] of Object.entries(section.approvers)) {
      const norm = EVM_ADDRESS_RE.test(key) ? key.toLowerCase() : key;
      const other = seen.get(norm);
      if (other !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['approvers', name],
          message: `the same key as approver "${other}": each approver needs their own key, or the quorum counts one person twice`,
        });
      }
      seen.set(norm, name);
    }
  })
  .describe('sign-offs by approvers before a transfer above a USD threshold is signed (docs/approvals.md)');

/** `policy.approvals` as loaded. */
export type ApprovalsConfig = z.output<typeof ApprovalsSectionSchema>;
