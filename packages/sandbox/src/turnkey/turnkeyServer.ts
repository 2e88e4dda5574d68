/**
 * A local Turnkey endpoint: the documented wire protocol of the three requests a Turnkey signer makes, so the real
 * `@turnkey/http` client (`TurnkeyClient` with an `ApiKeyStamper`) can be pointed at it with `baseUrl`. Every
 * request is an HTTP POST of a JSON body with an `X-Stamp` header (https://docs.turnkey.com/developer-reference/api-overview/stamps):
 * base64url of `{ publicKey, scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature }`, the signature a DER ECDSA P-256
 * SHA-256 signature (hex) over the exact body bytes by the API key whose compressed public key is `publicKey`.
 * A stamp that is missing, malformed, by an unknown key or not over this body is answered 401; a body for another
 * organization 403; errors carry Turnkey's JSON shape `{ code (gRPC status), message, details }`.
 *
 * - `POST /public/v1/query/get_private_key` `{ organizationId, privateKeyId }` → `{ privateKey: { privateKeyId,
 *   publicKey (hex; secp256k1 uncompressed, Ed25519 32 bytes), curve, addresses, … } }`
 *   (https://docs.turnkey.com/api-reference/queries/get-private-key);
 * - `POST /public/v1/query/list_wallet_accounts` `{ organizationId, walletId?, paginationOptions? }` → `{ accounts:
 *   [{ walletAccountId, walletId, curve, address, publicKey (secp256k1 compressed), addressFormat, … }] }`: each key
 *   is the one account of its own wallet (https://docs.turnkey.com/api-reference/queries/list-wallets-accounts);
 * - `POST /public/v1/submit/sign_raw_payload` `{ type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', timestampMs,
 *   organizationId, parameters: { signWith, payload (hex), encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction } }`
 *   → `{ activity: { id, status, result: { signRawPayloadResult: { r, s, v } } } }`
 *   (https://docs.turnkey.com/api-reference/activities/sign-raw-payload). secp256k1 keys sign the 32-byte payload
 *   as given (`HASH_FUNCTION_NO_OP`) with `s` not normalized (high about half of the time), r and s as 64 hex digits
 *   and v as `00`/`01`; Ed25519 keys sign the payload bytes per RFC 8032 (`HASH_FUNCTION_NOT_APPLICABLE`), r‖s being
 *   the 64-byte signature.
 *
 * `signWith` is a private key id or the key's address (EVM checksummed 0x address for secp256k1, base58 for
 * Ed25519). A fault makes the endpoint play a policy needing consensus, a rejection, a compromised key, a
 * corrupted answer or a slow one. Loopback only; keys live in memory.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ed25519 } from '@noble/curves/ed25519';
import { p256 } from '@noble/curves/nist';
import { secp256k1 } from '@noble/curves/secp256k1';
import { sha256 } from '@noble/hashes/sha2';
import { base58, base64url } from '@scure/base';
import { bytesToHex, publicKeyToAddress } from 'viem/utils';

/** The curves of the keys this endpoint holds. */
export type TurnkeyCurve = 'CURVE_SECP256K1' | 'CURVE_ED25519';

/**
 * How the endpoint misbehaves on `sign_raw_payload`: an activity left `ACTIVITY_STATUS_CONSENSUS_NEEDED` or
 * `ACTIVITY_STATUS_REJECTED` (nothing signed), a signature by another key, a corrupted one, an answer after `slowMs`.
 */
export type TurnkeyFault =
  { kind: 'consensusNeeded' } | { kind: 'rejected' } | { kind: 'wrongKey' } | { kind: 'corrupt' } | { slowMs: number };

