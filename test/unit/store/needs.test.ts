/**
 * `needs` (src/store/needs.ts, migration 17) on both engines: a need is recorded once per idempotency key (the same
 * content again is the recorded need, other content is a conflict naming the field), amounts stay exact bigints
 * beyond 2^64, cancel is a guarded transition (unknown and not-open refused, nothing changed), and lapsed needs
 * close at due time plus grace, never earlier, once.
 */
import { beforeEach, expect, it } from 'vitest';
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import {
  addNeed,
  cancelNeed,
  closeLapsedNeeds,
  findNeedByKey,
  getNeed,
  listNeeds,
  NEED_LAPSED_REASON,
  NeedStoreError,
  openNeeds,
  type NewNeed,
} from '../../../packages/ballast/src/store/needs.ts';
import { describeEachEngine, expectConstraint } from '../../helpers/storeEngines.ts';

const T0 = 1_796_547_600_000; // 2026-12-06T09:00:00Z minus a while
const HOUR = 3_600_000;
const HUGE = 123_456_789_012_345_678_901_234_567_890n; // beyond 2^64: kept exact

function need(over: Partial<NewNeed> = {}): NewNeed {
  return {
    idempotencyKey: 'payroll-2026-12',
    asset: 'USDC',
    chain: 'base',
    wallet: 'treasury',
    amount: 50_000_000_000n,
    dueAtMs: T0 + 24 * HOUR,
    note: 'December payroll',
    createdBy: 'ops@host',
    ...over,
  };
}

async function storeError(p: Promise<unknown>): Promise<NeedStoreError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(NeedStoreError);
  return err as NeedStoreError;
}

