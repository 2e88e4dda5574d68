/**
 * The Solana adapter's one @solana/web3.js `Connection` (the only one outside the sandbox) and the wrapper
 * every node call goes through: each request has a time limit, HTTP 429 is not retried inside web3.js (which
 * would print to the console and stall a cycle; the next cycle asks again), and every failure becomes an
 * {@link SvmRpcError} whose message names `chains.<name>.rpcUrl` and the JSON-RPC method, never the URL.
 */
import { Connection, SendTransactionError, type Commitment } from '@solana/web3.js';
import { SvmRpcError } from './errors.ts';

/** Default time one JSON-RPC request may take, ms. */
export const DEFAULT_SVM_RPC_TIMEOUT_MS = 15_000;
/** Most characters of a node's own error text kept in a message. */
const MAX_NODE_WORDS = 240;

/** When a Solana transaction counts as final for Ballast (`chains.<name>.commitment`). */
export type SvmFinality = 'confirmed' | 'finalized';

/** Options of {@link createSvmRpc}. */
export interface SvmRpcOptions {
  /** Config name (`chains.<name>`), used in messages. */
  name: string;
  /** HTTP JSON-RPC endpoint (may embed a provider key; it never appears in messages). */
  rpcUrl: string;
  /** Websocket endpoint handed to web3.js (`wsEndpoint`); the adapter itself polls over HTTP. */
  wsUrl: string;
  /** Default commitment of reads. */
  commitment: SvmFinality;
  /** The fetch to use (default the global fetch); tests count or rewrite calls through it. */
  fetch?: typeof globalThis.fetch;
  /** Time one request may take, ms (default {@link DEFAULT_SVM_RPC_TIMEOUT_MS}). */
  timeoutMs?: number;
}

/** A connection plus the call wrapper that turns every failure into an {@link SvmRpcError}. */
export interface SvmRpc {
  readonly connection: Connection;
  /** `chains.<name>.rpcUrl`, the YAML path every message names. */
  readonly at: string;
  /**
   * Runs one node call.
   *
   * @param method the JSON-RPC method, for the message (e.g. `getSignatureStatuses`)
   * @throws SvmRpcError `${at}: <method> failed: <node's words>` on any failure, cause attached
   */
  call<T>(method: string, run: (connection: Connection) => Promise<T>): Promise<T>;
}

/**
 * One line of a node's error text: the transaction message of a `SendTransactionError`, else the first line
 * of the message; URLs cut out (a provider key may sit in one), bounded.
 */
export function nodeWords(error: unknown): string {
  const text =
    error instanceof SendTransactionError
      ? error.transactionError.message
      : error instanceof Error
        ? (error.message.split('\n')[0] ?? error.name)
        : String(error);
  const line = text.replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>').trim();
  return line.length > MAX_NODE_WORDS ? `${line.slice(0, MAX_NODE_WORDS)}…` : line;
}

/**
 * Creates the connection of one Solana chain.
 *
 * @throws TypeError when `rpcUrl` is not an http(s) URL (web3.js refuses it)
 * @example
 * const rpc = createSvmRpc({ name: 'solana', rpcUrl: 'http://127.0.0.1:8899', wsUrl: 'ws://127.0.0.1:8900', commitment: 'confirmed' });
 * const slot = await rpc.call('getSlot', (c) => c.getSlot());
 */
export function createSvmRpc(opts: SvmRpcOptions): SvmRpc {
  const at = `chains.${opts.name}.rpcUrl`;
  const baseFetch = opts.fetch ?? globalThis.fetch;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_SVM_RPC_TIMEOUT_MS;
  const timedFetch: typeof globalThis.fetch = (input, init) =>
    baseFetch(input, { ...init, signal: init?.signal ?? AbortSignal.timeout(timeoutMs) });
  const connection = new Connection(opts.rpcUrl, {
    commitment: opts.commitment satisfies Commitment,
    wsEndpoint: opts.wsUrl,
    fetch: timedFetch,
    httpAgent: false, // the custom fetch manages its own connections
    disableRetryOnRateLimit: true,
  });
  return {
    connection,
    at,
    async call(method, run) {
      try {
        return await run(connection);
      } catch (error) {
        throw new SvmRpcError(`${at}: ${method} failed: ${nodeWords(error)}`, { method, cause: error });
      }
    },
  };
}