/** A running local Turnkey endpoint. */
export interface LocalTurnkey {
  /** `http://127.0.0.1:<port>`: the client's `baseUrl`. */
  url: string;
  /** The one organization (a UUID). */
  organizationId: string;
  /** The API key registered in the organization (P-256): compressed public key, 66 hex digits; private key, 64. */
  apiKey: { publicKey: string; privateKey: string };
  /**
   * Adds a private key and returns its id (a UUID). `secret`: the secp256k1 private key or Ed25519 seed (32 bytes)
   * to import; absent: a fresh random one. The key also answers to its address.
   */
  createPrivateKey(curve: TurnkeyCurve, secret?: Uint8Array): string;
  /** Signatures made so far by a key (named by id or address). */
  signCount(idOrAddress: string): number;
  /** Sets (or clears, with undefined) the fault of every signature request. */
  setFault(fault: TurnkeyFault | undefined): void;
  close(): Promise<void>;
}

interface HeldKey {
  id: string;
  walletId: string;
  accountId: string;
  curve: TurnkeyCurve;
  secret: Uint8Array;
  address: string;
  signs: number;
  created: number;
}

/** A Turnkey error answer: HTTP status and gRPC status code. */
class TurnkeyFailure extends Error {
  constructor(
    readonly http: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const hex = (bytes: Uint8Array) => bytesToHex(bytes).slice(2);
const fromHex = (text: string) => Uint8Array.from(Buffer.from(text, 'hex'));
const HEX = /^(?:[0-9a-fA-F]{2})*$/;
const timestamp = (ms: number) => ({ seconds: String(Math.floor(ms / 1000)), nanos: String((ms % 1000) * 1_000_000) });

function publicKeyOf(key: HeldKey, compressed: boolean): Uint8Array {
  return key.curve === 'CURVE_ED25519' ? ed25519.getPublicKey(key.secret) : secp256k1.getPublicKey(key.secret, compressed);
}

/**
 * Starts the endpoint on a free loopback port with a fresh organization and API key.
 *
 * @returns the running endpoint; `close()` stops it
 */
export async function startLocalTurnkey(opts: { organizationId?: string } = {}): Promise<LocalTurnkey> {
  const organizationId = opts.organizationId ?? randomUUID();
  const apiSecret = p256.utils.randomPrivateKey();
  const apiKey = { publicKey: hex(p256.getPublicKey(apiSecret, true)), privateKey: hex(apiSecret) };
  const keys: HeldKey[] = [];
  let fault: TurnkeyFault | undefined;

  const find = (idOrAddress: unknown): HeldKey | undefined => {
    const text = typeof idOrAddress === 'string' ? idOrAddress : '';
    const evm = /^0x[0-9a-fA-F]{40}$/.test(text);
    return keys.find((k) => k.id === text || k.address === text || (evm && k.address.toLowerCase() === text.toLowerCase()));
  };
  const account = (key: HeldKey) => ({
    walletAccountId: key.accountId,
    organizationId,
    walletId: key.walletId,
    curve: key.curve,
    pathFormat: 'PATH_FORMAT_BIP32',
    path: key.curve === 'CURVE_ED25519' ? "m/44'/501'/0'/0'" : "m/44'/60'/0'/0/0",
    addressFormat: `ADDRESS_FORMAT_${key.curve === 'CURVE_ED25519' ? 'SOLANA' : 'ETHEREUM'}`, // Turnkey's enum, not an error code
    address: key.address,
    publicKey: hex(publicKeyOf(key, true)),
    createdAt: timestamp(key.created),
    updatedAt: timestamp(key.created),
  });

  const routes: Record<string, (body: Record<string, unknown>) => Promise<unknown>> = {
    '/public/v1/query/get_private_key': async (body) => {
      const key = keys.find((k) => k.id === body.privateKeyId);
      if (!key) throw new TurnkeyFailure(404, 5, `no private key found with ID ${String(body.privateKeyId)}`);
      return {
        privateKey: {
          privateKeyId: key.id,
          publicKey: hex(publicKeyOf(key, false)),
          privateKeyName: `key ${key.id.slice(0, 8)}`,
          curve: key.curve,
          addresses: [{ format: account(key).addressFormat, address: key.address }],
          privateKeyTags: [],
          createdAt: timestamp(key.created),
          updatedAt: timestamp(key.created),
          exported: false,
          imported: true,
        },
      };
    },
    '/public/v1/query/list_wallet_accounts': async (body) => {
      const page = (body.paginationOptions ?? {}) as { limit?: string; after?: string };
      const limit = Math.min(Math.max(Number(page.limit ?? '10') || 10, 1), 100);
      let list = keys.filter((k) => body.walletId === undefined || k.walletId === body.walletId);
      if (page.after !== undefined) list = list.slice(list.findIndex((k) => k.accountId === page.after) + 1);
      return { accounts: list.slice(0, limit).map(account) };
    },
    '/public/v1/submit/sign_raw_payload': async (body) => {
      if (body.type !== 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2')
        throw new TurnkeyFailure(400, 3, `unsupported activity type ${String(body.type)}`);
      const ts = Number(body.timestampMs);
      if (typeof body.timestampMs !== 'string' || !Number.isSafeInteger(ts) || Math.abs(Date.now() - ts) > 3_600_000)
        throw new TurnkeyFailure(400, 3, 'timestampMs must be the request time in milliseconds, as a string');
      const params = (body.parameters ?? {}) as Record<string, unknown>;
      const key = find(params.signWith);
      if (!key) throw new TurnkeyFailure(404, 5, `no private key or wallet account found for signWith ${String(params.signWith)}`);
      const payloadHex = String(params.payload ?? '').replace(/^0x/, '');
      if (params.encoding !== 'PAYLOAD_ENCODING_HEXADECIMAL' || !HEX.test(payloadHex))
        throw new TurnkeyFailure(400, 3, 'this endpoint takes payloads with PAYLOAD_ENCODING_HEXADECIMAL only');
      const payload = fromHex(payloadHex);
      if (key.curve === 'CURVE_SECP256K1' && (params.hashFunction !== 'HASH_FUNCTION_NO_OP' || payload.length !== 32))
        throw new TurnkeyFailure(400, 3, 'this endpoint signs secp256k1 keys with HASH_FUNCTION_NO_OP over a 32-byte payload only');
      if (key.curve === 'CURVE_ED25519' && params.hashFunction !== 'HASH_FUNCTION_NOT_APPLICABLE')
        throw new TurnkeyFailure(400, 3, 'hashFunction must be HASH_FUNCTION_NOT_APPLICABLE for ed25519 keys');
      const now = fault; // the fault in force when the request arrived
      if (now && 'slowMs' in now) await new Promise((resolve) => setTimeout(resolve, now.slowMs));
      const activity = {
        id: randomUUID(),
        organizationId,
        type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
        intent: { signRawPayloadIntentV2: params },
        votes: [],
        fingerprint: `sha256:${hex(sha256(JSON.stringify(body)))}`,
        canApprove: false,
        canReject: false,
        createdAt: timestamp(Date.now()),
        updatedAt: timestamp(Date.now()),
      };
      if (now && 'kind' in now && (now.kind === 'consensusNeeded' || now.kind === 'rejected')) {
        const status = now.kind === 'rejected' ? 'ACTIVITY_STATUS_REJECTED' : 'ACTIVITY_STATUS_CONSENSUS_NEEDED';
        return { activity: { ...activity, status, result: {} } };
      }
      const secret =
        now && 'kind' in now && now.kind === 'wrongKey'
          ? key.curve === 'CURVE_ED25519'
            ? ed25519.utils.randomPrivateKey()
            : secp256k1.utils.randomPrivateKey()
          : key.secret;
      key.signs += 1;
      let r: Uint8Array, s: Uint8Array, v: string;
      if (key.curve === 'CURVE_ED25519') {
        const signature = ed25519.sign(payload, secret);
        [r, s, v] = [signature.slice(0, 32), signature.slice(32), '00'];
      } else {
        const signature = secp256k1.sign(payload, secret, { lowS: false }); // an HSM does not normalize s
        const compact = signature.toCompactRawBytes();
        [r, s, v] = [compact.slice(0, 32), compact.slice(32), signature.recovery === 1 ? '01' : '00'];
      }
      if (now && 'kind' in now && now.kind === 'corrupt') s[31]! ^= 0x01;
      return {
        activity: { ...activity, status: 'ACTIVITY_STATUS_COMPLETED', result: { signRawPayloadResult: { r: hex(r), s: hex(s), v } } },
      };
    },
  };

  /** Checks the `X-Stamp` header against the registered API key and the exact body. @throws TurnkeyFailure 401 */
  const checkStamp = (header: string | string[] | undefined, body: Buffer) => {
    let stamp: { publicKey?: unknown; scheme?: unknown; signature?: unknown };
    try {
      const text = Buffer.from(base64url.decode(String(header) + '='.repeat((4 - (String(header).length % 4)) % 4))).toString('utf8');
      stamp = JSON.parse(text) as typeof stamp;
    } catch {
      throw new TurnkeyFailure(401, 16, 'missing or malformed X-Stamp header');
    }
    if (stamp.scheme !== 'SIGNATURE_SCHEME_TK_API_P256')
      throw new TurnkeyFailure(401, 16, `unsupported stamp scheme ${String(stamp.scheme)}`);
    if (typeof stamp.publicKey !== 'string' || stamp.publicKey.toLowerCase() !== apiKey.publicKey)
      throw new TurnkeyFailure(401, 16, `could not find API key ${String(stamp.publicKey)} in organization ${organizationId}`);
    let valid = false;
    try {
      const signature = p256.Signature.fromDER(String(stamp.signature));
      valid = p256.verify(signature, sha256(body), apiKey.publicKey, { lowS: false, prehash: false });
    } catch {
      valid = false;
    }
    if (!valid) throw new TurnkeyFailure(401, 16, 'the stamp signature does not verify over the request body');
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const raw = Buffer.concat(chunks);
      const route = routes[new URL(req.url ?? '/', 'http://localhost').pathname];
      if (req.method !== 'POST' || !route) throw new TurnkeyFailure(404, 5, `no such endpoint: ${req.method} ${req.url}`);
      checkStamp(req.headers['x-stamp'], raw);
      const body = JSON.parse(raw.toString('utf8') || '{}') as Record<string, unknown>;
      if (body.organizationId !== organizationId)
        throw new TurnkeyFailure(403, 7, `API key is not authorized for organization ${String(body.organizationId)}`);
      const answer = await route(body);
      if (!res.destroyed) reply(200, answer);
    } catch (error) {
      const e = error instanceof TurnkeyFailure ? error : new TurnkeyFailure(500, 13, (error as Error).message);
      if (!res.destroyed) reply(e.http, { code: e.code, message: e.message, details: [] });
    }
  };

  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    organizationId,
    apiKey,
    createPrivateKey(curve, secret) {
      const bytes = secret ?? (curve === 'CURVE_SECP256K1' ? secp256k1.utils.randomPrivateKey() : ed25519.utils.randomPrivateKey());
      const address =
        curve === 'CURVE_ED25519'
          ? base58.encode(ed25519.getPublicKey(bytes))
          : publicKeyToAddress(bytesToHex(secp256k1.getPublicKey(bytes, false)));
      const key: HeldKey = {
        id: randomUUID(),
        walletId: randomUUID(),
        accountId: randomUUID(),
        curve,
        secret: bytes,
        address,
        signs: 0,
        created: Date.now(),
      };
      keys.push(key);
      return key.id;
    },
    signCount: (idOrAddress) => find(idOrAddress)?.signs ?? 0,
    setFault(next) {
      fault = next;
    },
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
