/**
 * On-chain origin failures against a real SQLite store: which `origin_failed` transfers count towards pausing a
 * route (a transaction mined and failed, unresolved, after the route's last landed deposit), the pause they make
 * at the threshold (src/cycle/pausedRoutes.ts), and `resolveFailure` resolving a route's whole streak.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { originFailurePauses, withoutPausedRoutes } from '../../../packages/ballast/src/cycle/pausedRoutes.ts';
import type { SqliteStoreDb } from '../../../packages/ballast/src/store/sqliteDb.ts';
import { listOriginFailureStreaks, resolveFailure } from '../../../packages/ballast/src/store/failures.ts';
import { CANCEL_STEP_SUFFIX } from '../../../packages/ballast/src/store/transferRows.ts';
import {
  addTransferTx,
  createTransfer,
  markTxConfirmed,
  markTxSent,
  transitionTransfer,
  type NewTransfer,
} from '../../../packages/ballast/src/store/transfers.ts';
import type { Plan } from '../../../packages/ballast/src/planner/types.ts';
import { newTransfer, tempDb, type TempDb } from './helpers.ts';

let t: TempDb;
let db: SqliteStoreDb;
beforeEach(() => {
  t = tempDb();
  db = t.open();
});
afterEach(() => t.cleanup());

let n = 0;
/**
 * A one-transaction transfer ending as `end` says: reverted on chain, never sent, deposited, or (Bitcoin) a deposit
 * that missed its deadline and was ended by a cancel of ours, mined (`cancelled`) or still unmined when the
 * deposit was proven dead by another spend (`cancelUnmined`).
 */
async function transfer(
  end: 'reverted' | 'unsent' | 'deposited' | 'cancelled' | 'cancelUnmined',
  over: Partial<NewTransfer> = {},
): Promise<number> {
  n += 1;
  const base = await newTransfer(db, over);
  const hex = n.toString(16).padStart(2, '0');
  const { transferId, txIds } = await createTransfer(db, {
    ...base,
    requestId: `0x${hex.repeat(32)}`,
    txs: [{ ...base.txs[1]!, txHash: `0x${hex.repeat(32)}` }],
  });
  if (end === 'unsent') {
    await transitionTransfer(db, transferId, 'prepared', 'origin_failed', { nowMs: 3_000, error: 'deposit not sent: simulation failed' });
    return transferId;
  }
  await markTxSent(db, txIds[0]!, 3_000);
  await transitionTransfer(db, transferId, 'prepared', 'broadcast', { nowMs: 3_000 });
  if (end === 'cancelled' || end === 'cancelUnmined') {
    const cancelId = await addTransferTx(db, transferId, {
      stepId: `deposit${CANCEL_STEP_SUFFIX}`,
      itemIndex: 0,
      chainId: base.originChainId,
      request: { replaces: `0x${hex.repeat(32)}` },
      txHash: `0x${'c'.repeat(62)}${hex}`,
      rawTx: '00',
      nowMs: 3_500,
    });
    await markTxSent(db, cancelId, 3_500);
    if (end === 'cancelled') await markTxConfirmed(db, cancelId, { status: 'confirmed', blockNumber: 11, nowMs: 4_000 });
    await transitionTransfer(db, transferId, 'broadcast', 'origin_failed', { nowMs: 4_500, error: 'deposit never mined: cancelled' });
    return transferId;
  }
  await markTxConfirmed(db, txIds[0]!, { status: end === 'reverted' ? 'reverted' : 'confirmed', blockNumber: 10, nowMs: 4_000 });
  if (end === 'reverted')
    await transitionTransfer(db, transferId, 'broadcast', 'origin_failed', { nowMs: 4_000, error: 'deposit reverted' });
  else await transitionTransfer(db, transferId, 'broadcast', 'deposited', { nowMs: 4_000 });
  return transferId;
}

const ids = async () => (await listOriginFailureStreaks(db)).map((r) => r.id);

describe('listOriginFailureStreaks', () => {
  it('lists reverted origin failures since the route’s last landed deposit, not unsent ones, per route', async () => {
    const early = await transfer('reverted');
    await transfer('deposited'); // a landed deposit ends the streak before it
    const a = await transfer('reverted');
    await transfer('unsent'); // proven never to have landed: not counted, and does not break the streak
    const b = await transfer('reverted');
    const other = await transfer('reverted', { destinationChain: 'optimism' });
    expect(early).toBeLessThan(a);
    expect(await ids()).toEqual([a, b, other]);

    const pauses = originFailurePauses(await listOriginFailureStreaks(db), 2);
    expect(pauses).toEqual([
      { asset: 'USDC', originChain: 'base', destinationChain: 'arbitrum', transferIds: [a, b], reason: 'originFailures' },
    ]);
    expect(originFailurePauses(await listOriginFailureStreaks(db), 3)).toEqual([]);

    const plan: Plan = {
      transfers: [
        {
          asset: 'USDC',
          from: { chain: 'base', wallet: 'treasury' },
          to: { chain: 'arbitrum', wallet: 'treasury' },
          amount: 1n,
        } as unknown as Plan['transfers'][number],
      ], // only the route fields are read
      decisions: [],
    };
    const filtered = withoutPausedRoutes(plan, pauses);
    expect(filtered.transfers).toEqual([]);
    expect(filtered.decisions[0]).toMatchObject({ kind: 'route_paused' });
    expect(filtered.decisions[0]!.detail).toContain(`transfers ${a}, ${b} failed on chain, 2 in a row`);
    expect(filtered.decisions[0]!.detail).toContain(`ballast resume --transfer ${b}`);
  });

  it('a Bitcoin deposit ended by our mined cancel paid twice for nothing and counts; an unmined cancel does not', async () => {
    const a = await transfer('cancelled');
    await transfer('cancelUnmined'); // another spend ended the deposit: our cancel paid nothing
    const b = await transfer('cancelled');
    expect(await ids()).toEqual([a, b]);
    expect(originFailurePauses(await listOriginFailureStreaks(db), 2)).toMatchObject([{ transferIds: [a, b], reason: 'originFailures' }]);
    expect(await resolveFailure(db, b, 'market fixed', 9_000)).toEqual([a, b]);
    expect(await ids()).toEqual([]);
  });

  it('resolveFailure on the last one resolves the route’s streak, and only that route’s', async () => {
    const a = await transfer('reverted');
    const b = await transfer('reverted');
    const later = await transfer('reverted');
    const other = await transfer('reverted', { destinationChain: 'optimism' });
    expect(await resolveFailure(db, b, 'depositor topped up', 9_000)).toEqual([a, b]);
    expect(await ids()).toEqual([later, other]);
    const events = await db.all<{ transfer_id: number; detail: string }>(
      "SELECT transfer_id, detail FROM transfer_events WHERE detail LIKE 'resolved%' ORDER BY id",
    );
    expect(events).toEqual([
      { transfer_id: a, detail: 'resolved by the operator: depositor topped up' },
      { transfer_id: b, detail: 'resolved by the operator: depositor topped up' },
    ]);
    await expect(resolveFailure(db, a, 'again', 9_500)).rejects.toMatchObject({ code: 'STORE_TRANSITION_CONFLICT' });
  });

  it('refuses to resolve an origin failure that never reached the chain', async () => {
    const unsent = await transfer('unsent');
    await expect(resolveFailure(db, unsent, 'nothing to do', 9_000)).rejects.toThrow(
      /only an unresolved failure, a refund that was not paid \(refundFailReason\), or an origin failure on chain/,
    );
  });
});
