/**
 * Following a refund to the origin wallet. Refunds are paid on the origin chain to the quote's `refundTo`
 * (https://docs.relay.link/references/api/api_core_concepts/refunds); Ballast asks for its origin wallet there
 * (src/cycle/expectations.ts). Once a transfer closes `refund` or `failure`, the request record of GET
 * /requests/v3 says what came back: the refund transaction (the first of `data.outTxs` on the origin chain: with a
 * refund to the depositor the docs list two, the first being the one that pays,
 * https://docs.relay.link/features/deposit-addresses), the amount (`data.refundCurrencyData.amount`, origin base
 * units, when its currency is on the origin chain) and `data.refundFailReason` (null for none). When the record
 * cannot be read (GET /requests/v3 needs an API key), the status endpoint's `refundFailReason` is recorded and the
 * amount stays unknown.
 *
 * A refund that did not happen (`refundFailReason` other than `N/A`/null: `MANUAL_REFUND_REQUIRED`,
 * `AMOUNT_TOO_LOW_TO_REFUND`, ...; https://docs.relay.link/references/api/api_core_concepts/execution-errors) leaves
 * the deposit where an operator must act: it is metered (`ballast_refunds_total{outcome="not_refunded"}`, alert
 * `BallastRefundNotPaid`), logged as an error, shown by `ballast history`, and pauses its route like a failed deposit
 * (src/store/failures.ts) until `ballast resume`.
 */
import { z } from 'zod';
import { shortErrorMessage } from '../core/errorMessage.ts';
import type { RelayClient } from '../relay/client.ts';
import type { RequestsResponse } from '@ballast/protocol/relay/schemas.ts';
import { listRefundsToFollow, recordRefund, type RefundRecord } from '../store/refunds.ts';
import { getTransfer } from '../store/transfers.ts';
import type { TransferRow } from '../store/transferRows.ts';
import type { CycleContext } from './context.ts';
import { notify } from '../notify/notify.ts';
import { transferClosedEvent } from '../notify/eventOf.ts';

/** What the follow-up uses from the cycle context. */
export type FollowRefundDeps = Pick<CycleContext, 'db' | 'metrics' | 'logger' | 'now'> &
  Partial<Pick<CycleContext, 'config'>> & {
    relay: Pick<RelayClient, 'getRequests' | 'getStatus'>;
  };

/** The published `refundFailReason` values other than `N/A` (metric label values; others are `OTHER`). */
export const REFUND_FAIL_REASONS = [
  'AMOUNT_TOO_LOW_TO_REFUND',
  'NEGATIVE_NEW_AMOUNT_AFTER_FEES',
  'SWAP_CURRENCY_NOT_ON_ORIGIN',
  'REFUND_RECIPIENT_IS_VASP',
  'MANUAL_REFUND_REQUIRED',
] as const;

/** How far back {@link followRefunds} looks for closed transfers without a follow-up, ms (7 days). */
export const REFUND_FOLLOW_WINDOW_MS = 7 * 86_400_000;

const UINT_RE = /^[0-9]+$/;

/** The parts of a GET /requests/v3 record the follow-up reads; anything else is ignored. */
const RefundRecordSchema = z.looseObject({
  id: z.string(),
  refundTo: z.string().nullable().optional(),
  data: z
    .looseObject({
      refundFailReason: z.string().nullable().optional(),
      outTxs: z
        .array(z.looseObject({ txHash: z.string().optional(), hash: z.string().optional(), chainId: z.number().int().optional() }))
        .optional(),
      refundCurrencyData: z
        .looseObject({
          amount: z.string().regex(UINT_RE, 'amount must be an unsigned integer string of base units').optional(),
          currency: z.looseObject({ chainId: z.number().int().optional(), address: z.string().optional() }).optional(),
        })
        .nullable()
        .optional(),
    })
    .optional(),
});

/** `refundFailReason` as stored: null for absent, null or `N/A` (the status endpoint's default). */
export function refundFailReasonOf(value: string | null | undefined): string | null {
  return value === undefined || value === null || value === '' || value === 'N/A' ? null : value;
}

/** Same currency id: 0x hex case-insensitively, any other form exactly. */
function sameCurrency(a: string, b: string): boolean {
  return a === b || (a.startsWith('0x') && b.startsWith('0x') && a.toLowerCase() === b.toLowerCase());
}

/**
 * Reads the follow-up of transfer `t` from its GET /requests/v3 record (`requests` of the answer).
 *
 * @returns the record to store, or a string saying why the answer holds none (no record for the request id, or
 *   a record that does not parse)
 */