describeEachEngine('needs store', (engine) => {
  let db: StoreDb;
  beforeEach(async () => {
    db = await engine.open();
  });

  it('records a need once per key: the same content again is the recorded need, created false', async () => {
    const first = await addNeed(db, need(), T0);
    expect(first.created).toBe(true);
    expect(first.need).toEqual({
      id: first.need.id,
      idempotencyKey: 'payroll-2026-12',
      asset: 'USDC',
      chain: 'base',
      wallet: 'treasury',
      amount: 50_000_000_000n,
      dueAtMs: T0 + 24 * HOUR,
      note: 'December payroll',
      status: 'open',
      createdAtMs: T0,
      createdBy: 'ops@host',
      closedAtMs: null,
      closedReason: null,
    });
    const again = await addNeed(db, need({ createdBy: 'api' }), T0 + 1000);
    expect(again).toEqual({ need: first.need, created: false });
    expect(await listNeeds(db, { all: true })).toHaveLength(1);
    expect(await findNeedByKey(db, 'payroll-2026-12')).toEqual(first.need);
    expect(await findNeedByKey(db, 'other')).toBeUndefined();
  });

  it('refuses the same key with other content, naming the first field that differs; nothing recorded', async () => {
    const { need: recorded } = await addNeed(db, need(), T0);
    const cases: [Partial<NewNeed>, string][] = [
      [{ asset: 'USDT' }, 'asset'],
      [{ chain: 'arbitrum' }, 'chain'],
      [{ wallet: 'ops' }, 'wallet'],
      [{ amount: 50_000_000_001n }, 'amount'],
      [{ dueAtMs: T0 + 25 * HOUR }, 'dueAt'],
      [{ note: null }, 'note'],
    ];
    for (const [over, field] of cases) {
      const err = await storeError(addNeed(db, need(over), T0));
      expect({ code: err.code, field: err.field, id: err.existing?.id }).toEqual({ code: 'NEED_CONFLICT', field, id: recorded.id });
      expect(err.message).toContain('payroll-2026-12');
    }
    expect((await storeError(addNeed(db, need({ amount: 1n }), T0))).message).toContain(
      'recorded 50000000000 base units, now 1 base units',
    );
    expect(await listNeeds(db, { all: true })).toEqual([recorded]);
  });

  it('keeps amounts beyond 2^64 exact and refuses zero; the schema refuses zero and non-digits too', async () => {
    const { need: big } = await addNeed(db, need({ idempotencyKey: 'big', amount: HUGE }), T0);
    expect((await getNeed(db, big.id))?.amount).toBe(HUGE);
    await expect(addNeed(db, need({ idempotencyKey: 'zero', amount: 0n }), T0)).rejects.toThrow(/positive amount/);
    await expect(addNeed(db, need({ idempotencyKey: 'neg', amount: -1n }), T0)).rejects.toThrow(/must not be negative/);
    const raw = (amount: string, key: string) =>
      db.run(
        `INSERT INTO needs (idempotency_key, asset, chain, wallet, amount, due_at_ms, status, created_at_ms, created_by)
         VALUES (?, 'USDC', 'base', 'treasury', ?, 1, 'open', 1, 'x')`,
        key,
        amount,
      );
    await expectConstraint(raw('000', 'z'), 'check');
    await expectConstraint(raw('1.5', 'd'), 'check');
    await expectConstraint(raw('5', 'big'), 'unique');
    expect(await listNeeds(db, { all: true })).toHaveLength(1);
  });

  it('lists open needs in due order; cancel is guarded: unknown and not-open are refused and change nothing', async () => {
    const late = (await addNeed(db, need({ idempotencyKey: 'late', dueAtMs: T0 + 48 * HOUR }), T0)).need;
    const soon = (await addNeed(db, need({ idempotencyKey: 'soon', dueAtMs: T0 + 2 * HOUR, note: null }), T0)).need;
    expect((await openNeeds(db)).map((n) => n.id)).toEqual([soon.id, late.id]);

    const cancelled = await cancelNeed(db, late.id, T0 + HOUR, 'alice');
    expect(cancelled).toMatchObject({ id: late.id, status: 'cancelled', closedAtMs: T0 + HOUR, closedReason: 'cancelled by alice' });
    expect((await openNeeds(db)).map((n) => n.id)).toEqual([soon.id]);
    expect((await listNeeds(db, { all: true })).map((n) => n.id)).toEqual([soon.id, late.id]);

    const twice = await storeError(cancelNeed(db, late.id, T0 + 2 * HOUR, 'bob'));
    expect(twice.code).toBe('NEED_NOT_OPEN');
    expect(twice.message).toContain('cancelled by alice');
    expect(await getNeed(db, late.id)).toEqual(cancelled);
    expect((await storeError(cancelNeed(db, 999, T0, 'bob'))).code).toBe('NEED_NOT_FOUND');

    // The key stays taken by the cancelled need: the same content is that need, not a new one.
    expect(await addNeed(db, need({ idempotencyKey: 'late', dueAtMs: T0 + 48 * HOUR }), T0 + 3 * HOUR)).toEqual({
      need: cancelled,
      created: false,
    });
  });

  it('closes open needs at due time plus grace, not a millisecond earlier, once; cancelled ones stay cancelled', async () => {
    const grace = 15 * 60_000;
    const a = (await addNeed(db, need({ idempotencyKey: 'a', dueAtMs: T0 + HOUR }), T0)).need;
    const b = (await addNeed(db, need({ idempotencyKey: 'b', dueAtMs: T0 + 2 * HOUR }), T0)).need;
    const c = (await addNeed(db, need({ idempotencyKey: 'c', dueAtMs: T0 + HOUR }), T0)).need;
    await cancelNeed(db, c.id, T0, 'ops');

    expect(await closeLapsedNeeds(db, T0 + HOUR + grace - 1, grace)).toEqual([]);
    const closed = await closeLapsedNeeds(db, T0 + HOUR + grace, grace);
    expect(closed).toEqual([{ ...a, status: 'closed', closedAtMs: T0 + HOUR + grace, closedReason: NEED_LAPSED_REASON }]);
    expect(await closeLapsedNeeds(db, T0 + HOUR + grace + 1, grace)).toEqual([]);
    expect((await openNeeds(db)).map((n) => n.id)).toEqual([b.id]);
    expect((await getNeed(db, c.id))?.status).toBe('cancelled');
    expect((await storeError(cancelNeed(db, a.id, T0 + 3 * HOUR, 'ops'))).code).toBe('NEED_NOT_OPEN');

    expect((await closeLapsedNeeds(db, T0 + 10 * HOUR, 0)).map((n) => n.id)).toEqual([b.id]);
    expect(await openNeeds(db)).toEqual([]);
  });

  it('records one need when the same key arrives twice at once', async () => {
    const other = await engine.openAgain(db);
    const results = await Promise.all([addNeed(db, need(), T0), addNeed(other, need(), T0)]);
    expect(results.map((r) => r.created).sort()).toEqual([false, true]);
    expect(results[0]!.need.id).toBe(results[1]!.need.id);
    expect(await listNeeds(db, { all: true })).toHaveLength(1);
  });
});
