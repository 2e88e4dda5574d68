/**
 * Errors the sandbox API answers with (spec "Errors": `{message, errorCode, errorData?}`).
 */

/** Error codes the sandbox quote path can answer with. */
export type SandboxErrorCode =
  | 'INVALID_REQUEST'
  | 'INVALID_ADDRESS'
  | 'UNSUPPORTED_TRADE_TYPE'
  | 'UNSUPPORTED_CHAIN'
  | 'UNSUPPORTED_CURRENCY'
  | 'UNSUPPORTED_ROUTE'
  | 'AMOUNT_TOO_LOW'
  | 'INSUFFICIENT_LIQUIDITY'
  | 'UNAUTHORIZED'
  | 'RATE_LIMITED'
  | 'SERVICE_UNAVAILABLE'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED';

/**
 * An error answered to the API caller. `status` is the HTTP status, `errorCode` the stable code put into
 * the body, `errorData` an optional string with context (spec "Errors": errorData is a string).
 */
export class SandboxApiError extends Error {
  readonly code: SandboxErrorCode;
  readonly status: number;
  readonly errorData: string | undefined;
  constructor(status: number, code: SandboxErrorCode, message: string, errorData?: string) {
    super(message);
    this.name = 'SandboxApiError';
    this.status = status;
    this.code = code;
    this.errorData = errorData;
  }

  /** The JSON body answered for this error: `{message, errorCode, errorData?}`. */
  toBody(): { message: string; errorCode: string; errorData?: string } {
    return this.errorData === undefined
      ? { message: this.message, errorCode: this.code }
      : { message: this.message, errorCode: this.code, errorData: this.errorData };
  }
}
