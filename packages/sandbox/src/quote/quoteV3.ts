/**
 * The sandbox's POST /quote/v3 body, built from the same quote core as /quote/v2 (the v2 response of
 * `buildQuote.ts` / `vmQuote.ts`, converted here). Pure; no I/O.
 *
 * Honest to https://docs.relay.link/references/api/api_guides/migrating-to-quote-v3 where it documents the
 * response: flat steps (one step per action; `status`, `data`, `check` and `depositAddress` on the step) and
 * fees in the GET /requests/v3 structure (`fees.quoted.{swap, execution, platform, app, sponsored}` with signed
 * `usd`, base-unit `amount`, `amountFormatted`, one shared `currency`). ASSUMED, because the docs do not show it:
 * - `requestId`, `details` and `protocol.v2` are kept as v2 serves them; `protocol` only when the request asked
 *   for it with `includeProtocolData`, as on v2;
 * - EVM step `data` has no `from` (the documented step example has none);
 * - `depositAddress` is left out when unused (v2: absent or an empty string), else
 *   `{address, type: "strict", depositor, depositTxHash: "", recoveryAddress}`;
 * - the fee `currency` is the input currency, and each component's `amount` its USD value converted at the
 *   quote's own input price (`currencyIn.amountUsd / amount`), unsigned as in the documented example;
 * - the v2 deprecated fee set and `feeSponsorship` are not served (whether v3 carries them is not shown).
 */
import { formatUnits } from 'viem';
import { parseUsdMicros } from '@ballast/protocol/core/units.ts';
import type { AnyStepDataJson, CurrencyAmountJson, CurrencyJson, SandboxQuoteResponse } from './types.ts';

/** One fee component of the v3 `fees.quoted` phase. */
export interface FeeComponentV3Json {
  usd: string;
  amount: string;
  amountFormatted: string;
}

/** One flat v3 step. */
export interface StepV3Json {
  id: string;
  action: string;
  description: string;
  kind: string;
  status: string;
  data: unknown;
  check?: { endpoint: string; method: string };
  depositAddress?: { address: string; type: string; depositor: string; depositTxHash: string; recoveryAddress: string };
}

/** The POST /quote/v3 body the sandbox serves. */
export interface SandboxQuoteV3Response {
  requestId: string;
  steps: StepV3Json[];
  fees: { quoted: Record<'swap' | 'execution' | 'platform' | 'app' | 'sponsored', FeeComponentV3Json>; currency: CurrencyJson };
  details: SandboxQuoteResponse<AnyStepDataJson>['details'];
  protocol?: SandboxQuoteResponse<AnyStepDataJson>['protocol'];
}

/** v2 `expandedPriceImpact` keys of each v3 component (the sandbox keys the platform component `relay`, as live v2). */
const COMPONENT_KEYS = {
  swap: ['swap'],
  execution: ['execution'],
  platform: ['platform', 'relay', 'service'],
  app: ['app'],
  sponsored: ['sponsored'],
} as const;

/**
 * Converts a sandbox /quote/v2 body (possibly tampered by a fault) into the /quote/v3 body (rules in the file
 * comment).
 *
 * @param v2 the body /quote/v2 would serve for the same request
 * @param user the request's `user` (the depositor named in a deposit address object)
 */
export function toQuoteV3(v2: SandboxQuoteResponse<AnyStepDataJson>, user: string): SandboxQuoteV3Response {
  const steps: StepV3Json[] = v2.steps.flatMap((step) =>
    step.items.map((item, j) => {
      const data: Record<string, unknown> = { ...(item.data as unknown as Record<string, unknown>) }; // step data JSON objects
      if (typeof data['to'] === 'string') delete data['from'];
      return {
        id: step.items.length > 1 ? `${step.id}-${j}` : step.id,
        action: step.action,
        description: step.description,
        kind: step.kind,
        status: item.status,
        data,
        ...(item.check ? { check: item.check } : {}),
        ...(step.depositAddress
          ? { depositAddress: { address: step.depositAddress, type: 'strict', depositor: user, depositTxHash: '', recoveryAddress: user } }
          : {}),
      };
    }),
  );
  const currencyIn = v2.details.currencyIn;
  const quoted = {} as Record<keyof typeof COMPONENT_KEYS, FeeComponentV3Json>; // every key is filled just below
  for (const [component, keys] of Object.entries(COMPONENT_KEYS) as [keyof typeof COMPONENT_KEYS, readonly string[]][]) {
    const key = keys.find((k) => Object.hasOwn(v2.details.expandedPriceImpact, k));
    const usd = key !== undefined ? v2.details.expandedPriceImpact[key]!.usd : '0'; // key found just above
    const amount = inInputUnits(usd, currencyIn);
    quoted[component] = { usd, amount: amount.toString(), amountFormatted: formatUnits(amount, currencyIn.currency.decimals) };
  }
  return {
    requestId: v2.requestId,
    steps,
    fees: { quoted, currency: currencyIn.currency },
    details: v2.details,
    ...(v2.protocol ? { protocol: v2.protocol } : {}),
  };
}

/** |usd| converted to base units of the input currency at the quote's input price; 0 when it has no price. */
function inInputUnits(usd: string, currencyIn: CurrencyAmountJson): bigint {
  const micros = parseUsdMicros(usd);
  const abs = micros < 0n ? -micros : micros;
  const priceMicros = parseUsdMicros(currencyIn.amountUsd);
  if (priceMicros <= 0n) return 0n;
  return (abs * BigInt(currencyIn.amount)) / priceMicros;
}
