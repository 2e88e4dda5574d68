/**
 * A local AWS KMS endpoint: the documented JSON 1.1 wire protocol of the `GetPublicKey` and `Sign` operations
 * (POST / with `X-Amz-Target: TrentService.<Operation>`, `Content-Type: application/x-amz-json-1.1`, blobs as
 * base64, errors as HTTP 400 with `{__type, message}`; https://docs.aws.amazon.com/kms/latest/APIReference/), so
 * the real `@aws-sdk/client-kms` client can be pointed at it with `endpoint`. Keys live in memory:
 *
 * - `ECC_SECG_P256K1`: `Sign` with `MessageType: DIGEST` and `ECDSA_SHA_256` signs the 32-byte digest as given and
 *   returns a DER signature whose `s` is not normalized (high about half of the time, as KMS does);
 * - `ECC_NIST_EDWARDS25519`: `Sign` with `MessageType: RAW` and `ED25519_SHA_512` returns the 64-byte pure Ed25519
 *   signature (RFC 8032) of the message.
 *
 * `GetPublicKey` returns the DER SubjectPublicKeyInfo (RFC 5480 / RFC 8410). Faults per key let tests play a
 * compromised or failing service: a signature by another key, a corrupted one, a refusal by the key policy
 * (`AccessDeniedException`), a slow answer. Request signatures (SigV4) are not checked: the endpoint is loopback only.
 */
import { createPublicKey, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ed25519 } from '@noble/curves/ed25519';
import { secp256k1 } from '@noble/curves/secp256k1';
import { base64url } from '@scure/base';

/** The key specs this endpoint holds. */
export type KmsKeySpec = 'ECC_SECG_P256K1' | 'ECC_NIST_EDWARDS25519';

/** How a key misbehaves: `wrongKey` signs with another key, `corrupt` flips a bit, `deny` refuses, `slowMs` delays. */
export type KmsFault = { kind: 'wrongKey' } | { kind: 'corrupt' } | { kind: 'deny'; reason: string } | { kind: 'slowMs'; ms: number };

interface KmsKey {
  spec: KmsKeySpec;
  secret: Uint8Array;
  arn: string;
  fault?: KmsFault;
}

/** A running local KMS endpoint. */
export interface LocalKms {
  /** `http://127.0.0.1:<port>`: the client's `endpoint`. */
  url: string;
  /** The region its key ARNs name (the client's `region`). */
  region: string;
  /**
   * Adds a key and returns its id. `secret`: the secp256k1 private key (32 bytes) or Ed25519 seed (32 bytes) to
   * import; absent: a fresh random one.
   */
  createKey(spec: KmsKeySpec, secret?: Uint8Array): string;
  /** Sets (or clears, with undefined) the fault of a key. */
  setFault(keyId: string, fault: KmsFault | undefined): void;
  /** Sign requests answered so far, by key id. */
  signCount(keyId: string): number;
  close(): Promise<void>;
}

const REGION = 'us-east-1';
const ACCOUNT = '111122223333';

class KmsError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** DER SubjectPublicKeyInfo of a key, built by node:crypto from its JWK form. */
function spkiOf(key: KmsKey): Buffer {
  if (key.spec === 'ECC_NIST_EDWARDS25519') {
    const x = base64url.encode(ed25519.getPublicKey(key.secret)).replace(/=+$/, '');
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' }).export({ type: 'spki', format: 'der' });
  }
  const point = secp256k1.getPublicKey(key.secret, false); // 0x04 || x || y
  const b64 = (bytes: Uint8Array) => base64url.encode(bytes).replace(/=+$/, '');
  const jwk = { kty: 'EC', crv: 'secp256k1', x: b64(point.slice(1, 33)), y: b64(point.slice(33)) };
  return createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'der' });
}

function signWith(spec: KmsKeySpec, secret: Uint8Array, message: Uint8Array): Uint8Array {
  if (spec === 'ECC_NIST_EDWARDS25519') return ed25519.sign(message, secret);
  return secp256k1.sign(message, secret, { lowS: false }).toDERRawBytes();
}

/**
 * Starts the endpoint on a free loopback port.
 *
 * @returns the running endpoint; `close()` stops it
 */
