/**
 * JSON-RPC error values of the sandbox Solana node, shaped like an Agave validator's
 * (`{code, message, data?}`; codes from the JSON-RPC 2.0 spec and Agave's `rpc_custom_error`), and a
 * JSON serializer that writes `bigint` as a bare integer (u64 fields such as `rentEpoch` exceed 2^53).
 */
import { randomBytes } from 'node:crypto';
import { transactionErrorText, type TransactionErrorJson } from './txErrors.ts';

/** JSON-RPC / Agave error codes used by the node. */
export const RPC_ERROR = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** `sendTransaction` preflight (simulation) failure; `data` carries `err` and `logs`. */
  SEND_TRANSACTION_PREFLIGHT_FAILURE: -32002,
  /** A signature of the transaction does not verify. */
  TRANSACTION_SIGNATURE_VERIFICATION_FAILURE: -32003,
  /** `getTransaction` on a versioned transaction without `maxSupportedTransactionVersion`. */
  UNSUPPORTED_TRANSACTION_VERSION: -32015,
} as const;

/** The JSON-RPC `error` member. */
export interface RpcErrorBody {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * An error a JSON-RPC method answers with (thrown by a handler, written as the response's `error`).
 * Not a Ballast failure family: it never leaves the node, so it carries a JSON-RPC `code`, not a Ballast code.
 */
export class RpcError extends Error {
  readonly rpcCode: number;
  readonly data: unknown;
  constructor(rpcCode: number, message: string, data?: unknown) {
    super(message);
    this.name = 'RpcError';
    this.rpcCode = rpcCode;
    this.data = data;
  }

  /** The response's `error` member. */
  toBody(): RpcErrorBody {
    return this.data === undefined
      ? { code: this.rpcCode, message: this.message }
      : { code: this.rpcCode, message: this.message, data: this.data };
  }
}

/** `Invalid params: <why>` (-32602). */
export function invalidParams(why: string): RpcError {
  return new RpcError(RPC_ERROR.INVALID_PARAMS, `Invalid params: ${why}`);
}

const BIGINT_MARK = `__u64_${randomBytes(6).toString('hex')}__`;
const BIGINT_RE = new RegExp(`"${BIGINT_MARK}(-?[0-9]+)"`, 'g');

/**
 * `JSON.stringify` that writes every `bigint` as a bare JSON integer (exact, unlike a JS number).
 *
 * @example toJsonText({ rentEpoch: 2n ** 64n - 1n }) // '{"rentEpoch":18446744073709551615}'
 */
export function toJsonText(value: unknown): string {
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${BIGINT_MARK}${v.toString()}` : v));
  return text.replace(BIGINT_RE, '$1');
}

/** The JSON-RPC error of a failed preflight (-32002), with the simulation's `err` and `logs` in `data`. */
export function preflightError(err: TransactionErrorJson, logs: string[] = [], unitsConsumed = 0n): RpcError {
  return new RpcError(RPC_ERROR.SEND_TRANSACTION_PREFLIGHT_FAILURE, `Transaction simulation failed: ${transactionErrorText(err)}`, {
    accounts: null,
    err,
    innerInstructions: null,
    loadedAccountsDataSize: 0,
    logs,
    replacementBlockhash: null,
    returnData: null,
    unitsConsumed,
  });
}
