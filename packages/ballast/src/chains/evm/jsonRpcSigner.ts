/**
 * An EVM wallet whose key is in a JSON-RPC remote signer (docs/keys.md): web3signer in eth1 mode, Clef, or any
 * server that answers `eth_accounts`, `eth_signTransaction` and an EIP-191 message method
 * (https://docs.web3signer.consensys.io/reference/api/json-rpc, https://geth.ethereum.org/docs/tools/clef/apis).
 * The signer returns a whole signed transaction; Ballast never sends what it returned: it takes the signature
 * out, puts it on the transaction it asked for, and checks that this recovers the wallet's address, so a signer
 * that changed a field (recipient, value, nonce, fee, chain) is refused (`SIGNER_BAD_SIGNATURE`) and nothing is
 * stored or broadcast. Requests go through viem's HTTP transport (a bounded timeout, one retry when the signer
 * could not be reached: a signature is neither stored nor sent before it is verified) with an optional bearer
 * token and, for mutual TLS, an undici dispatcher with the client certificate.
 */
import { readFileSync } from 'node:fs';
import {
  BaseError,
  createClient,
  formatTransactionRequest,
  getAddress,
  HttpRequestError,
  http,
  isAddressEqual,
  parseTransaction,
  recoverMessageAddress,
  recoverTransactionAddress,
  serializeTransaction,
  TimeoutError,
  type Address,
  type Hex,
  type LocalAccount,
  type TransactionSerializable,
} from 'viem';
import { toAccount } from 'viem/accounts';
import { outcomeOf, SignerError, type SignerObserver } from '../remote/signerError.ts';

/** `signer:` of a wallet whose key is in a JSON-RPC remote signer (src/config/signerSchema.ts). */
export interface JsonRpcSignerSpec {
  kind: 'remote';
  /** http(s) URL of the signer. */
  url: string;
  /** Bearer token (from `${VAR}`), sent as `Authorization: Bearer …`. */
  token?: string | undefined;
  /** Mutual TLS: absolute paths of the client certificate, its key and the server's CA (PEM). */
  tls?: { certFile: string; keyFile: string; caFile?: string | undefined } | undefined;
  /** `personal_sign(data, address)` (Clef, geth) or `eth_sign(address, data)` (web3signer): both EIP-191. */
  messageMethod: 'personal_sign' | 'eth_sign';
  /** Bound of each request, ms. */
  timeoutMs: number;
}

/** A JSON-RPC remote signer, as the wallet and the start check see it. */
export interface JsonRpcSigner {
  readonly kind: 'remote';
  readonly url: string;
  /** Where request outcomes go (the app wiring sets it). */
  observer: SignerObserver | undefined;
  /** `eth_accounts`: the addresses the signer holds keys for. @throws SignerError */
  accounts(): Promise<Address[]>;
}

/** Codes of JSON-RPC errors that are the signer failing, not refusing: internal error, limit exceeded. */
const FAULT_CODES = new Set([-32603, -32005]);

/**
 * A JSON-RPC signer for wallet `wallet` and the viem account at `address` that signs through it. No request is
 * made until it is used.
 *
 * @throws (from the account's signing functions) SignerError: `SIGNER_UNAVAILABLE` (timeout, unreachable, server
 *   error), `SIGNER_REFUSED` (a JSON-RPC error answer or HTTP 4xx: locked or unknown account, wrong chain, denied),
 *   `SIGNER_BAD_SIGNATURE` (the answer does not sign what was asked with `address`'s key), `SIGNER_UNSUPPORTED`
 *   (a raw-hash or EIP-712 signature, which Ballast never asks a JSON-RPC signer for)
 */
