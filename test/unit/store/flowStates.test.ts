/**
 * `flow_states` and the own-transfer read of the flow strategy (src/store/flowStates.ts) on both engines: one row
 * per holding, replaced in place; negative balances and rates survive the round trip exactly; malformed values are
 * refused by the schema; the transfers read returns only those created at or after the given time.
 */
import { beforeEach, expect, it } from 'vitest';
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import { StoreValueError } from '../../../packages/ballast/src/store/errors.ts';
import {
  listTransfersCreatedSince,
  readFlowStates,
  saveFlowStates,
  type StoredFlowState,
} from '../../../packages/ballast/src/store/flowStates.ts';
import { createTransfer, transitionTransfer } from '../../../packages/ballast/src/store/transfers.ts';
import { describeEachEngine } from '../../helpers/storeEngines.ts';
import { newTransfer } from './helpers.ts';

const alpha: StoredFlowState = {
  chain: 'alpha',
  currency: '0xusdc',
  address: '0xtreasury',
  atMs: 1_000,
  balance: 5_000_000n,
  rateScaled: -123_456_789_012_345_678_901n,
  samples: 0,
};

describeEachEngine('flow states store', (engine) => {
  let db: StoreDb;
  beforeEach(async () => {
    db = await engine.open();
  });

  it('starts empty, stores one row per holding and replaces it on the next save', async () => {
    expect(await readFlowStates(db)).toEqual([]);
    const beta = { ...alpha, chain: 'beta', balance: -7n, rateScaled: 42n };
    await saveFlowStates(db, [alpha, beta]);
    expect(await readFlowStates(db)).toEqual([alpha, beta]);

    const next = { ...alpha, atMs: 61_000, balance: 4_000_000n, rateScaled: -16_666_666_666n, samples: 1 };
    await saveFlowStates(db, [next]);
    expect(await readFlowStates(db)).toEqual([next, beta]);
    const count = await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM flow_states');
    expect(Number(count?.n)).toBe(2);
  });

  it('refuses a bad time or sample count before writing, and the schema refuses a non-integer amount', async () => {
    await expect(saveFlowStates(db, [{ ...alpha, atMs: -1 }])).rejects.toBeInstanceOf(StoreValueError);
    await expect(saveFlowStates(db, [{ ...alpha, samples: -1 }])).rejects.toBeInstanceOf(StoreValueError);
    expect(await readFlowStates(db)).toEqual([]);
    for (const bad of ['', '-', '1-2', '--3', '1.5', 'x']) {
      await expect(
        db.run(
          "INSERT INTO flow_states (chain, currency, address, at_ms, balance, rate_scaled, samples) VALUES ('a', 'c', ?, 1, ?, '0', 0)",
          bad,
          bad,
        ),
      ).rejects.toThrow();
    }
    expect(await readFlowStates(db)).toEqual([]);
  });

  it('lists the transfers created at or after a time, with the amounts a flow observation subtracts', async () => {
    const early = await newTransfer(db, { nowMs: 1_000, requestId: `0x${'01'.repeat(32)}` });
    await createTransfer(db, early);
    const late = await newTransfer(db, { nowMs: 5_000, requestId: `0x${'02'.repeat(32)}`, amountIn: 7n, minOut: 6n });
    const { transferId } = await createTransfer(db, late);
    await transitionTransfer(db, transferId, 'prepared', 'origin_failed', { nowMs: 5_001, error: 'not sent' });

    expect(await listTransfersCreatedSince(db, 1_001)).toEqual([
      {
        originChain: 'base',
        originCurrency: late.originCurrency,
        originAddress: late.user,
        destinationChain: 'arbitrum',
        destinationCurrency: late.destinationCurrency,
        destinationAddress: late.recipient,
        amountIn: 7n,
        minOut: 6n,
        refunded: null,
        status: 'origin_failed',
        createdAtMs: 5_000,
      },
    ]);
    expect((await listTransfersCreatedSince(db, 1_000)).map((t) => t.amountIn)).toEqual([100_000_000n, 7n]);
    expect(await listTransfersCreatedSince(db, 5_001)).toEqual([]);
  });
});
