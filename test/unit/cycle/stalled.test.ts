/**
 * Stalled transfers (src/cycle/stalled.ts): when a transfer counts as stalled, finding the request that names a
 * deposit, and what one pass does against a real SQLite store and a scripted Relay API: flag once, adopt the
 * request id the service files the deposit under, re-announce a deposit no request names, and change nothing
 * but the flag when the lookup fails.
 */
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { handleStalled, isStalled, isStalledByBlocks, requestIdForDeposit } from '../../../packages/ballast/src/cycle/stalled.ts';
import type { ChainAdapter } from '../../../packages/ballast/src/chains/adapter.ts';
import type { CycleContext } from '../../../packages/ballast/src/cycle/context.ts';
import type { RequestsResponse } from '../../../packages/protocol/src/relay/schemas.ts';
import { getTransfer, type TransferRow } from '../../../packages/ballast/src/store/transfers.ts';
import { newTransfer } from '../store/helpers.ts';
import { seedDeposited, useTestStore } from './pipelineSeeds.ts';
import { listNotifications } from '../../../packages/ballast/src/store/notifications.ts';
import type { LoadedNotifySink } from '../../../packages/ballast/src/config/notifySchema.ts';

const DEPOSIT = `0x${'22'.repeat(32)}`;
const MIN = 60_000;

const store = useTestStore();

/** A transfer whose approve and deposit are mined, `deposited` at `atMs`. */
async function deposited(atMs: number, requestId = `0x${'ab'.repeat(32)}`): Promise<number> {
  return seedDeposited(store.db, await newTransfer(store.db, { nowMs: atMs - 10, requestId }), {
    sentAtMs: atMs - 5,
    confirmedAtMs: atMs - 1,
    depositedAtMs: atMs,
  });
}

function record(id: string, txHash: string): RequestsResponse['requests'][number] {
  return { id, status: 'pending', data: { inTxs: [{ txHash, chainId: 8453 }] } };
}

function context(
  nowMs: number,
  relay: Partial<CycleContext['relay']>,
  chains: CycleContext['chains'] = new Map(),
  notify?: { sinks: LoadedNotifySink[] },
) {
  const calls: string[] = [];
  const ctx = {
    db: store.db,
    chains,
    now: () => nowMs,
    logger: pino({ level: 'silent' }),
    config: { tracking: { stalledAfterSec: 1800 }, ...(notify ? { notify } : {}) },
    relay: {
      getRequests: async (q: { user: string }) => {
        calls.push(`requests ${q.user}`);
        return relay.getRequests!(q);
      },
      indexTransaction: async (b: { chainId: number; txHash: string }) => {
        calls.push(`index ${b.chainId} ${b.txHash}`);
        return {};
      },
    },
  } as unknown as CycleContext; // handleStalled reads only these fields
  return { ctx, calls };
}

describe('isStalled', () => {
  it('counts a deposited transfer from its deposited event and others from their creation', async () => {
    const id = await deposited(100 * MIN);
    const row = (await getTransfer(store.db, id))!;
    expect(isStalled(row, 100 * MIN + 29 * MIN, 1800)).toBe(false);
    expect(isStalled(row, 100 * MIN + 30 * MIN, 1800)).toBe(true);
    const prepared: TransferRow = { ...row, status: 'broadcast' };
    expect(isStalled(prepared, row.createdAtMs + 30 * MIN, 1800)).toBe(true);
    expect(isStalled({ ...row, status: 'success' }, 10_000 * MIN, 1800)).toBe(false);
  });
});

describe('isStalledByBlocks (Bitcoin: docs/relay-contract.md "Limits")', () => {
  it('counts the depth of the deposit block, the including block counted', async () => {
    const row = (await getTransfer(store.db, await deposited(100 * MIN)))!; // deposit mined at block 10
    expect(isStalledByBlocks(row, 12n, 3)).toBe(false); // 3 blocks deep: still allowed
    expect(isStalledByBlocks(row, 13n, 3)).toBe(true);
    expect(isStalledByBlocks(row, 13n, 4)).toBe(false); // high value: one block more
    expect(isStalledByBlocks({ ...row, status: 'broadcast' }, 100n, 3)).toBe(false);
  });

  it('flags a deposited transfer on a chain with a block policy before stalledAfterSec, and reads the head once', async () => {
    const a = await deposited(100 * MIN);
    const b = await deposited(100 * MIN, `0x${'cd'.repeat(32)}`);
    let headReads = 0;
    // The pass asks the origin chain only for its head and its block policy.
    const chain = {
      name: 'base',
      head: async () => (headReads++, 14n),
      capabilities: { stallPolicy: { stalledAfterBlocks: (amount: bigint) => (amount >= 10n ** 30n ? 6 : 3) } },
    } as unknown as ChainAdapter;
    const rowA = (await getTransfer(store.db, a))!;
    const { ctx } = context(100 * MIN + 60_000, { getRequests: async () => ({ requests: [] }) }, new Map([[rowA.originChain, chain]]));
    const count = await handleStalled(ctx, [(await getTransfer(store.db, a))!, (await getTransfer(store.db, b))!]);
    expect(count).toBe(2);
    expect(headReads).toBe(1);
    const flagged = (await getTransfer(store.db, a))!.events.find((e) => e.detail?.includes('blocks deep'));
    expect(flagged?.detail).toContain('deposit mined 5 blocks deep without a final status (stalled after 3)');
  });
});

