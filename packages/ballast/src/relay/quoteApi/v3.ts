/**
 * POST /quote/v3 → Ballast's internal quote model (the parsed /quote/v2 `QuoteResponse` the fee policy, verifier
 * and executor consume), for what https://docs.relay.link/references/api/api_guides/migrating-to-quote-v3
 * documents. Pure; no I/O.
 *
 * Field by field:
 * - `steps[i]` (flat: one step per action, `status`/`data`/`check` on the step) → `steps[i]` with one item
 *   `{status, data, check}`; `depositAddress` (an object in v3) → its `address` when non-empty (the verifier then
 *   refuses the deposit-address flow, as for v2), else absent; `requestId` → the quote's request id.
 * - EVM step `data` without `from` (the documented example has none) → `from` = the request's `user`: the
 *   signer signs with that wallet only and refuses any other `from` (assumed; stated so by this comment).
 * - `fees.quoted.{swap, execution, platform, app, sponsored}.usd` (GET /requests/v3 structure, signed USD) →
 *   `details.expandedPriceImpact.{swap, execution, platform, app, sponsored}.usd`, which the fee policy
 *   (src/policy/feeBreakdown.ts) reads; `platform` is the key it already knows. A v3 `details.expandedPriceImpact`
 *   (not shown) is replaced by it; `details.totalImpact`, when present, is kept and the verifier's
 *   `details-consistency` rule holds the components to it.
 * - `details`, `protocol.v2` and the top-level `requestId` (presence in v3 not shown) are taken as v2 gives them.
 * - The v2 deprecated fee set (`fees.gas`, …) has no v3 counterpart: the internal `fees` stays absent. The fee
 *   policy then estimates an EVM origin's gas from the steps' `gas × maxFeePerGas` (src/verify/deposit/originCost.ts)
 *   and, for a payment that is not the native currency, prices it with GET /currencies/token/price
 *   (src/cycle/originPrice.ts); an unreadable price leaves it unknown (`origin_cost_unknown` under a total cap).
 *
 * Refused ({@link QuoteV3UnverifiableError}, `RELAY_QUOTE_V3_UNVERIFIABLE`) when the response lacks
 * `protocol.v2.orderData`, `.orderId` or `.paymentDetails` (order id recomputation, depository), `details`,
 * `details.currencyIn` / `currencyOut`, step `data` of a transaction step, a step `kind` the model knows
 * (`transaction`, `signature`), or any request id (top level, step, or the `check.endpoint` query).
 */
import { parseWith } from '../errors.ts';
import { QuoteResponseSchema, type QuoteRequest, type QuoteResponse } from '@ballast/protocol/relay/schemas.ts';
import { QuoteV3UnverifiableError } from './errors.ts';
import { QuoteV3ResponseSchema, type QuoteV3Fees, type QuoteV3Response, type QuoteV3Step } from './v3Schemas.ts';

/** Endpoint label of POST /quote/v3 (errors, logs, metrics). */
export const QUOTE_V3_ENDPOINT = 'POST /quote/v3';
/** Path of POST /quote/v3 under the API base. */
export const QUOTE_V3_PATH = '/quote/v3';

/** Key under which the stored form keeps the v3 body as received. */
export const V3_RESPONSE_KEY = 'quoteV3Response';

/** Result of {@link mapQuoteV3}. */
export interface MappedQuoteV3 {
  /** The internal model, parsed by `QuoteResponseSchema`. */
  quote: QuoteResponse;
  /**
   * The form to store: the internal model as JSON (so the ledger and reconciliation parse it like a v2 quote)
   * with the v3 body as received under {@link V3_RESPONSE_KEY}.
   */
  stored: Record<string, unknown>;
}

const FEE_COMPONENTS = ['swap', 'execution', 'platform', 'app', 'sponsored'] as const;

/**
 * Maps a POST /quote/v3 body to the internal quote model (rules in the file comment).
 *
 * @param raw the JSON body as received
 * @param request the request that was sent (its `user` fills an absent EVM `from`)
 * @returns the internal quote and the form to store
 * @throws RelaySchemaError (`RELAY_SCHEMA_INVALID`) when the body contradicts a documented type
 * @throws QuoteV3UnverifiableError (`RELAY_QUOTE_V3_UNVERIFIABLE`) naming the missing field
 */
