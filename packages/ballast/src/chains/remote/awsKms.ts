/**
 * An AWS KMS asymmetric key as a signer ({@link RemoteKey}; docs/keys.md): `GetPublicKey` once, then `Sign` per signature, through
 * the AWS SDK's KMS client (`@aws-sdk/client-kms`) with credentials from the SDK's default provider chain (never
 * from the config file). Each request is bounded by `timeoutMs`, retried once by the SDK on a throttle or a server
 * error (a signature is neither stored nor sent before the caller verifies it, so asking again is harmless), and
 * reported to the observer. Refusals by the key's policy (`AccessDeniedException`, a disabled key) are final.
 *
 * https://docs.aws.amazon.com/kms/latest/APIReference/API_Sign.html,
 * https://docs.aws.amazon.com/kms/latest/APIReference/API_GetPublicKey.html
 */
import { createPublicKey } from 'node:crypto';
import type { KMSClient } from '@aws-sdk/client-kms';
import { base64url } from '@scure/base';
import type { RemoteKey, RemotePublicKey } from './remoteKey.ts';
import { outcomeOf, SignerError } from './signerError.ts';

/** `signer:` of a wallet whose key is in AWS KMS. */
export interface AwsKmsSignerSpec {
  kind: 'awsKms';
  /** Key id, key ARN, alias name (`alias/…`) or alias ARN. */
  keyId: string;
  /** AWS region; absent: the SDK's default (AWS_REGION, the profile). */
  region?: string | undefined;
  /** Endpoint URL override (a VPC endpoint, or a local endpoint in tests); absent: the region's public endpoint. */
  endpoint?: string | undefined;
  /** Bound of each request, ms. */
  timeoutMs: number;
}

/** Error names of the KMS API that are the key policy's answer, not a fault: final. */
const REFUSALS = new Set([
  'AccessDeniedException',
  'DisabledException',
  'KMSInvalidStateException',
  'InvalidKeyUsageException',
  'NotFoundException',
  'IncorrectKeyException',
  'UnsupportedOperationException',
  'ValidationException',
]);

/**
 * A KMS key for wallet `wallet`. No request is made until it is used.
 *
 * @param spec the wallet's `signer:` (src/config/walletSchema.ts)
 */
export function awsKmsKey(wallet: string, spec: AwsKmsSignerSpec): RemoteKey {
  // The SDK is loaded when the key is first used: a process without a KMS wallet never loads it.
  let sdk: Promise<{ client: KMSClient; kms: typeof import('@aws-sdk/client-kms') }> | undefined;
  const loadSdk = () =>
    (sdk ??= import('@aws-sdk/client-kms').then((kms) => ({
      kms,
      client: new kms.KMSClient({
        ...(spec.region ? { region: spec.region } : {}),
        ...(spec.endpoint ? { endpoint: spec.endpoint } : {}),
        maxAttempts: 2,
        requestHandler: { requestTimeout: spec.timeoutMs, connectionTimeout: spec.timeoutMs },
      }),
    })));
  let cached: Promise<RemotePublicKey> | undefined;
  const key: RemoteKey = {
    kind: 'awsKms',
    keyId: spec.keyId,
    observer: undefined,
    publicKey() {
      cached ??= call('GetPublicKey', async (abortSignal) => {
        const { client, kms } = await loadSdk();
        const out = await client.send(new kms.GetPublicKeyCommand({ KeyId: spec.keyId }), { abortSignal });
        if (!out.PublicKey) throw new SignerError('SIGNER_UNSUPPORTED', wallet, 'awsKms', 'GetPublicKey returned no public key');
        return publicKeyFromSpki(wallet, out.KeySpec ?? '', out.PublicKey);
      }).catch((error: unknown) => {
        cached = undefined; // asked again next time
        throw error;
      });
      return cached;
    },
    signDigest: (digest, accept) =>
      call('Sign', async (abortSignal) => {
        const { client, kms } = await loadSdk();
        const out = await client.send(
          new kms.SignCommand({ KeyId: spec.keyId, Message: digest, MessageType: 'DIGEST', SigningAlgorithm: 'ECDSA_SHA_256' }),
          { abortSignal },
        );
        return accept({ der: signatureOf(out.Signature) });
      }),
    signEd25519: (message, accept) =>
      call('Sign', async (abortSignal) => {
        const { client, kms } = await loadSdk();
        const out = await client.send(
          new kms.SignCommand({ KeyId: spec.keyId, Message: message, MessageType: 'RAW', SigningAlgorithm: 'ED25519_SHA_512' }),
          { abortSignal },
        );
        return accept(signatureOf(out.Signature));
      }),
  };

  function signatureOf(signature: Uint8Array | undefined): Uint8Array {
    if (!signature?.length) throw new SignerError('SIGNER_BAD_SIGNATURE', wallet, 'awsKms', 'Sign returned no signature');
    return signature;
  }

  async function call<T>(operation: string, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    await loadSdk(); // once per process, before the request's time starts
    const started = performance.now();
    try {
      const result = await run(AbortSignal.timeout(spec.timeoutMs * 2 + 500)); // both SDK attempts, then give up
      key.observer?.({ wallet, kind: 'awsKms', outcome: 'ok', seconds: (performance.now() - started) / 1000 });
      return result;
    } catch (error) {
      const mapped = mapError(wallet, operation, spec, error);
      key.observer?.({ wallet, kind: 'awsKms', outcome: outcomeOf(mapped), seconds: (performance.now() - started) / 1000 });
      throw mapped;
    }
  }
  return key;
}

