/**
 * A Turnkey private key or wallet account as a signer ({@link RemoteKey}; docs/keys.md), through the Turnkey HTTP
 * client (`TurnkeyClient` of `@turnkey/http`) stamping every request with the wallet's API key (`ApiKeyStamper` of
 * `@turnkey/api-key-stamper`: the `X-Stamp` header, a P-256 signature over the exact body;
 * https://docs.turnkey.com/developer-reference/api-overview/stamps). The key's public half is read once:
 *
 * - `signWith` a private key id (a UUID): `POST /public/v1/query/get_private_key` `{ organizationId, privateKeyId }`
 *   → `privateKey.{ publicKey, curve }` (https://docs.turnkey.com/api-reference/queries/get-private-key);
 * - otherwise a wallet account address: `POST /public/v1/query/list_wallet_accounts` `{ organizationId,
 *   paginationOptions }` (no `walletId`: the organization's accounts), the account whose `address` it is →
 *   `{ publicKey, curve }` (https://docs.turnkey.com/api-reference/queries/list-wallets-accounts). The single-account
 *   query `get_wallet_account` needs the `walletId`, which the config does not name.
 *
 * Each signature is a `POST /public/v1/submit/sign_raw_payload` activity (`ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2`,
 * payload hex with `PAYLOAD_ENCODING_HEXADECIMAL`): secp256k1 over the 32-byte digest with `HASH_FUNCTION_NO_OP`,
 * Ed25519 over the message with `HASH_FUNCTION_NOT_APPLICABLE` (RFC 8032), answered with
 * `activity.result.signRawPayloadResult.{ r, s, v }` (hex; Ed25519's 64 bytes are r‖s; `v` is not trusted:
 * src/chains/remote/secpSignature.ts finds the recovery id) (https://docs.turnkey.com/api-reference/activities/sign-raw-payload).
 * An activity that is not `ACTIVITY_STATUS_COMPLETED` (consensus needed, rejected, failed) is the organization's
 * policy answering: final for the attempt. Each request is bounded by `timeoutMs`, asked once more when the service
 * was unavailable (a signature is neither stored nor sent before the caller verifies it, so asking again is
 * harmless), and reported to the observer.
 */
import { secp256k1 } from '@noble/curves/secp256k1';
import type { TurnkeyClient } from '@turnkey/http';
import type { RemoteKey, RemotePublicKey } from './remoteKey.ts';
import { outcomeOf, SignerError } from './signerError.ts';