describe('requestIdForDeposit', () => {
  it('finds the record naming the hash (any case) and skips records of other shapes', () => {
    const records = [
      { id: 'r0', status: 'x', data: { inTxs: 'nope' } },
      record('r1', `0x${'33'.repeat(32)}`),
      record('r2', DEPOSIT.toUpperCase().replace('0X', '0x')),
    ];
    expect(requestIdForDeposit(records, DEPOSIT)).toBe('r2');
    expect(requestIdForDeposit(records.slice(0, 2), DEPOSIT)).toBeUndefined();
  });
});

describe('handleStalled', () => {
  it('leaves a transfer that is not stalled yet alone: no flag, no call', async () => {
    const id = await deposited(100 * MIN);
    const { ctx, calls } = context(100 * MIN + 10 * MIN, { getRequests: async () => ({ requests: [] }) });
    expect(await handleStalled(ctx, [(await getTransfer(store.db, id))!])).toBe(0);
    expect(calls).toEqual([]);
    expect((await getTransfer(store.db, id))?.stalledAtMs).toBeNull();
  });

  it('flags it and adopts the request id the service files our deposit under', async () => {
    const id = await deposited(100 * MIN);
    const { ctx, calls } = context(140 * MIN, { getRequests: async () => ({ requests: [record('0xfiled-elsewhere', DEPOSIT)] }) });
    expect(await handleStalled(ctx, [(await getTransfer(store.db, id))!])).toBe(1);
    const row = (await getTransfer(store.db, id))!;
    expect(row.status).toBe('deposited');
    expect(row.stalledAtMs).toBe(140 * MIN);
    expect(row.requestId).toBe('0xfiled-elsewhere');
    expect(row.events.slice(-2).map((e) => e.detail)).toEqual([
      expect.stringMatching(/^stalled: deposited for over 1800 s/),
      expect.stringMatching(/files deposit 0x2{64} under request 0xfiled-elsewhere/),
    ]);
    expect(calls).toEqual([`requests ${row.user}`]);
  });

  it('announces the deposit again when no request names it, every pass, and flags it only once', async () => {
    const id = await deposited(100 * MIN);
    const { ctx, calls } = context(140 * MIN, {
      getRequests: async () => ({ requests: [record('0xsomething-else', `0x${'44'.repeat(32)}`)] }),
    });
    await handleStalled(ctx, [(await getTransfer(store.db, id))!]);
    await handleStalled(ctx, [(await getTransfer(store.db, id))!]);
    expect(calls.filter((c) => c.startsWith('index'))).toEqual([`index 8453 ${DEPOSIT}`, `index 8453 ${DEPOSIT}`]);
    const row = (await getTransfer(store.db, id))!;
    expect(row.requestId).toBe(`0x${'ab'.repeat(32)}`);
    expect(row.events.filter((e) => e.detail?.startsWith('stalled:'))).toHaveLength(1);
  });

  it('with notify: set, queues transfer_stalled once however many passes see it', async () => {
    const sink = {
      name: 'ops',
      kind: 'slack',
      url: 'https://hooks.example/x',
      events: ['transfer_stalled'],
      minSeverity: 'warning',
    } as LoadedNotifySink;
    const id = await deposited(100 * MIN);
    const { ctx } = context(140 * MIN, { getRequests: async () => ({ requests: [] }) }, new Map(), { sinks: [sink] });
    await handleStalled(ctx, [(await getTransfer(store.db, id))!]);
    await handleStalled(ctx, [(await getTransfer(store.db, id))!]);
    const rows = await listNotifications(store.db, 10);
    expect(rows.map((r) => [r.sink, r.event, r.dedupeKey])).toEqual([['ops', 'transfer_stalled', `transfer_stalled:transfer:${id}`]]);
    expect(JSON.parse(rows[0]!.payload)).toMatchObject({ transferId: id, status: 'deposited', detail: 'deposited for over 1800 s' });
  });

  it('when the lookup fails, flags it and changes nothing else (no re-announce on a failed read)', async () => {
    const id = await deposited(100 * MIN);
    const { ctx, calls } = context(140 * MIN, { getRequests: async () => Promise.reject(new Error('503')) });
    expect(await handleStalled(ctx, [(await getTransfer(store.db, id))!])).toBe(1);
    expect(calls.filter((c) => c.startsWith('index'))).toEqual([]);
    const row = (await getTransfer(store.db, id))!;
    expect(row.stalledAtMs).toBe(140 * MIN);
    expect(row.requestId).toBe(`0x${'ab'.repeat(32)}`);
  });

  it('asks GET /requests/v3 once per wallet per pass, however many of its transfers are stalled', async () => {
    const a = await deposited(100 * MIN);
    const b = await deposited(100 * MIN, `0x${'cd'.repeat(32)}`);
    const { ctx, calls } = context(140 * MIN, { getRequests: async () => ({ requests: [] }) });
    expect(await handleStalled(ctx, [(await getTransfer(store.db, a))!, (await getTransfer(store.db, b))!])).toBe(2);
    expect(calls.filter((c) => c.startsWith('requests'))).toHaveLength(1);
    expect(calls.filter((c) => c.startsWith('index'))).toHaveLength(2);
  });
});