export function evmJsonRpcSigner(
  wallet: string,
  address: Address,
  spec: JsonRpcSignerSpec,
): { signer: JsonRpcSigner; account: LocalAccount } {
  // Mutual TLS: undici (loaded only then) with the client certificate, read once at load.
  const tls = spec.tls && {
    cert: readFileSync(spec.tls.certFile),
    key: readFileSync(spec.tls.keyFile),
    ...(spec.tls.caFile ? { ca: readFileSync(spec.tls.caFile) } : {}),
  };
  let tlsFetch: Promise<typeof fetch> | undefined;
  const fetchWithCertificate = (input: string, init: object): Promise<Response> =>
    (tlsFetch ??= import('undici').then(({ Agent, fetch: undiciFetch }) => {
      const dispatcher = new Agent({ connect: tls });
      return ((url: string, options: object) => undiciFetch(url, { ...options, dispatcher })) as unknown as typeof fetch;
    })).then((f) => f(input, init));
  const client = createClient({
    transport: http(spec.url, {
      timeout: spec.timeoutMs,
      retryCount: 1,
      retryDelay: 100,
      ...(spec.token ? { fetchOptions: { headers: { authorization: `Bearer ${spec.token}` } } } : {}),
      ...(tls ? { fetchFn: fetchWithCertificate as unknown as typeof fetch } : {}),
    }),
  });
  const signer: JsonRpcSigner = {
    kind: 'remote',
    url: spec.url,
    observer: undefined,
    accounts: () =>
      call('eth_accounts', async () => ((await client.request({ method: 'eth_accounts' })) as string[]).map((a) => getAddress(a))),
  };

  async function call<T>(method: string, run: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      const result = await run();
      signer.observer?.({ wallet, kind: 'remote', outcome: 'ok', seconds: (performance.now() - started) / 1000 });
      return result;
    } catch (error) {
      const mapped = mapError(wallet, method, spec.url, error);
      signer.observer?.({ wallet, kind: 'remote', outcome: outcomeOf(mapped), seconds: (performance.now() - started) / 1000 });
      throw mapped;
    }
  }

  const refuse = (why: string) => new SignerError('SIGNER_BAD_SIGNATURE', wallet, 'remote', why);
  const unsupported = (what: string) => () =>
    Promise.reject(
      new SignerError(
        'SIGNER_UNSUPPORTED',
        wallet,
        'remote',
        `${what} is not asked of a JSON-RPC signer (transactions and EIP-191 messages only)`,
      ),
    );

  const account = toAccount({
    address,
    sign: unsupported('a raw-hash signature'),
    signTypedData: unsupported('an EIP-712 signature'),
    signMessage: ({ message }) =>
      call(spec.messageMethod, async () => {
        const data: Hex =
          typeof message === 'string' ? (`0x${Buffer.from(message, 'utf8').toString('hex')}` as Hex) : toHexData(message.raw);
        const params = spec.messageMethod === 'personal_sign' ? [data, address] : [address, data];
        const signature = (await client.request({ method: spec.messageMethod, params } as never)) as Hex;
        let signer: Address;
        try {
          signer = await recoverMessageAddress({ message: { raw: data }, signature });
        } catch {
          throw refuse('the message signature is not a 65-byte ECDSA signature');
        }
        if (!isAddressEqual(signer, address)) throw refuse(`the message signature recovers ${signer}, not the wallet's ${address}`);
        return signature;
      }),
    async signTransaction(transaction, options) {
      const serializer = options?.serializer ?? serializeTransaction;
      return call('eth_signTransaction', async () => {
        const request = { ...formatTransactionRequest({ ...transaction, from: address } as never), chainId: hexOf(transaction.chainId) };
        const returned = (await client.request({ method: 'eth_signTransaction', params: [request] } as never)) as unknown;
        const raw = typeof returned === 'string' ? returned : (returned as { raw?: string } | null)?.raw; // Clef: { raw, tx }
        if (typeof raw !== 'string' || !/^0x[0-9a-fA-F]+$/.test(raw)) throw refuse('eth_signTransaction returned no signed transaction');
        return signedAsAsked(raw as Hex, transaction, serializer, address, refuse);
      });
    },
  });
  return { signer, account };
}

/**
 * The transaction Ballast asked for, carrying the signature the signer returned, once it recovers `address`.
 *
 * @throws SignerError `SIGNER_BAD_SIGNATURE` when the returned transaction is unreadable, unsigned, or its signature
 *   is not `address`'s over the transaction asked for (it names the first field the signer changed)
 */
