/**
 * A quote refused by Relay's address screening (HTTP 400 `BLOCKED_WALLET_ADDRESS` or `SANCTIONED_WALLET_ADDRESS`,
 * https://docs.relay.link/security/transaction-screening): final, never retried. The answer does not say which
 * screened address was refused (depositor, recipient or `refundTo`), so both wallets of the transfer are paused
 * (src/store/walletPauses.ts; src/cycle/pausedRoutes.ts keeps their routes out of the next plans) and counted in
 * `ballast_wallet_screening_blocks_total{wallet,stage}`.
 */
import type { RelayApiError } from '../relay/errors.ts';
import { recordWalletPause } from '../store/walletPauses.ts';
import type { CycleContext } from './context.ts';
import type { QuoteFailedAttempt } from './transferAttempt.ts';

/**
 * Records the pauses of both wallets of `attempt.planned`, counts and logs them, and returns the attempt as a
 * `quote_error` (no quote) whose text says the quote was refused by screening.
 *
 * @throws store errors
 */
export async function pauseScreenedQuote(
  ctx: Pick<CycleContext, 'db' | 'now' | 'logger' | 'metrics'>,
  attempt: Pick<QuoteFailedAttempt, 'planned' | 'planId' | 'request'>,
  refusal: RelayApiError,
): Promise<QuoteFailedAttempt> {
  const { planned } = attempt;
  const code = refusal.errorCode ?? 'BLOCKED_WALLET_ADDRESS';
  const wallets = [
    ...new Map([
      [planned.from.address, planned.from.wallet],
      [planned.to.address, planned.to.wallet],
    ]).entries(),
  ];
  const detail =
    `quote for ${planned.asset} ${planned.from.chain} → ${planned.to.chain} refused by Relay address screening (${code}` +
    `${refusal.requestId ? `, requestId ${refusal.requestId}` : ''}): nothing was signed`;
  for (const [address, wallet] of wallets) {
    await recordWalletPause(ctx.db, { address, stage: 'quote', code, detail, nowMs: ctx.now() });
    ctx.metrics.walletScreeningBlocksTotal.inc({ wallet, stage: 'quote' });
  }
  const names = [...new Set(wallets.map(([, w]) => w))];
  const error =
    `${detail}; every route of wallet(s) ${names.join(', ')} is paused until an operator checks with Relay support and runs ` +
    `\`ballast resume --wallet <name> --note …\``;
  ctx.logger.error(
    {
      component: 'pipeline',
      asset: planned.asset,
      from: planned.from.chain,
      to: planned.to.chain,
      errorCode: code,
      requestId: refusal.requestId,
      wallets: names,
    },
    error,
  );
  return { planned, planId: attempt.planId, outcome: 'quote_error', request: attempt.request, error };
}
