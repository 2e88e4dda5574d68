/**
 * POST /quote/v3 of the sandbox (https://docs.relay.link/references/api/api_guides/migrating-to-quote-v3): a key is
 * mandatory (`x-api-key`, or an access token as `Authorization: Bearer <token>`); without one the answer is 401
 * `{"message":"Please provide an api key","errorCode":"UNAUTHORIZED_QUOTE"}` (the body a public client test
 * quotes; the docs give the status and code only). Any non-empty key or token is accepted unless the sandbox
 * was started with `apiKey`, which the key or token must then equal (the sandbox mints no access tokens). The
 * quote is the /quote/v2 one of the same core (`quoteHandler.ts`), converted by `quote/quoteV3.ts`; every error
 * answers the single v3 shape `{message, errorCode, requestId, errorData}` with `errorData` an object.
 * ASSUMED (not shown in the docs): the codes of errors v2 answers without one (`INVALID_REQUEST` for a 4xx,
 * `UNKNOWN_ERROR` for a 5xx), v2's string `errorData` kept as `errorData.detail`, and what a request carrying
 * both a key and a token gets (the docs say it is rejected, not how): here 401 `UNAUTHORIZED_QUOTE`.
 */
import type { IncomingMessage } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { SandboxApiError, type SandboxErrorBody } from '../quote/errors.ts';
import { toQuoteV3, type SandboxQuoteV3Response } from '../quote/quoteV3.ts';
import { readJsonBody } from './http.ts';
import { handleQuote } from './quoteHandler.ts';
import type { SandboxState } from './state.ts';

/** An error answered in the v3 shape. */
export class SandboxV3ApiError extends SandboxApiError {
  readonly v3Code: string;
  readonly v3Data: Record<string, unknown>;
  readonly v3RequestId: string | undefined;

  constructor(status: number, code: string, message: string, data: Record<string, unknown> = {}, requestId?: string) {
    super(status, null, message);
    this.v3Code = code;
    this.v3Data = data;
    this.v3RequestId = requestId;
  }

  /** `{message, errorCode, requestId?, errorData}`. */
  override toBody(): SandboxErrorBody {
    return {
      message: this.message,
      errorCode: this.v3Code,
      ...(this.v3RequestId !== undefined ? { requestId: this.v3RequestId } : {}),
      errorData: this.v3Data,
    };
  }
}

/** The v3 form of an error the v2 core raised. */
export function toV3Error(error: SandboxApiError): SandboxV3ApiError {
  if (error instanceof SandboxV3ApiError) return error;
  const code = error.code ?? (error.status >= 500 ? 'UNKNOWN_ERROR' : 'INVALID_REQUEST');
  return new SandboxV3ApiError(
    error.status,
    code,
    error.message,
    error.errorData !== undefined ? { detail: error.errorData } : {},
    error.requestId,
  );
}

function same(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Checks the v3 credentials: `x-api-key` or `Authorization: Bearer <token>`, exactly one.
 *
 * @throws SandboxV3ApiError 401 `UNAUTHORIZED_QUOTE` when neither is given, both are, or the configured key differs
 */
export function checkV3Credentials(state: SandboxState, headers: IncomingMessage['headers']): void {
  const keyHeader = headers['x-api-key'];
  const key = (Array.isArray(keyHeader) ? keyHeader[0] : keyHeader)?.trim() ?? '';
  const bearer = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '')?.[1] ?? '';
  if (key === '' && bearer === '') throw new SandboxV3ApiError(401, 'UNAUTHORIZED_QUOTE', 'Please provide an api key');
  if (key !== '' && bearer !== '') throw new SandboxV3ApiError(401, 'UNAUTHORIZED_QUOTE', 'Send an api key or an access token, not both');
  if (state.apiKey !== undefined && !same(key !== '' ? key : bearer, state.apiKey)) {
    throw new SandboxV3ApiError(401, 'UNAUTHORIZED_QUOTE', 'Invalid api key');
  }
}

/**
 * Handles POST /quote/v3.
 *
 * @returns the v3 quote body
 * @throws SandboxV3ApiError for every refusal, in the v3 shape
 */
export async function handleQuoteV3(state: SandboxState, req: IncomingMessage): Promise<SandboxQuoteV3Response> {
  try {
    checkV3Credentials(state, req.headers);
    const body = await readJsonBody(req);
    const v2 = await handleQuote(state, body);
    const user = typeof body === 'object' && body !== null ? (body as { user?: unknown }).user : undefined; // handleQuote validated the body
    return toQuoteV3(v2, typeof user === 'string' ? user : '');
  } catch (error) {
    if (error instanceof SandboxApiError) throw toV3Error(error);
    throw error;
  }
}
