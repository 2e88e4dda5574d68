/**
 * The refund follow-up against a real SQLite store and a real metrics registry: a `refund` records the amount and
 * the origin-chain refund transaction from the GET /requests/v3 record, once; an unpaid refund (refundFailReason)
 * is metered `not_refunded`, pauses its route and is shown by `ballast history`; an unreadable record falls back to
 * the status endpoint.
 */
import pino from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { followRefund, followRefunds, refundFromRequestRecord } from '../../../packages/ballast/src/cycle/followRefund.ts';
import { pausedRoutes } from '../../../packages/ballast/src/cycle/pausedRoutes.ts';
import { transferNotes } from '../../../packages/ballast/src/cli/historyNotes.ts';
import { createMetrics, type BallastMetrics } from '../../../packages/ballast/src/metrics/metrics.ts';
import type { IntentStatus, RequestsResponse } from '../../../packages/protocol/src/relay/schemas.ts';
import { listUnresolvedFailures, resolveFailure } from '../../../packages/ballast/src/store/failures.ts';
import { getTransfer, transitionTransfer } from '../../../packages/ballast/src/store/transfers.ts';
import { newTransfer } from '../store/helpers.ts';
import { listNotifications } from '../../../packages/ballast/src/store/notifications.ts';
import type { LoadedNotifySink, NotifyConfig } from '../../../packages/ballast/src/config/notifySchema.ts';
import type { LoadedConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import { seedDeposited, useTestStore } from './pipelineSeeds.ts';

const ORIGIN_ID = 8453;
const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const REFUND_TX = `0x${'77'.repeat(32)}`;

const store = useTestStore();
let metrics: BallastMetrics;
beforeEach(() => {
  metrics = createMetrics();
});

/** A deposited transfer closed with `end` at 5 000 ms; returns its id and request id. */
async function closed(end: 'refund' | 'failure' | 'success', n: number): Promise<{ id: number; requestId: string }> {
  const hex = n.toString(16).padStart(2, '0');
  const base = await newTransfer(store.db);
  const requestId = `0x${hex.repeat(32)}`;
  const deposit = { ...base.txs[1]!, txHash: `0x${hex.repeat(32)}` };
  const transferId = await seedDeposited(
    store.db,
    { ...base, requestId, txs: [deposit] },
    { sentAtMs: 3_000, confirmedAtMs: 4_000, depositedAtMs: 4_000 },
  );
  await transitionTransfer(store.db, transferId, 'deposited', end, { nowMs: 5_000, relayStatus: end });
  return { id: transferId, requestId };
}

/** A GET /requests/v3 answer for `id` with `data` as given. */
function answer(id: string, data: Record<string, unknown>): RequestsResponse {
  return { requests: [{ id, status: 'refund', data }] };
}

const refundedData = (amount: string) => ({
  refundFailReason: null,
  outTxs: [
    { txHash: REFUND_TX, chainId: ORIGIN_ID, status: 'success' },
    { txHash: `0x${'88'.repeat(32)}`, chainId: ORIGIN_ID, status: 'success' }, // the internal settlement leg
  ],
  refundCurrencyData: { currency: { chainId: ORIGIN_ID, address: USDC_BASE.toLowerCase() }, amount, amountFormatted: '99.5' },
});

function deps(relay: { requests?: (id: string) => RequestsResponse; status?: Partial<IntentStatus> }) {
  let statusReads = 0;
  return {
    db: store.db,
    metrics,
    logger: pino({ level: 'silent' }),
    now: () => 10_000,
    relay: {
      async getRequests(q: { id: string } | { user: string }) {
        if (!relay.requests || !('id' in q)) throw new Error('GET /requests/v3: 401 headers must have required property x-api-key');
        return relay.requests(q.id);
      },
      async getStatus(): Promise<IntentStatus> {
        statusReads++;
        return { status: 'refund', inTxHashes: [], txHashes: [], ...relay.status };
      },
    },
    statusReads: () => statusReads,
  };
}

async function counter(labels: { chain: string; outcome: string; reason: string }): Promise<number> {
  const m = (await metrics.refundsTotal.get()).values.find(
    (v) => v.labels.chain === labels.chain && v.labels.outcome === labels.outcome && v.labels.reason === labels.reason,
  );
  return m?.value ?? 0;
}

describe('refundFromRequestRecord', () => {
  const row = { requestId: '0xaa', originChainId: ORIGIN_ID, originCurrency: USDC_BASE, status: 'refund' as const };

  it('takes the first origin-chain outTx and refundCurrencyData.amount (currency compared case-insensitively on 0x)', () => {
    expect(refundFromRequestRecord(row, answer('0xaa', refundedData('99500000')), 1)).toEqual({
      amount: 99_500_000n,
      txHash: REFUND_TX,
      failReason: null,
      nowMs: 1,
    });
  });

  it('leaves the amount unknown when the refunded currency is on another chain, and reads v2-style `hash`', () => {
    const data = { outTxs: [{ hash: '0xbeef', chainId: ORIGIN_ID }], refundCurrencyData: { currency: { chainId: 42161 }, amount: '5' } };
    expect(refundFromRequestRecord(row, answer('0xaa', data), 1)).toEqual({ amount: null, txHash: '0xbeef', failReason: null, nowMs: 1 });
  });

  it('says why when the record is missing or its amount is not base units', () => {
    expect(refundFromRequestRecord(row, answer('0xbb', {}), 1)).toBe('GET /requests/v3 has no record for request 0xaa');
    expect(refundFromRequestRecord(row, answer('0xaa', refundedData('99.5')), 1)).toContain(
      'data.refundCurrencyData.amount: amount must be an unsigned integer string',
    );
  });
});

describe('followRefund', () => {
  it('queues transfer_refunded once for a paid refund and transfer_failed for a failure, when notify: is set', async () => {
    const sink = { name: 'ops', kind: 'slack', events: '*', minSeverity: 'info' } as LoadedNotifySink;
    Object.defineProperty(sink, 'url', { value: 'https://hooks.example/x' });
    const notify = { sinks: [sink], maxAttempts: 3 } as unknown as NotifyConfig;
    const refund = await closed('refund', 5);
    const failure = await closed('failure', 6);
    const d = { ...deps({ requests: (rid) => answer(rid, refundedData('99500000')) }), config: { notify } as unknown as LoadedConfig };
    await followRefund(d, refund.id);
    await followRefund(d, refund.id); // already followed up: nothing queued again
    await followRefund(d, failure.id);
    const rows = await listNotifications(store.db, 10);
    expect(rows.map((r) => [r.event, r.dedupeKey])).toEqual([
      ['transfer_failed', `transfer_failed:transfer:${failure.id}`],
      ['transfer_refunded', `transfer_refunded:transfer:${refund.id}`],
    ]);
    expect(JSON.parse(rows[1]!.payload)).toMatchObject({
      requestId: refund.requestId,
      refundedAmount: '99500000',
      refundTxHash: REFUND_TX,
    });
  });

  it('records a paid refund once: amount, refund tx; metered refunded; the route is not paused', async () => {
    const { id, requestId } = await closed('refund', 1);
    const d = deps({ requests: (rid) => answer(rid, refundedData('99500000')) });
    const result = await followRefund(d, id);
    expect(result).toMatchObject({ kind: 'recorded', refunded: true });
    const row = (await getTransfer(store.db, id))!;
    expect(row.refund).toEqual({ amount: 99_500_000n, txHash: REFUND_TX, failReason: null, checkedAtMs: 10_000 });
    expect(requestId).toBe(row.requestId);
    expect(await counter({ chain: 'base', outcome: 'refunded', reason: 'none' })).toBe(1);
    expect(await listUnresolvedFailures(store.db)).toEqual([]);
    expect(transferNotes(row, undefined)).toContain(`refunded to ${row.user} on base: 99500000 base units of ${USDC_BASE} in ${REFUND_TX}`);
    // a second follow-up (the next cycle's backfill) neither rewrites nor meters again
    expect(await followRefund(d, id)).toEqual({ kind: 'skipped', why: 'already followed up' });
    expect(await followRefunds(d)).toBe(0);
    expect(await counter({ chain: 'base', outcome: 'refunded', reason: 'none' })).toBe(1);
  });

  it('an unpaid refund (MANUAL_REFUND_REQUIRED) is metered not_refunded, pauses its route until resolved, and history says so', async () => {
    const { id } = await closed('refund', 2);
    const d = deps({ requests: (rid) => answer(rid, { refundFailReason: 'MANUAL_REFUND_REQUIRED', outTxs: [] }) });
    expect(await followRefund(d, id)).toMatchObject({ kind: 'recorded', refunded: false });
    expect(await counter({ chain: 'base', outcome: 'not_refunded', reason: 'MANUAL_REFUND_REQUIRED' })).toBe(1);
    const failures = await listUnresolvedFailures(store.db);
    expect(failures.map((r) => r.id)).toEqual([id]);
    expect(pausedRoutes(failures)).toEqual([
      { asset: 'USDC', originChain: 'base', destinationChain: 'arbitrum', transferIds: [id], reason: 'failure' },
    ]);
    const notes = transferNotes((await getTransfer(store.db, id))!, undefined);
    expect(notes).toContain('refund NOT paid (refundFailReason MANUAL_REFUND_REQUIRED): the deposit awaits manual recovery');
    expect(await resolveFailure(store.db, id, 'withdrawn by hand', 20_000)).toEqual([id]);
    expect(await listUnresolvedFailures(store.db)).toEqual([]);
  });

  it('a failure carrying a refundFailReason is metered with an unknown reason as OTHER; one without is recorded, not metered', async () => {
    const a = await closed('failure', 3);
    const b = await closed('failure', 4);
    const d = deps({ requests: (rid) => answer(rid, { refundFailReason: rid.startsWith('0x03') ? 'SOMETHING_NEW' : null }) });
    expect(await followRefunds(d)).toBe(2);
    expect(await counter({ chain: 'base', outcome: 'not_refunded', reason: 'OTHER' })).toBe(1);
    expect((await metrics.refundsTotal.get()).values.reduce((s, v) => s + v.value, 0)).toBe(1);
    expect((await getTransfer(store.db, a.id))!.refund?.failReason).toBe('SOMETHING_NEW');
    expect((await getTransfer(store.db, b.id))!.refund?.failReason).toBeNull();
    expect(transferNotes((await getTransfer(store.db, a.id))!, undefined)).toContain(
      'not refunded automatically (refundFailReason SOMETHING_NEW)',
    );
  });

  it('falls back to the status endpoint when GET /requests/v3 cannot be read: its refundFailReason, no amount', async () => {
    const { id } = await closed('refund', 5);
    const d = deps({ status: { refundFailReason: 'AMOUNT_TOO_LOW_TO_REFUND' } });
    expect(await followRefund(d, id)).toMatchObject({ kind: 'recorded', refunded: false });
    expect(d.statusReads()).toBe(1);
    expect((await getTransfer(store.db, id))!.refund).toEqual({
      amount: null,
      txHash: null,
      failReason: 'AMOUNT_TOO_LOW_TO_REFUND',
      checkedAtMs: 10_000,
    });
    // `N/A` from the status endpoint is no reason
    const other = await closed('refund', 6);
    expect(await followRefund(deps({ status: { refundFailReason: 'N/A' } }), other.id)).toMatchObject({ kind: 'recorded', refunded: true });
  });

  it('leaves a success alone', async () => {
    const { id } = await closed('success', 7);
    expect(await followRefund(deps({ requests: (rid) => answer(rid, refundedData('1')) }), id)).toEqual({
      kind: 'skipped',
      why: 'not refund or failure',
    });
    expect((await getTransfer(store.db, id))!.refund).toBeNull();
  });
});