export function refundFromRequestRecord(
  t: Pick<TransferRow, 'requestId' | 'originChainId' | 'originCurrency' | 'status'>,
  answer: RequestsResponse,
  nowMs: number,
): RefundRecord | string {
  const raw = answer.requests.find((r) => r.id === t.requestId);
  if (!raw) return `GET /requests/v3 has no record for request ${t.requestId}`;
  const parsed = RefundRecordSchema.safeParse(raw);
  if (!parsed.success)
    return `GET /requests/v3 record of ${t.requestId} does not parse: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`;
  const data = parsed.data.data ?? {};
  const failReason = refundFailReasonOf(data.refundFailReason);
  if (t.status !== 'refund') return { amount: null, txHash: null, failReason, nowMs };
  const refundTx = (data.outTxs ?? []).find((o) => o.chainId === t.originChainId);
  const paid = data.refundCurrencyData;
  const onOrigin =
    paid?.currency?.chainId === t.originChainId &&
    (paid.currency.address === undefined || sameCurrency(paid.currency.address, t.originCurrency));
  return {
    amount: onOrigin && paid?.amount !== undefined ? BigInt(paid.amount) : null, // checked ^[0-9]+$ by the schema
    txHash: refundTx?.txHash ?? refundTx?.hash ?? null,
    failReason,
    nowMs,
  };
}

/** What {@link followRefund} did. */
export type FollowRefundResult = { kind: 'recorded'; refund: RefundRecord; refunded: boolean } | { kind: 'skipped'; why: string };

/**
 * Follows up transfer `transferId` once it is `refund` or `failure`: reads what came back, records it (once),
 * meters `ballast_refunds_total` and logs. A `failure` without a `refundFailReason` is recorded but not metered (no
 * refund was attempted). Never throws: errors are logged and the next cycle's {@link followRefunds} retries.
 */
export async function followRefund(deps: FollowRefundDeps, transferId: number): Promise<FollowRefundResult> {
  const log = deps.logger.child({ component: 'refunds', transferId });
  try {
    const t = await getTransfer(deps.db, transferId);
    if (!t || (t.status !== 'refund' && t.status !== 'failure')) return { kind: 'skipped', why: 'not refund or failure' };
    if (t.refund) return { kind: 'skipped', why: 'already followed up' };
    if (!t.requestId) return { kind: 'skipped', why: 'no request id' };
    const refund = await readRefund(deps, t, log);
    if (!(await recordRefund(deps.db, t.id, refund))) return { kind: 'skipped', why: 'already followed up' };
    const refunded = t.status === 'refund' && refund.failReason === null;
    await notify(deps, transferClosedEvent(t, refund));
    const ctx = {
      requestId: t.requestId,
      chain: t.originChain,
      refundTx: refund.txHash,
      amount: refund.amount?.toString() ?? null,
      refundFailReason: refund.failReason,
    };
    if (refunded) {
      deps.metrics.refundsTotal.inc({ chain: t.originChain, outcome: 'refunded', reason: 'none' });
      log.info(ctx, 'refund to the origin wallet recorded');
    } else if (refund.failReason !== null) {
      const reason = (REFUND_FAIL_REASONS as readonly string[]).includes(refund.failReason) ? refund.failReason : 'OTHER';
      deps.metrics.refundsTotal.inc({ chain: t.originChain, outcome: 'not_refunded', reason });
      log.error(
        ctx,
        'the deposit was not refunded automatically; its route is paused until an operator recovers it and runs `ballast resume`',
      );
    }
    return { kind: 'recorded', refund, refunded };
  } catch (error) {
    log.error({ err: shortErrorMessage(error) }, 'refund follow-up not recorded; the next cycle retries');
    return { kind: 'skipped', why: shortErrorMessage(error) };
  }
}

/** GET /requests/v3 first; the status endpoint when that cannot be read (its `refundFailReason`, no amount). */
async function readRefund(deps: FollowRefundDeps, t: TransferRow, log: FollowRefundDeps['logger']): Promise<RefundRecord> {
  const requestId = t.requestId!; // checked by the caller
  try {
    const read = refundFromRequestRecord(t, await deps.relay.getRequests({ id: requestId }), deps.now());
    if (typeof read !== 'string') return read;
    log.warn({ requestId, why: read }, 'request record unusable; reading the status endpoint');
  } catch (error) {
    log.warn({ requestId, err: shortErrorMessage(error) }, 'request record unreadable; reading the status endpoint');
  }
  const status = await deps.relay.getStatus(requestId);
  return { amount: null, txHash: null, failReason: refundFailReasonOf(status.refundFailReason), nowMs: deps.now() };
}

/**
 * Follows up the transfers closed `refund` or `failure` in the last {@link REFUND_FOLLOW_WINDOW_MS} that have none
 * yet (closed by a webhook, or a follow-up that failed), at most `limit` per call.
 *
 * @returns how many were recorded now
 */
export async function followRefunds(deps: FollowRefundDeps, limit = 20): Promise<number> {
  let rows: TransferRow[];
  try {
    rows = await listRefundsToFollow(deps.db, deps.now() - REFUND_FOLLOW_WINDOW_MS, limit);
  } catch (error) {
    deps.logger.error({ component: 'refunds', err: shortErrorMessage(error) }, 'refund follow-ups not listed; the next cycle retries');
    return 0;
  }
  let done = 0;
  for (const row of rows) if ((await followRefund(deps, row.id)).kind === 'recorded') done++;
  return done;
}