export function mapQuoteV3(raw: unknown, request: Pick<QuoteRequest, 'user'>): MappedQuoteV3 {
  const v3 = parseWith(QuoteV3ResponseSchema, QUOTE_V3_ENDPOINT, raw);
  const refuse = (field: string, why: string): never => {
    throw new QuoteV3UnverifiableError(QUOTE_V3_ENDPOINT, field, why);
  };
  const protocolV2 = asRecord(v3.protocol?.['v2']);
  if (!protocolV2)
    refuse('protocol.v2', 'carries the order local verification recomputes the order id from (request it with includeProtocolData)');
  for (const key of ['orderData', 'orderId', 'paymentDetails'] as const) {
    if (protocolV2?.[key] === undefined) refuse(`protocol.v2.${key}`, 'local verification needs to recompute and check the order');
  }
  const details = v3.details;
  if (!details) refuse('details', 'local verification checks against the order (currencies and amounts)');
  for (const key of ['currencyIn', 'currencyOut'] as const) {
    if (details?.[key] === undefined) refuse(`details.${key}`, 'local verification checks against the order');
  }
  const requestId = requestIdOf(v3);
  if (requestId === undefined)
    refuse('requestId', 'is needed to track the request (no requestId at the top level, on a step, or in a check endpoint)');

  const steps = v3.steps.map((step, i) => mapStep(step, i, requestId!, request.user, refuse));
  const expanded = expandedFromFees(v3.fees);
  const { fees: _v3Fees, ...rest } = v3; // v3 `fees` is not the v2 deprecated fee set the model's `fees` means
  const mapped: Record<string, unknown> = {
    ...rest,
    requestId,
    steps,
    details: expanded ? { ...details, expandedPriceImpact: expanded } : details,
  };
  const quote = parseWith(QuoteResponseSchema, QUOTE_V3_ENDPOINT, mapped);
  return { quote, stored: { ...mapped, [V3_RESPONSE_KEY]: raw } };
}

function mapStep(
  step: QuoteV3Step,
  index: number,
  requestId: string,
  user: string,
  refuse: (field: string, why: string) => never,
): Record<string, unknown> {
  if (step.kind !== 'transaction' && step.kind !== 'signature') {
    refuse(`steps[${index}].kind "transaction" or "signature"`, `the model knows (got ${JSON.stringify(step.kind)})`);
  }
  if (step.kind === 'transaction' && Object.keys(step.data).length === 0) {
    refuse(`steps[${index}].data`, 'holds the transaction local verification checks');
  }
  const { status, data, check, depositAddress, depositAddressId: _id, ...stepRest } = step;
  const evmWithoutFrom = typeof data['to'] === 'string' && data['to'].startsWith('0x') && data['from'] === undefined;
  const address = depositAddress?.address;
  return {
    ...stepRest,
    requestId: step.requestId ?? requestId,
    ...(address !== undefined && address !== '' ? { depositAddress: address } : {}),
    items: [{ status, data: evmWithoutFrom ? { from: user, ...data } : data, ...(check ? { check } : {}) }],
  };
}

/** The request id: top level, else a step's, else the `requestId` query of a step's `check.endpoint`. */
function requestIdOf(v3: QuoteV3Response): string | undefined {
  if (v3.requestId !== undefined && v3.requestId !== '') return v3.requestId;
  const onStep = v3.steps.find((s) => s.requestId !== undefined && s.requestId !== '')?.requestId;
  if (onStep !== undefined) return onStep;
  for (const s of v3.steps) {
    if (!s.check) continue;
    const id = new URL(s.check.endpoint, 'http://relay.invalid').searchParams.get('requestId');
    if (id !== null && id !== '') return id;
  }
  return undefined;
}

/** `fees.quoted` as `expandedPriceImpact` (`{usd}` per component), or undefined without a `quoted` phase. */
function expandedFromFees(fees: QuoteV3Fees | undefined): Record<string, { usd: string }> | undefined {
  const quoted = fees?.quoted;
  if (!quoted) return undefined;
  const out: Record<string, { usd: string }> = {};
  for (const c of FEE_COMPONENTS) {
    const entry = quoted[c];
    if (entry) out[c] = { usd: entry.usd };
  }
  return out;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined; // checked just before
}