async function signedAsAsked(
  raw: Hex,
  asked: TransactionSerializable,
  serializer: (tx: TransactionSerializable, signature?: { r: Hex; s: Hex; yParity: number; v?: bigint }) => Promise<Hex> | Hex,
  address: Address,
  refuse: (why: string) => SignerError,
): Promise<Hex> {
  let parsed: ReturnType<typeof parseTransaction>;
  try {
    parsed = parseTransaction(raw);
  } catch {
    throw refuse('eth_signTransaction returned bytes that are not a signed transaction');
  }
  const { r, s, yParity, v } = parsed as { r?: Hex; s?: Hex; yParity?: number; v?: bigint };
  if (r === undefined || s === undefined || (yParity === undefined && v === undefined)) {
    throw refuse('eth_signTransaction returned an unsigned transaction');
  }
  const parity = yParity ?? Number((v ?? 0n) % 2n === 0n ? 1n : 0n);
  const ours = await serializer(asked, { r, s, yParity: parity, ...(v !== undefined ? { v } : {}) });
  const recovered = await recoverTransactionAddress({ serializedTransaction: ours as never }).catch(() => undefined);
  if (recovered !== undefined && isAddressEqual(recovered, address)) return ours;
  const changed = changedField(parsed as Record<string, unknown>, asked as Record<string, unknown>);
  throw refuse(
    changed !== undefined
      ? `the signer changed the transaction's ${changed}: nothing is sent`
      : `the signature does not recover the wallet's ${address} over the transaction asked for`,
  );
}

const COMPARED = ['chainId', 'nonce', 'to', 'value', 'data', 'gas', 'maxFeePerGas', 'maxPriorityFeePerGas', 'gasPrice', 'type'] as const;

function changedField(signed: Record<string, unknown>, asked: Record<string, unknown>): string | undefined {
  const norm = (k: string, x: unknown) => {
    if (x === undefined || x === null) return k === 'data' ? '0x' : k === 'value' ? '0' : '';
    return typeof x === 'string' ? x.toLowerCase() : String(x);
  };
  return COMPARED.find((k) => norm(k, signed[k]) !== norm(k, asked[k]));
}

function hexOf(n: number | undefined): Hex | undefined {
  return n === undefined ? undefined : `0x${n.toString(16)}`;
}

function toHexData(raw: Hex | Uint8Array): Hex {
  return typeof raw === 'string' ? raw : (`0x${Buffer.from(raw).toString('hex')}` as Hex);
}

function mapError(wallet: string, method: string, url: string, error: unknown): SignerError {
  if (error instanceof SignerError) return error;
  const at = `${method} at ${new URL(url).origin}`;
  const base = error instanceof BaseError ? error : undefined;
  // walk() answers null when nothing in the cause chain matches
  const timeout = base?.walk((e) => e instanceof TimeoutError);
  if (timeout) return new SignerError('SIGNER_UNAVAILABLE', wallet, 'remote', `${at} timed out`, { cause: error });
  const http = (base?.walk((e) => e instanceof HttpRequestError) ?? undefined) as HttpRequestError | undefined;
  const rpc = (base?.walk((e) => typeof (e as { code?: unknown } | null)?.code === 'number') ?? undefined) as
    { code: number; details?: string } | undefined;
  if (http?.status !== undefined && http.status >= 400 && http.status < 500) {
    return new SignerError('SIGNER_REFUSED', wallet, 'remote', `${at} refused: HTTP ${http.status}`, { cause: error });
  }
  if (rpc !== undefined && !FAULT_CODES.has(rpc.code)) {
    return new SignerError('SIGNER_REFUSED', wallet, 'remote', `${at} refused: ${rpc.code} ${rpc.details ?? ''}`.trim(), { cause: error });
  }
  const why = http?.status !== undefined ? `HTTP ${http.status}` : (base?.shortMessage ?? (error as Error).message) || 'no answer';
  return new SignerError('SIGNER_UNAVAILABLE', wallet, 'remote', `${at} failed: ${why}`, { cause: error });
}

/**
 * The signer must hold `address`'s key: `eth_accounts` lists it (checked at start, docs/keys.md).
 *
 * @throws SignerError `SIGNER_KEY_MISMATCH` when it does not; `SIGNER_UNAVAILABLE`/`SIGNER_REFUSED` when it cannot be asked
 */
export async function checkEvmJsonRpcAddress(wallet: string, address: Address, signer: JsonRpcSigner): Promise<void> {
  const accounts = await signer.accounts();
  if (!accounts.some((a) => isAddressEqual(a, address))) {
    throw new SignerError(
      'SIGNER_KEY_MISMATCH',
      wallet,
      'remote',
      `the signer at ${new URL(signer.url).origin} holds no key for wallets.${wallet}.address ${address} (eth_accounts: ${accounts.join(', ') || 'none'})`,
    );
  }
}
