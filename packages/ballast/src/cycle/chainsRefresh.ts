/**
 * Local verification against a cached GET /chains list (src/relay/chainsCache.ts), refreshed at most once per
 * quote: a quote refused on a rule that reads the list (it may name a chain, depository, solver or contract
 * the cached list does not know yet) is verified again, from scratch, against a list fetched on the spot, and
 * that second verdict is final. A quote refused on the cached list is never accepted without a fresh list, and
 * a quote never causes more than one refresh. A quote the cached list accepts is not checked again: the list it
 * was judged on is at most `relay.chainsCacheSec` old (the trade the cache makes; 0 fetches every cycle).
 */
import type { Logger } from 'pino';
import { shortErrorMessage } from '../core/errorMessage.ts';
import type { ChainsCache } from '../relay/chainsCache.ts';
import type { ChainsResponse } from '@ballast/protocol/relay/schemas.ts';
import { verifyQuote, type Verdict, type VerifyQuoteInput, type VerifyRuleId } from '../verify/verifyQuote.ts';

/**
 * Rules that never read GET /chains: a failure of one of these alone cannot be caused by a stale list, so it
 * fetches nothing. Every other rule (chain status, output chain, order id, depository, solver, signature,
 * extraData, refund terms, deposit and approval rules, and any rule added later) may, and does.
 */
const RULES_WITHOUT_CHAINS: ReadonlySet<VerifyRuleId> = new Set<VerifyRuleId>([
  'protocol-present',
  'recipient',
  'min-output',
  'no-calls-or-fees',
  'details-consistency',
  'payment-weight',
  'refund-recipient',
  'deadline',
  'deadline-horizon',
]);

/** True when a refusal may come from the list being stale: some failed rule reads GET /chains. */
export function refusalMayBeStaleChains(verdict: Verdict): boolean {
  return verdict.rules.some((r) => !r.ok && !RULES_WITHOUT_CHAINS.has(r.rule));
}

/** Result of {@link verifyWithFreshChains}: the final verdict and the list it was judged against. */
export interface FreshChainsVerdict {
  verdict: Verdict;
  chains: ChainsResponse;
  /** True when a refusal on the cached list made the quote be judged again on a fresh one. */
  refreshed: boolean;
}

/**
 * Verifies `input.quote` against `input.chains`; when that refuses it on a rule reading the list and a cache is
 * given, refreshes the list once ({@link ChainsCache.refresh}) and verifies again against the fresh list only.
 * A failed refresh is logged and leaves the first (refusing) verdict.
 *
 * @throws what `verifyQuote` throws (VerifyInputError on bad expectations)
 */
export async function verifyWithFreshChains(
  input: VerifyQuoteInput,
  cache: ChainsCache | undefined,
  log: Pick<Logger, 'info' | 'warn'>,
  context: { requestId: string | null },
): Promise<FreshChainsVerdict> {
  const first = await verifyQuote(input);
  if (first.ok || cache === undefined || !refusalMayBeStaleChains(first)) return { verdict: first, chains: input.chains, refreshed: false };
  const failed = first.rules.filter((r) => !r.ok).map((r) => r.rule);
  let fresh: ChainsResponse;
  try {
    fresh = await cache.refresh(input.chains);
  } catch (error) {
    log.warn(
      { requestId: context.requestId, failed, err: shortErrorMessage(error) },
      'GET /chains refresh failed; the quote stays refused on the cached list',
    );
    return { verdict: first, chains: input.chains, refreshed: false };
  }
  log.info({ requestId: context.requestId, failed }, 'quote refused on the cached GET /chains list; judged again on a fresh list');
  return { verdict: await verifyQuote({ ...input, chains: fresh }), chains: fresh, refreshed: true };
}