export async function startLocalKms(): Promise<LocalKms> {
  const keys = new Map<string, KmsKey>();
  const counts = new Map<string, number>();
  const keyOf = (id: unknown): [string, KmsKey] => {
    const text = typeof id === 'string' ? id : '';
    const bare = text.startsWith('arn:') ? text.slice(text.lastIndexOf('/') + 1) : text;
    const key = keys.get(bare);
    if (!key) throw new KmsError('NotFoundException', `Key '${text}' does not exist`);
    return [bare, key];
  };
  const operations: Record<string, (body: Record<string, unknown>) => Promise<unknown>> = {
    GetPublicKey: async (body) => {
      const [, key] = keyOf(body.KeyId);
      const algorithms = key.spec === 'ECC_SECG_P256K1' ? ['ECDSA_SHA_256'] : ['ED25519_SHA_512', 'ED25519_PH_SHA_512'];
      return {
        KeyId: key.arn,
        PublicKey: spkiOf(key).toString('base64'),
        KeySpec: key.spec,
        CustomerMasterKeySpec: key.spec,
        KeyUsage: 'SIGN_VERIFY',
        SigningAlgorithms: algorithms,
      };
    },
    Sign: async (body) => {
      const [id, key] = keyOf(body.KeyId);
      const message = Buffer.from(typeof body.Message === 'string' ? body.Message : '', 'base64');
      const algorithm = body.SigningAlgorithm;
      const type = body.MessageType ?? 'RAW';
      if (key.spec === 'ECC_SECG_P256K1' && (algorithm !== 'ECDSA_SHA_256' || type !== 'DIGEST' || message.length !== 32))
        throw new KmsError('ValidationException', 'this endpoint signs secp256k1 keys with ECDSA_SHA_256 over a 32-byte DIGEST only');
      if (key.spec === 'ECC_NIST_EDWARDS25519' && (algorithm !== 'ED25519_SHA_512' || type !== 'RAW'))
        throw new KmsError('InvalidKeyUsageException', 'this endpoint signs Ed25519 keys with ED25519_SHA_512 over RAW messages only');
      const fault = key.fault;
      if (fault?.kind === 'deny') throw new KmsError('AccessDeniedException', fault.reason);
      if (fault?.kind === 'slowMs') await new Promise((r) => setTimeout(r, fault.ms));
      counts.set(id, (counts.get(id) ?? 0) + 1);
      const secret = fault?.kind === 'wrongKey' ? randomBytes(32) : key.secret;
      const signature = signWith(key.spec, secret, message);
      if (fault?.kind === 'corrupt') signature[signature.length - 2]! ^= 0x01;
      return { KeyId: key.arn, Signature: Buffer.from(signature).toString('base64'), SigningAlgorithm: algorithm };
    },
  };
  const server: Server = createServer((req, res) => void handle(req, res, operations));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    region: REGION,
    createKey(spec, secret) {
      const id = randomUUID();
      const bytes = secret ?? (spec === 'ECC_SECG_P256K1' ? secp256k1.utils.randomPrivateKey() : ed25519.utils.randomPrivateKey());
      keys.set(id, { spec, secret: bytes, arn: `arn:aws:kms:${REGION}:${ACCOUNT}:key/${id}` });
      return id;
    },
    setFault(keyId, fault) {
      const [, key] = keyOf(keyId);
      if (fault) key.fault = fault;
      else delete key.fault;
    },
    signCount: (keyId) => counts.get(keyId) ?? 0,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  operations: Record<string, (body: Record<string, unknown>) => Promise<unknown>>,
): Promise<void> {
  const reply = (status: number, body: unknown, type?: string) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', ...(type ? { 'x-amzn-errortype': type } : {}) });
    res.end(text);
  };
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const target = String(req.headers['x-amz-target'] ?? '');
    const op = target.startsWith('TrentService.') ? operations[target.slice('TrentService.'.length)] : undefined;
    if (req.method !== 'POST' || !op) throw new KmsError('UnknownOperationException', `unsupported operation ${target || '(none)'}`);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
    reply(200, await op(body));
  } catch (error) {
    const e = error instanceof KmsError ? error : new KmsError('KMSInternalException', (error as Error).message);
    reply(400, { __type: e.type, message: e.message }, e.type);
  }
}
