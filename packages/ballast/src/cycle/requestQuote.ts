/**
 * Asks POST /quote/v2 for a planned transfer, narrowing Solana routing when the compiled deposit transaction is
 * too large (docs/relay-contract.md "Errors" `SOLANA_TX_TOO_LARGE`, "Limits"): re-quoting unchanged usually yields another
 * oversized route, so Ballast asks again with `maxRouteLength` 4, then 3, then a single `includedOriginSwapSources`
 * entry (when `chains.<name>.originSwapSource` names one), records every attempt, and gives up with the reason.
 * Any other error (e.g. `INSUFFICIENT_FUNDS`, or a screening refusal `BLOCKED_WALLET_ADDRESS`, which is final:
 * src/relay/screening.ts) is recorded once and not retried this cycle.
 */
import type { QuoteRequest, QuoteResponse } from '@ballast/protocol/relay/schemas.ts';
import { recordQuoteError } from '../store/quotes.ts';
import type { CycleContext } from './context.ts';

/** The routing restrictions tried, in order, after a `SOLANA_TX_TOO_LARGE` answer. */
export function solanaNarrowing(singleSource: string | undefined): Partial<QuoteRequest>[] {
  return [
    { maxRouteLength: 4 },
    { maxRouteLength: 3 },
    ...(singleSource ? [{ maxRouteLength: 3, includedOriginSwapSources: [singleSource] }] : []),
  ];
}

/**
 * Outcome of {@link requestQuote}: the quote and the request that obtained it, or the error text and the error
 * itself (`cause`, for typed checks such as a refused API key or a screening refusal).
 */
export type QuoteOutcome =
  | { ok: true; quote: QuoteResponse; raw: unknown; request: QuoteRequest }
  | { ok: false; error: string; cause: unknown; request: QuoteRequest };

/**
 * Quotes `request`, narrowing Solana routing on `SOLANA_TX_TOO_LARGE`. Every failed attempt is written to
 * `quote_errors` with its code and message.
 *
 * @param opts.singleSource the Solana swap source to try last (none: the sequence stops after `maxRouteLength` 3)
 * @returns the quote, or the last error (with how many attempts were made)
 */
export async function requestQuote(
  ctx: Pick<CycleContext, 'relay' | 'db' | 'now' | 'logger'>,
  request: QuoteRequest,
  opts: { cycleId: number; planId: number; singleSource?: string },
): Promise<QuoteOutcome> {
  const narrowing = solanaNarrowing(opts.singleSource);
  let current = request;
  for (let attempt = 0; ; attempt++) {
    try {
      const { quote, raw } = await ctx.relay.quote(current);
      return { ok: true, quote, raw, request: current };
    } catch (error) {
      // Relay client errors carry `code` (RELAY_…) and, for API answers, the service's `errorCode`.
      const e = error as { code?: string; errorCode?: string; message?: string; requestId?: string };
      const code = e.code ?? 'UNKNOWN';
      const tooLarge = e.errorCode === 'SOLANA_TX_TOO_LARGE';
      await recordQuoteError(ctx.db, {
        cycleId: opts.cycleId,
        planId: opts.planId,
        code,
        message: e.message ?? String(error),
        relayRequestId: e.requestId,
        atMs: ctx.now(),
      });
      const next = narrowing[attempt];
      if (!tooLarge || next === undefined) {
        const tried = attempt > 0 ? ` (after ${attempt + 1} attempts narrowing Solana routing: ${describe(current)})` : '';
        const hint = tooLarge && !opts.singleSource ? '; set chains.<solana chain>.originSwapSource to try a single swap source' : '';
        ctx.logger.error({ err: e.message, code, requestId: e.requestId }, 'quote failed');
        return { ok: false, error: `${code}: ${e.message ?? String(error)}${tried}${hint}`, cause: error, request: current };
      }
      current = { ...request, ...next };
      ctx.logger.warn(
        { errorCode: e.errorCode, next: describe(current) },
        'Solana deposit transaction too large; quoting again with narrower routing',
      );
    }
  }
}

function describe(request: QuoteRequest): string {
  const parts = [];
  if (request.maxRouteLength !== undefined) parts.push(`maxRouteLength ${request.maxRouteLength}`);
  if (request.includedOriginSwapSources) parts.push(`includedOriginSwapSources [${request.includedOriginSwapSources.join(', ')}]`);
  return parts.join(', ') || 'unrestricted';
}
