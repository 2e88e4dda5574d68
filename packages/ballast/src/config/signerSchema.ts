/**
 * `wallets.<name>.signer:` — where a wallet's key lives (docs/keys.md). `kind: key` (the default when `signer` is
 * absent) is the key on the host, in `privateKey` or `keyFile`; `kind: awsKms` is an asymmetric AWS KMS key that
 * never leaves KMS. A wallet with a key service needs its `address`, which is checked at start against the
 * service's public key. Credentials are never in the file: AWS's come from the SDK's default provider chain.
 */
import { z } from 'zod';

/** Default bound of one request to a key service, ms. */
export const DEFAULT_SIGNER_TIMEOUT_MS = 5_000;

const timeoutMs = z
  .number({ error: 'timeoutMs must be a whole number of milliseconds' })
  .int('timeoutMs must be a whole number of milliseconds')
  .min(100, 'timeoutMs must be at least 100')
  .max(60_000, 'timeoutMs must be at most 60000')
  .default(DEFAULT_SIGNER_TIMEOUT_MS)
  .describe('bound of each request to the key service, ms (default 5000); a slower answer fails the attempt before anything is sent');

/** `signer: { kind: key }`: the key on the host, in the wallet's `privateKey` or `keyFile`. */
const KeySignerSchema = z.strictObject({ kind: z.literal('key') }).describe('the key on this host: privateKey or keyFile');

/** `signer: { kind: awsKms, keyId, region?, endpoint?, timeoutMs? }`. */
export const AwsKmsSignerSchema = z
  .strictObject({
    kind: z.literal('awsKms'),
    keyId: z
      .string({ error: 'keyId must be the KMS key id, key ARN, alias name (alias/…) or alias ARN' })
      .min(1, 'keyId must not be empty')
      .describe('KMS key id, key ARN, alias name (alias/…) or alias ARN; ECC_SECG_P256K1 for evm and bvm, ECC_NIST_EDWARDS25519 for svm'),
    region: z
      .string({ error: 'region must be an AWS region such as eu-west-1' })
      .regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'region must be an AWS region such as eu-west-1')
      .optional()
      .describe("AWS region of the key; absent: the SDK's default (AWS_REGION or the profile)"),
    endpoint: z
      .url({ protocol: /^https?$/, error: 'endpoint must be an http(s) URL' })
      .optional()
      .describe("KMS endpoint override, e.g. a VPC endpoint (absent: the region's public endpoint)"),
    timeoutMs,
  })
  .describe('an AWS KMS asymmetric key; credentials from the AWS SDK default provider chain, never in this file');

/** Where a wallet's key lives. */
export const SignerSchema = z
  .discriminatedUnion('kind', [KeySignerSchema, AwsKmsSignerSchema], {
    error: (iss) =>
      iss.code === 'invalid_union'
        ? 'signer.kind must be one of key, awsKms'
        : 'signer must be { kind: key } or { kind: awsKms, keyId, … }',
  })
  .describe('where the key lives: key (privateKey/keyFile on this host) or awsKms (docs/keys.md)');

/** A wallet's `signer:` as loaded. */
export type SignerConfig = z.output<typeof SignerSchema>;
/** `signer: { kind: awsKms, … }` as loaded. */
export type AwsKmsSignerConfig = z.output<typeof AwsKmsSignerSchema>;
