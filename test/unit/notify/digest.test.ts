/**
 * The daily digest's pure parts (src/notify/digest.ts): when it is due in its time zone (daylight-saving days
 * included), and what it says: per route the transfers, the stage they reached and what they cost, the pauses and
 * the open approval requests, keyed once per local day; Slack shows its lines.
 */
import { describe, expect, it } from 'vitest';
import type { PausedRoute, PausedWallet } from '../../../packages/ballast/src/cycle/pausedRoutes.ts';
import { buildRouteReports } from '../../../packages/ballast/src/ledger/routeReport.ts';
import { digestDue, digestEvent, isTimeZone } from '../../../packages/ballast/src/notify/digest.ts';
import { dedupeKey } from '../../../packages/ballast/src/notify/events.ts';
import { slackMessage } from '../../../packages/ballast/src/notify/format.ts';
import type { ApprovalRequest } from '../../../packages/ballast/src/store/approvalReads.ts';
import { filledEntry } from './helpers.ts';

describe('digestDue', () => {
  it('is due from its time of day in UTC, for the UTC day', () => {
    const setting = { at: '09:00', timezone: 'UTC' };
    expect(digestDue(Date.UTC(2026, 10, 29, 8, 59, 59), setting)).toBeNull();
    expect(digestDue(Date.UTC(2026, 10, 29, 9, 0, 0), setting)).toEqual({ day: '2026-11-29', atMs: Date.UTC(2026, 10, 29, 9) });
    expect(digestDue(Date.UTC(2026, 10, 29, 23, 59), setting)).toEqual({ day: '2026-11-29', atMs: Date.UTC(2026, 10, 29, 9) });
    expect(digestDue(Date.UTC(2026, 10, 30, 0, 1), setting)).toBeNull();
  });

  it('reads the time of day and the day in its own zone, across daylight-saving changes', () => {
    const ny = { at: '09:00', timezone: 'America/New_York' };
    // 29 Nov 2026: EST (UTC-5); 09:00 local is 14:00 UTC. At 02:00 UTC on the 30th it is still the 29th there.
    expect(digestDue(Date.UTC(2026, 10, 29, 13, 59), ny)).toBeNull();
    expect(digestDue(Date.UTC(2026, 10, 29, 14, 0), ny)).toEqual({ day: '2026-11-29', atMs: Date.UTC(2026, 10, 29, 14) });
    expect(digestDue(Date.UTC(2026, 10, 30, 2, 0), ny)).toEqual({ day: '2026-11-29', atMs: Date.UTC(2026, 10, 29, 14) });
    // 1 Jul 2026: EDT (UTC-4): 09:00 local is 13:00 UTC.
    expect(digestDue(Date.UTC(2026, 6, 1, 13, 0), ny)).toEqual({ day: '2026-07-01', atMs: Date.UTC(2026, 6, 1, 13) });
    // Paris, 29 Mar 2026 (clocks go from 02:00 to 03:00): 09:00 CEST is 07:00 UTC; the day before, 09:00 CET is 08:00 UTC.
    const paris = { at: '09:00', timezone: 'Europe/Paris' };
    expect(digestDue(Date.UTC(2026, 2, 29, 7, 0), paris)).toEqual({ day: '2026-03-29', atMs: Date.UTC(2026, 2, 29, 7) });
    expect(digestDue(Date.UTC(2026, 2, 28, 8, 0), paris)).toEqual({ day: '2026-03-28', atMs: Date.UTC(2026, 2, 28, 8) });
  });

  it('knows IANA zone names', () => {
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Asia/Tokyo')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });
});

const entry = filledEntry;

describe('digestEvent', () => {
  const routes = buildRouteReports(
    [
      { asset: 'USDC', originChain: 'base', destinationChain: 'arbitrum', status: 'success', count: 2 },
      { asset: 'USDC', originChain: 'base', destinationChain: 'arbitrum', status: 'deposited', count: 1 },
      { asset: 'USDC', originChain: 'base', destinationChain: 'arbitrum', status: 'refund', count: 1 },
    ],
    [
      entry({ transferId: 1 }),
      entry({ transferId: 2, amountIn: 500_000n }),
      entry({ transferId: 4, status: 'refund', fees: null, totalFeesUsdMicros: 30_000n }),
    ],
  );
  const paused: PausedRoute = { asset: 'USDT', originChain: 'base', destinationChain: 'optimism', transferIds: [9], reason: 'failure' };
  const wallet: PausedWallet = { wallet: 'ops', address: '0xabc', stages: ['quote'], codes: ['BLOCKED'], pauseIds: [1], transferIds: [] };
  const request = {
    id: 4,
    status: 'pending',
    asset: 'USDC',
    origin: { chain: 'base', wallet: 'treasury', currency: '0x1' },
    destination: { chain: 'arbitrum', wallet: 'treasury', currency: '0x2' },
    amountIn: 9_000_000_000n,
    required: 2,
    signOffs: [{ approver: 'alice', signature: '0x', recordedAtMs: 1 }],
    expiresAtMs: Date.UTC(2026, 10, 30, 9),
  } as unknown as ApprovalRequest;
  const since = Date.UTC(2026, 10, 28, 9);
  const until = Date.UTC(2026, 10, 29, 9, 0, 10);

  it('says what moved, at what cost, what is paused and what waits for sign-offs, keyed by the day', () => {
    const event = digestEvent({
      day: '2026-11-29',
      timezone: 'UTC',
      sinceMs: since,
      untilMs: until,
      routes,
      pausedRoutes: [paused],
      pausedWallets: [wallet],
      openRequests: [request],
    });
    expect(dedupeKey(event)).toBe('daily_digest:2026-11-29');
    expect(event.summary).toBe(
      'daily digest 2026-11-29 (UTC): 4 transfers in 24 h, 2 filled, 1 not yet filled, 1 ended unfilled; fees and gas $0.79; ' +
        '1 route and 1 wallet paused; 1 approval request open',
    );
    expect(event.payload.lines).toEqual([
      'USDC base -> arbitrum: 4 transfers, 2 filled (2500.5 USDC in), 1 not yet filled, 1 ended unfilled (failed, refunded or withdrawn); fees $0.7, gas $0.09',
      'paused: USDT base -> optimism (a failed deposit is unresolved; transfers 9)',
      'paused wallet: ops (0xabc), refused by address screening at quote',
      'approval request 4 pending: USDC base -> arbitrum, 9000000000 base units, 1/2 sign-offs, expires 2026-11-30T09:00:00.000Z',
    ]);
    expect(event.payload).toMatchObject({
      since: '2026-11-28T09:00:00.000Z',
      until: '2026-11-29T09:00:10.000Z',
      transfers: 4,
      filled: 2,
      notYetFilled: 1,
      endedUnfilled: 1,
      feesUsd: '0.7',
      gasUsd: '0.09',
      totalCostUsd: '0.79',
      routes: [{ asset: 'USDC', filled: 2, movedIn: '2500500000', movedInWhole: '2500.5', totalCostUsd: '0.79' }],
      openRequests: [{ id: 4, amountIn: '9000000000', signOffs: 1, required: 2 }],
    });
    const slack = slackMessage({
      dedupeKey: 'daily_digest:2026-11-29',
      event: 'daily_digest',
      severity: 'info',
      summary: event.summary,
      payload: event.payload,
      createdAtMs: until,
    });
    expect(slack.blocks[1]).toEqual({
      type: 'section',
      text: { type: 'mrkdwn', text: (event.payload.lines as string[]).join('\n').replace(/>/g, '&gt;') },
    });
  });

  it('says so when nothing happened', () => {
    const event = digestEvent({
      day: '2026-11-30',
      timezone: 'Europe/Paris',
      sinceMs: since,
      untilMs: until,
      routes: [],
      pausedRoutes: [],
      pausedWallets: [],
      openRequests: [],
    });
    expect(event.summary).toBe(
      'daily digest 2026-11-30 (Europe/Paris): 0 transfers in 24 h, 0 filled, 0 not yet filled, 0 ended unfilled; fees and gas $0; 0 routes and 0 wallets paused; 0 approval requests open',
    );
    expect(event.payload.lines).toEqual(['no transfers, pauses or open requests']);
  });
});