function mapError(wallet: string, operation: string, spec: AwsKmsSignerSpec, error: unknown): SignerError {
  if (error instanceof SignerError) return error;
  const name = (error as { name?: string }).name ?? 'Error';
  const message = (error as { message?: string }).message ?? String(error);
  if (REFUSALS.has(name)) {
    return new SignerError('SIGNER_REFUSED', wallet, 'awsKms', `${operation} on key ${spec.keyId} refused: ${name}: ${message}`, {
      cause: error,
    });
  }
  return new SignerError('SIGNER_UNAVAILABLE', wallet, 'awsKms', `${operation} on key ${spec.keyId} failed: ${name}: ${message}`, {
    cause: error,
  });
}

/**
 * The public key in a DER SubjectPublicKeyInfo (RFC 5480 for secp256k1, RFC 8410 for Ed25519), decoded by
 * node:crypto.
 *
 * @throws SignerError `SIGNER_UNSUPPORTED` for a key spec Ballast does not sign with
 */
export function publicKeyFromSpki(wallet: string, keySpec: string, der: Uint8Array): RemotePublicKey {
  const jwk = createPublicKey({ key: Buffer.from(der), format: 'der', type: 'spki' }).export({ format: 'jwk' });
  if (keySpec === 'ECC_SECG_P256K1' && jwk.kty === 'EC' && jwk.crv === 'secp256k1' && jwk.x && jwk.y) {
    const point = new Uint8Array(65);
    point[0] = 4;
    point.set(base64url.decode(pad(jwk.x)), 1);
    point.set(base64url.decode(pad(jwk.y)), 33);
    return { curve: 'secp256k1', bytes: point };
  }
  if (keySpec === 'ECC_NIST_EDWARDS25519' && jwk.kty === 'OKP' && jwk.crv === 'Ed25519' && jwk.x) {
    return { curve: 'ed25519', bytes: base64url.decode(pad(jwk.x)) };
  }
  throw new SignerError(
    'SIGNER_UNSUPPORTED',
    wallet,
    'awsKms',
    `key spec ${keySpec || 'unknown'} cannot sign here: use ECC_SECG_P256K1 (EVM, Bitcoin p2wpkh) or ECC_NIST_EDWARDS25519 (Solana)`,
  );
}

function pad(b64url: string): string {
  return b64url + '='.repeat((4 - (b64url.length % 4)) % 4);
}
