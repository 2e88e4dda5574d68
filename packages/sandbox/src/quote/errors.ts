/**
 * Errors the sandbox API answers with, in the body shapes of docs/relay-contract.md "Errors": `{message, errorCode,
 * errorData}`, `{message, errorCode}`, `{message}` and `{message, errorCode, requestId}`.
 *
 * Every `errorCode` is one the public material names: docs/relay-contract.md "Errors" and "Authentication" 3 or Relay's
 * published quote error list (relayprotocol/relay-docs `references/api/api_core_concepts/handling-errors.mdx`;
 * relay-kit's generated API types type `errorCode` as a plain string). Where no public code fits the
 * condition — malformed bodies and queries, unknown request ids, rate limiting, sandbox-only limits — the
 * answer is the message-only shape, as relay-kit's types show for /transactions/index and most other routes.
 */

/**
 * Error codes the sandbox answers with, each with the condition Relay's error list gives it:
 * - `INVALID_ADDRESS` — an address in the request is not valid;
 * - `UNSUPPORTED_CHAIN` — the chain is not supported;
 * - `UNSUPPORTED_CURRENCY` — the currency is not supported for input or output;
 * - `UNSUPPORTED_ROUTE` — the route combination is not supported;
 * - `EXTRA_TXS_NOT_SUPPORTED` — extra transactions (`txs`) are not supported;
 * - `AMOUNT_TOO_LOW` — the amount is below what a quote needs;
 * - `INSUFFICIENT_LIQUIDITY` — not enough solver liquidity to fill;
 * - `INVALID_SLIPPAGE_TOLERANCE` — slippage is not an integer string of basis points;
 * - `INSUFFICIENT_FUNDS` — a Bitcoin user's balance does not exceed the amount plus the deposit's fee
 *   (docs/relay-contract.md "Errors"; 400 here, the Relay docs state no status);
 * - `SOLANA_TX_TOO_LARGE` — the compiled Solana deposit transaction exceeds 1232 bytes (docs/relay-contract.md "Errors":
 *   400);
 * - `BLOCKED_WALLET_ADDRESS` — an address of the request is on the screening blocklist (the `blockedWallets`
 *   fault; https://docs.relay.link/security/transaction-screening: HTTP 400);
 * - `UNAUTHORIZED` — missing or invalid API key (docs/relay-contract.md "Authentication" 3: 401 `{message, errorCode}`);
 * - `UNKNOWN_ERROR` — an unexpected error (500; docs/relay-contract.md "Errors": `{message, errorCode}`).
 */
export type SandboxErrorCode =
  | 'INVALID_ADDRESS'
  | 'UNSUPPORTED_CHAIN'
  | 'UNSUPPORTED_CURRENCY'
  | 'UNSUPPORTED_ROUTE'
  | 'EXTRA_TXS_NOT_SUPPORTED'
  | 'AMOUNT_TOO_LOW'
  | 'INSUFFICIENT_LIQUIDITY'
  | 'INVALID_SLIPPAGE_TOLERANCE'
  | 'INSUFFICIENT_FUNDS'
  | 'SOLANA_TX_TOO_LARGE'
  | 'BLOCKED_WALLET_ADDRESS'
  | 'UNAUTHORIZED'
  | 'UNKNOWN_ERROR';

/**
 * Body of an error answer (docs/relay-contract.md "Errors"): always `message`; `errorCode` with at most one of the others.
 */
export type SandboxErrorBody =
  | { message: string }
  | { message: string; errorCode: string }
  | { message: string; errorCode: string; errorData: string }
  | { message: string; errorCode: string; requestId: string }
  /** The single v3 shape of POST /quote/v3 (src/sandbox/api/quoteV3Handler.ts): `errorData` is an object. */
  | { message: string; errorCode: string; requestId?: string; errorData: Record<string, unknown> };

/** Context that selects the body shape: `errorData` (string) or `requestId`; needs a code. */
export type SandboxErrorContext = { errorData: string } | { requestId: string };

/**
 * An error answered to the API caller. `status` is the HTTP status; `code` the `errorCode` (null: the
 * message-only shape); `errorData` / `requestId` optional context (docs/relay-contract.md "Errors": both strings).
 */
export class SandboxApiError extends Error {
  readonly code: SandboxErrorCode | null;
  readonly status: number;
  readonly errorData: string | undefined;
  readonly requestId: string | undefined;

  /**
   * @param context a string is taken as `errorData`; ignored when `code` is null (message-only shape)
   */
  constructor(status: number, code: SandboxErrorCode | null, message: string, context?: string | SandboxErrorContext) {
    super(message);
    this.name = 'SandboxApiError';
    this.status = status;
    this.code = code;
    const ctx = typeof context === 'string' ? { errorData: context } : context;
    this.errorData = ctx !== undefined && 'errorData' in ctx ? ctx.errorData : undefined;
    this.requestId = ctx !== undefined && 'requestId' in ctx ? ctx.requestId : undefined;
  }

  /**
   * The JSON body answered for this error, in one of the shapes of docs/relay-contract.md "Errors" ({@link
   * SandboxErrorBody}).
   */
  toBody(): SandboxErrorBody {
    if (this.code === null) return { message: this.message };
    if (this.errorData !== undefined) return { message: this.message, errorCode: this.code, errorData: this.errorData };
    if (this.requestId !== undefined) return { message: this.message, errorCode: this.code, requestId: this.requestId };
    return { message: this.message, errorCode: this.code };
  }
}
