/**
 * `wallets.<name>.signer:` — where a wallet's key lives (docs/keys.md). `kind: key` (the default when `signer` is
 * absent) is the key on the host, in `privateKey` or `keyFile`; `kind: awsKms` is an asymmetric AWS KMS key that
 * never leaves KMS; `kind: remote` is a JSON-RPC remote signer for EVM wallets (web3signer, Clef: `eth_accounts`,
 * `eth_signTransaction`, `personal_sign`); `kind: turnkey` is a Turnkey private key or wallet account. A wallet
 * with a key service needs its `address`, which is checked at start against the service. Credentials are never
 * written in the file: AWS's come from the SDK's default provider chain, a bearer token and Turnkey's API key pair
 * from the environment as `${VAR}`.
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

const pemFile = (what: string) =>
  z
    .string({ error: `${what} must be the path of a PEM file` })
    .min(1, `${what} must be the path of a PEM file`)
    .describe(`path of the ${what} PEM file (relative paths resolve against the config file's directory)`);

/**
 * `signer: { kind: remote, url, token?, tls?, messageMethod?, timeoutMs? }`: a JSON-RPC remote signer holding an EVM
 * key (https://docs.web3signer.consensys.io/reference/api/json-rpc, Clef's eth_signTransaction). EVM wallets only.
 */
export const JsonRpcSignerSchema = z
  .strictObject({
    kind: z.literal('remote'),
    url: z
      .url({ protocol: /^https?$/, error: 'url must be the http(s) URL of the signer, e.g. https://signer.internal:9000' })
      .describe('URL of the JSON-RPC signer (web3signer eth1 mode, Clef, or any server with eth_signTransaction)'),
    token: z
      .string({ error: 'token must be a string; write it as ${SIGNER_TOKEN}' })
      .min(1, 'token must not be empty; write it as ${SIGNER_TOKEN}')
      .optional()
      .describe('bearer token sent as `Authorization: Bearer …`; write it as ${VAR}, never in the file'),
    tls: z
      .strictObject({
        certFile: pemFile('client certificate'),
        keyFile: pemFile('client key'),
        caFile: pemFile('CA certificate').optional(),
      })
      .optional()
      .describe('TLS client certificate (mutual TLS) and the CA that signed the server; https URLs only'),
    messageMethod: z
      .enum(['personal_sign', 'eth_sign'], { error: 'messageMethod must be personal_sign (Clef, geth) or eth_sign (web3signer)' })
      .default('personal_sign')
      .describe('the EIP-191 message method: personal_sign(data, address) or eth_sign(address, data); both sign the same bytes'),
    timeoutMs,
  })
  .refine((s) => s.tls === undefined || s.url.startsWith('https:'), {
    path: ['tls'],
    message: 'a TLS client certificate needs an https url',
  })
  .describe('a JSON-RPC remote signer for an EVM wallet (web3signer, Clef)');

const TURNKEY_ORG_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** `signer: { kind: turnkey, organizationId, signWith, apiPublicKey, apiPrivateKey, baseUrl?, timeoutMs? }`. */
export const TurnkeySignerSchema = z
  .strictObject({
    kind: z.literal('turnkey'),
    organizationId: z
      .string({ error: 'organizationId must be the Turnkey organization id (a UUID)' })
      .regex(TURNKEY_ORG_RE, 'organizationId must be the Turnkey organization id (a lower-case UUID)')
      .describe('Turnkey organization (or sub-organization) id that holds the key'),
    signWith: z
      .string({ error: 'signWith must be a Turnkey private key id or the wallet account address' })
      .min(1, 'signWith must be a Turnkey private key id or the wallet account address')
      .describe('Turnkey private key id, or the wallet account address (EVM 0x…, Solana base58, Bitcoin compressed public key hex)'),
    apiPublicKey: z
      .string({
        error: "apiPublicKey must be the API key's compressed P-256 public key (66 hex digits); write it as ${TURNKEY_API_PUBLIC_KEY}",
      })
      .regex(
        /^0[23][0-9a-fA-F]{64}$/,
        'apiPublicKey must be the compressed P-256 public key of the API key: 66 hex digits starting 02 or 03',
      )
      .describe("the API key's public key (compressed P-256, hex); write it as ${TURNKEY_API_PUBLIC_KEY}"),
    apiPrivateKey: z
      .string({ error: "apiPrivateKey must be the API key's P-256 private key (64 hex digits); write it as ${TURNKEY_API_PRIVATE_KEY}" })
      .regex(
        /^[0-9a-fA-F]{64}$/,
        'apiPrivateKey must be the P-256 private key of the API key: 64 hex digits; write it as ${TURNKEY_API_PRIVATE_KEY}',
      )
      .describe("the API key's private key (P-256, hex); write it as ${TURNKEY_API_PRIVATE_KEY}, never in the file"),
    baseUrl: z
      .url({ protocol: /^https?$/, error: 'baseUrl must be an http(s) URL' })
      .default('https://api.turnkey.com')
      .describe('Turnkey API base URL (default https://api.turnkey.com)'),
    timeoutMs,
  })
  .describe('a Turnkey private key or wallet account; the API key pair from the environment');

/** Where a wallet's key lives. */
export const SignerSchema = z
  .discriminatedUnion('kind', [KeySignerSchema, AwsKmsSignerSchema, JsonRpcSignerSchema, TurnkeySignerSchema], {
    error: (iss) =>
      iss.code === 'invalid_union'
        ? 'signer.kind must be one of key, awsKms, remote, turnkey'
        : 'signer must be { kind: key }, { kind: awsKms, keyId, … }, { kind: remote, url, … } or { kind: turnkey, organizationId, signWith, … }',
  })
  .describe('where the key lives: key (privateKey/keyFile on this host), awsKms, remote (JSON-RPC signer) or turnkey (docs/keys.md)');

/** A wallet's `signer:` as loaded. */
export type SignerConfig = z.output<typeof SignerSchema>;
/** `signer: { kind: awsKms, … }` as loaded. */
export type AwsKmsSignerConfig = z.output<typeof AwsKmsSignerSchema>;
/** `signer: { kind: remote, … }` as loaded. */
export type JsonRpcSignerConfig = z.output<typeof JsonRpcSignerSchema>;
/** `signer: { kind: turnkey, … }` as loaded. */
export type TurnkeySignerConfig = z.output<typeof TurnkeySignerSchema>;
/** A key service's `signer:` (every kind but `key`). */
export type RemoteSignerConfig = AwsKmsSignerConfig | JsonRpcSignerConfig | TurnkeySignerConfig;
