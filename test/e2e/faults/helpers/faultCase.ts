/**
 * Shared steps of the chain, API and operator fault cases: an in-process Ballast over a case's config and
 * store (optionally through an RPC fault proxy or with a test clock), and the measured recovery that ends every
 * case (recovery cycles until back in band with nothing in flight or the recovery budget from the fault has
 * passed (RECOVERY_BUDGET_MS, caseAudit.ts), then the audit and
 * the printed row).
 */
import type { StoreDb } from '../../../../packages/ballast/src/store/db.ts';
import { expect } from 'vitest';
import { createBallast, type Ballast } from '../../../../packages/ballast/src/app/createBallast.ts';
import { loadConfig } from '../../../../packages/ballast/src/config/loadConfig.ts';
import type { Sandbox } from '../../../../packages/sandbox/src/startSandbox.ts';
import { listInFlightTransfers, type TransferRow } from '../../../../packages/ballast/src/store/transfers.ts';
import { NEED } from './treasuryNeed.ts';
import { memoryLogger } from '../../helpers/sandboxBallast.ts';
import { auditCase, formatRow, recoverUntil, watchBand, type CaseAudit, type CaseRow } from './caseAudit.ts';
import { inBand, readTreasury, type CaseStart } from './treasuryNeed.ts';

/**
 * Wires an in-process Ballast from an existing config file and environment (e.g. the config and store of a case
 * whose run was killed, with `SANDBOX_ALPHA_RPC` pointing at a fault proxy). The caller closes it.
 *
 * @param opts.now the clock Ballast reads (unix ms); default `Date.now`
 */
export function openBallast(configFile: string, env: Record<string, string>, opts: { now?: () => number } = {}): Ballast {
  const config = loadConfig(configFile, env);
  return createBallast(config, { logger: memoryLogger().logger, chainPollingIntervalMs: 50, ...(opts.now ? { now: opts.now } : {}) });
}

/** Options of {@link measureRecovery}. */
export interface MeasureRecoveryOptions {
  /** The row's name, e.g. `lookup errors`. */
  fault: string;
  /** When the fault happened (a kill, a reorg, the faulty cycle's start), unix ms. */
  faultAtMs: number;
  /** The case's store. */
  db: StoreDb;
  start: CaseStart;
  /** One recovery run, e.g. `() => ballast.runCycle('once')`. */
  step: () => Promise<unknown>;
  /** When recovery is over; default: back in band and nothing in flight. */
  done?: () => Promise<boolean> | boolean;
  /** Recovery runs to make at least (default 1). */
  minSteps?: number;
  /** Extra text for the row (e.g. why the case is not expected back in band). */
  note?: string;
}

/** The measured outcome of a case. */
export interface MeasuredCase {
  row: CaseRow;
  audit: CaseAudit;
  /** Recovery runs made. */
  steps: number;
}

/**
 * Runs recovery from a fault and audits the case: duplicates, lost, time back in band; prints the row.
 */
export async function measureRecovery(s: Sandbox, o: MeasureRecoveryOptions): Promise<MeasuredCase> {
  const band = watchBand(s, o.faultAtMs);
  let steps: number;
  try {
    steps = await recoverUntil({
      faultAtMs: o.faultAtMs,
      step: async () => void (await o.step()),
      done: o.done ?? (async () => (await listInFlightTransfers(o.db)).length === 0 && inBand(await readTreasury(s))),
      minSteps: o.minSteps ?? 1,
    });
  } finally {
    await band.stop();
  }
  const audit = await auditCase(s, o.db, o.start);
  const row: CaseRow = {
    fault: o.fault,
    duplicates: audit.duplicates,
    lost: audit.lost,
    backInBandSec: band.backInBandSec(),
    note: [
      o.note,
      `${steps} recovery run(s); transfers ${audit.transfers
        .map((t) => t.status)
        .reverse()
        .join(', ')}`,
    ]
      .filter(Boolean)
      .join('; '),
  };
  console.log(formatRow(row));
  return { row, audit, steps };
}

/**
 * One deposit for the need, tracked by a transfer that ended `success`; nothing lost, nothing in flight; back in
 * band within the recovery budget (the time is printed in the case's row, not asserted: it grows with load).
 */
export function expectPaidOnce(m: MeasuredCase): TransferRow {
  expect(m.audit.lostWhy).toEqual([]);
  expect(m.row.lost).toBe(0n);
  expect(m.row.duplicates).toBe(0);
  expect(m.audit.deposits).toHaveLength(1);
  expect(m.audit.deposits[0]!.amount).toBe(NEED);
  const paid = m.audit.transfers.filter((t) => t.orderId?.toLowerCase() === m.audit.deposits[0]!.orderId);
  expect(paid.map((t) => t.status)).toEqual(['success']);
  expect(m.audit.inFlight).toEqual([]);
  expect(m.row.backInBandSec).not.toBeNull();
  return paid[0]!;
}