/** `signer:` of a wallet whose key is in Turnkey. */
export interface TurnkeySignerSpec {
  kind: 'turnkey';
  /** Organization (or sub-organization) id holding the key, a UUID. */
  organizationId: string;
  /** Private key id (a UUID), or the wallet account's address (EVM 0x…, Solana base58, Bitcoin bech32). */
  signWith: string;
  /** The API key's compressed P-256 public key, 66 hex digits. */
  apiPublicKey: string;
  /** The API key's P-256 private key, 64 hex digits (from the environment, never written in the file). */
  apiPrivateKey: string;
  /** API base URL, e.g. https://api.turnkey.com. */
  baseUrl: string;
  /** Bound of each request, ms. */
  timeoutMs: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX = /^(?:0x)?((?:[0-9a-fA-F]{2})+)$/;
/** gRPC status codes of Turnkey's error body that are its answer, not a fault: invalid argument, not found, permission denied, failed precondition, unauthenticated. */
const REFUSED_CODES = new Set([3, 5, 7, 9, 16]);
const ACCOUNTS_PAGE = 100;

type Signature = { r: string; s: string };

/**
 * A Turnkey key for wallet `wallet`. No request is made until it is used.
 *
 * @param spec the wallet's `signer:` (src/config/signerSchema.ts)
 * @returns a {@link RemoteKey} of kind `turnkey` whose `keyId` is `signWith`; its methods throw {@link SignerError}:
 *   `SIGNER_UNAVAILABLE` (timeout, unreachable, server error: after one more attempt), `SIGNER_REFUSED` (HTTP
 *   401/403, an error about the API key or policy, an activity not completed, an unknown key), `SIGNER_BAD_SIGNATURE`
 *   (no or malformed r/s, or what `accept` refuses), `SIGNER_UNSUPPORTED` (a curve other than secp256k1 / Ed25519)
 */
export function turnkeyKey(wallet: string, spec: TurnkeySignerSpec): RemoteKey {
  // The SDK is loaded when the key is first used: a process without a Turnkey wallet never loads it.
  let sdk: Promise<{ client: TurnkeyClient; isRequestError: (e: unknown) => e is { code: number } }> | undefined;
  const loadSdk = () =>
    (sdk ??= Promise.all([import('@turnkey/http'), import('@turnkey/api-key-stamper')]).then(([http, stamper]) => ({
      client: new http.TurnkeyClient(
        { baseUrl: spec.baseUrl.replace(/\/+$/, '') },
        new stamper.ApiKeyStamper({ apiPublicKey: spec.apiPublicKey, apiPrivateKey: spec.apiPrivateKey }),
      ),
      isRequestError: (e: unknown): e is { code: number } => e instanceof http.TurnkeyRequestError,
    })));
  let isRequestError: (e: unknown) => e is { code: number } = (_e): _e is { code: number } => false;
  const withClient = async <T>(run: (client: TurnkeyClient) => Promise<T>): Promise<T> => {
    const loaded = await loadSdk();
    isRequestError = loaded.isRequestError;
    return run(loaded.client);
  };
  const organizationId = spec.organizationId;
  const fail = (code: SignerError['code'], detail: string, cause?: unknown) =>
    new SignerError(code, wallet, 'turnkey', detail, cause === undefined ? undefined : { cause });
  let cached: Promise<RemotePublicKey> | undefined;

  /**
   * One SDK request, bounded by `timeoutMs`. The SDK's client sends through its own fetch and takes no abort
   * signal, so the request is raced against a timer: on timeout it is abandoned (its answer, if any, is dropped).
   */
  function bounded<T>(operation: string, request: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(fail('SIGNER_UNAVAILABLE', `${operation} timed out after ${spec.timeoutMs} ms`)), spec.timeoutMs);
    });
    return Promise.race([request(), timeout])
      .catch((error: unknown) => {
        throw mapError(operation, error);
      })
      .finally(() => clearTimeout(timer));
  }

  /** Runs `request` (asked once more if the service was unavailable), then `accept`; reports the outcome. */
  async function call<A, T>(request: () => Promise<A>, accept: (answer: A) => T): Promise<T> {
    await withClient(async () => undefined); // the SDK once per process, before the request's time starts
    const started = performance.now();
    const report = (outcome: ReturnType<typeof outcomeOf>) =>
      key.observer?.({ wallet, kind: 'turnkey', outcome, seconds: (performance.now() - started) / 1000 });
    try {
      let answer: A;
      try {
        answer = await request();
      } catch (error) {
        if (!(error instanceof SignerError) || error.code !== 'SIGNER_UNAVAILABLE') throw error;
        answer = await request();
      }
      const result = accept(answer);
      report('ok');
      return result;
    } catch (error) {
      report(outcomeOf(error));
      throw error;
    }
  }

  function mapError(operation: string, error: unknown): SignerError {
    if (error instanceof SignerError) return error;
    const message = (error as { message?: string }).message ?? String(error);
    const status = /^(\d{3}) /.exec(message)?.[1]; // the SDK's error for a non-JSON error body: "<status> <text>"
    const refused =
      (isRequestError(error) && REFUSED_CODES.has(error.code)) ||
      status === '401' ||
      status === '403' ||
      /api key|polic|stamp|unauthori[sz]ed|permission|denied/i.test(message);
    const detail = `${operation} on ${spec.signWith} ${refused ? 'refused' : 'failed'}: ${message}`;
    return fail(refused ? 'SIGNER_REFUSED' : 'SIGNER_UNAVAILABLE', detail, error);
  }

  function publicKeyFrom(curve: string, publicKey: string | undefined): RemotePublicKey {
    const bytes = HEX.exec(publicKey ?? '')?.[1];
    if (curve === 'CURVE_SECP256K1' && bytes) {
      try {
        return { curve: 'secp256k1', bytes: secp256k1.ProjectivePoint.fromHex(bytes).toRawBytes(false) }; // compressed or not
      } catch {
        // not a point: refused below
      }
    }
    if (curve === 'CURVE_ED25519' && bytes?.length === 64) return { curve: 'ed25519', bytes: Uint8Array.from(Buffer.from(bytes, 'hex')) };
    if (curve === 'CURVE_SECP256K1' || curve === 'CURVE_ED25519') {
      throw fail('SIGNER_UNSUPPORTED', `the public key ${publicKey ?? '(none)'} of ${spec.signWith} is not a ${curve} key`);
    }
    throw fail(
      'SIGNER_UNSUPPORTED',
      `${spec.signWith} is a ${curve || 'unknown'} key: use CURVE_SECP256K1 (EVM, Bitcoin p2wpkh) or CURVE_ED25519 (Solana)`,
    );
  }

  async function readPublicKey(): Promise<RemotePublicKey> {
    if (UUID.test(spec.signWith)) {
      const out = await bounded('get_private_key', () =>
        withClient((client) => client.getPrivateKey({ organizationId, privateKeyId: spec.signWith })),
      );
      return publicKeyFrom(out.privateKey.curve, out.privateKey.publicKey);
    }
    const evm = /^0x[0-9a-fA-F]{40}$/.test(spec.signWith); // EVM addresses compare without their checksum case
    const same = (address: string) => address === spec.signWith || (evm && address.toLowerCase() === spec.signWith.toLowerCase());
    let after: string | undefined;
    for (;;) {
      const paginationOptions = { limit: String(ACCOUNTS_PAGE), ...(after ? { after } : {}) };
      const out = await bounded('list_wallet_accounts', () =>
        withClient((client) => client.getWalletAccounts({ organizationId, paginationOptions })),
      );
      const account = out.accounts.find((a) => same(a.address));
      if (account) return publicKeyFrom(account.curve, account.publicKey);
      if (out.accounts.length < ACCOUNTS_PAGE) break;
      after = out.accounts[out.accounts.length - 1]!.walletAccountId; // a full page has a last account
    }
    throw fail('SIGNER_REFUSED', `no wallet account with address ${spec.signWith} in organization ${organizationId}`);
  }

  function signRaw(payload: Uint8Array, hashFunction: 'HASH_FUNCTION_NO_OP' | 'HASH_FUNCTION_NOT_APPLICABLE'): () => Promise<Signature> {
    return async () => {
      const out = await bounded('sign_raw_payload', () =>
        withClient((client) =>
          client.signRawPayload({
            type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
            timestampMs: String(Date.now()),
            organizationId,
            parameters: {
              signWith: spec.signWith,
              payload: Buffer.from(payload).toString('hex'),
              encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
              hashFunction,
            },
          }),
        ),
      );
      const activity = out.activity;
      if (activity.status !== 'ACTIVITY_STATUS_COMPLETED') {
        const why = activity.failure?.message ? ` (${activity.failure.message})` : '';
        throw fail('SIGNER_REFUSED', `sign_raw_payload activity ${activity.id} is ${activity.status}${why}: nothing was signed`);
      }
      const result = activity.result.signRawPayloadResult;
      if (!result) throw fail('SIGNER_BAD_SIGNATURE', `sign_raw_payload activity ${activity.id} returned no signature`);
      return { r: result.r, s: result.s };
    };
  }

  /** The 32 bytes of a component given as up to 64 hex digits (leading zeros may be left out). @throws SignerError `SIGNER_BAD_SIGNATURE` */
  function component(name: string, text: string): Uint8Array {
    const digits = /^(?:0x)?([0-9a-fA-F]{1,64})$/.exec(text)?.[1];
    if (!digits) throw fail('SIGNER_BAD_SIGNATURE', `the signature's ${name} is not 32 bytes of hex`);
    return Uint8Array.from(Buffer.from(digits.padStart(64, '0'), 'hex'));
  }

  const key: RemoteKey = {
    kind: 'turnkey',
    keyId: spec.signWith,
    observer: undefined,
    publicKey() {
      cached ??= call(readPublicKey, (pk) => pk).catch((error: unknown) => {
        cached = undefined; // asked again next time
        throw error;
      });
      return cached;
    },
    signDigest: (digest, accept) =>
      call(signRaw(digest, 'HASH_FUNCTION_NO_OP'), (sig) => {
        const [r, s] = [component('r', sig.r), component('s', sig.s)];
        return accept({ r: BigInt(`0x${Buffer.from(r).toString('hex')}`), s: BigInt(`0x${Buffer.from(s).toString('hex')}`) });
      }),
    signEd25519: (message, accept) =>
      call(signRaw(message, 'HASH_FUNCTION_NOT_APPLICABLE'), (sig) => {
        const signature = new Uint8Array(64);
        signature.set(component('r', sig.r), 0);
        signature.set(component('s', sig.s), 32);
        return accept(signature);
      }),
  };
  return key;
}
