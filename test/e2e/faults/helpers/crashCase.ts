/**
 * One SIGKILL case: a fresh need, `ballast run --once` killed by `BALLAST_CRASH_AT` at a step boundary (the
 * real CLI in a child process), then `run --once` again, as cron would, until the treasury is back in band and
 * the store has nothing in flight, or the recovery budget (RECOVERY_BUDGET_MS, caseAudit.ts) from the kill has
 * passed. The recovery runs are child processes too, or the same command in the test's process (see
 * {@link RecoveryRuns}).
 */
import type { StoreDb } from '../../../../packages/ballast/src/store/db.ts';
import { CRASH_POINTS, type CrashPoint } from '../../../../packages/ballast/src/core/crashPoints.ts';
import { sandboxEnv } from '../../../../packages/ballast/src/cli/sandboxEnv.ts';
import type { Sandbox } from '../../../../packages/sandbox/src/startSandbox.ts';
import {
  listInFlightTransfers,
  listRecentTransfers,
  type TransferStatus,
  type TransferTxStatus,
} from '../../../../packages/ballast/src/store/transfers.ts';
import { ballastOnSandbox } from '../../helpers/sandboxBallast.ts';
import { auditCase, formatRow, recoverUntil, watchBand, type CaseAudit, type CaseRow } from './caseAudit.ts';
import { runOnce, runOnceInProcess, type ChildExit } from './cliChild.ts';
import { freshNeed, inBand, readTreasury } from './treasuryNeed.ts';

/** What the store shows right after a kill: the transfer's status and its transactions' statuses, in order. */
export interface StoreState {
  transfer: TransferStatus | null;
  txs: TransferTxStatus[];
}

/** The store right after a kill at each boundary a one-transfer run passes (approve = #1, deposit = #2). */
export const STATE_AT_KILL: Record<string, StoreState> = {
  'cycle:started': { transfer: null, txs: [] },
  'cycle:refreshed': { transfer: null, txs: [] },
  'cycle:planned': { transfer: null, txs: [] },
  'quote:recorded': { transfer: null, txs: [] },
  'quote:verified': { transfer: null, txs: [] },
  'tx:signed#1': { transfer: null, txs: [] },
  'tx:written#1': { transfer: 'prepared', txs: ['signed'] },
  'tx:sent#1': { transfer: 'prepared', txs: ['signed'] },
  'tx:recorded-sent#1': { transfer: 'broadcast', txs: ['sent'] },
  'tx:mined#1': { transfer: 'broadcast', txs: ['sent'] },
  'tx:confirmed#1': { transfer: 'broadcast', txs: ['confirmed'] },
  'tx:signed#2': { transfer: 'broadcast', txs: ['confirmed'] },
  'tx:written#2': { transfer: 'broadcast', txs: ['confirmed', 'signed'] },
  'tx:sent#2': { transfer: 'broadcast', txs: ['confirmed', 'signed'] },
  'tx:recorded-sent#2': { transfer: 'broadcast', txs: ['confirmed', 'sent'] },
  'tx:mined#2': { transfer: 'broadcast', txs: ['confirmed', 'sent'] },
  'tx:confirmed#2': { transfer: 'broadcast', txs: ['confirmed', 'confirmed'] },
  'transfer:deposited': { transfer: 'deposited', txs: ['confirmed', 'confirmed'] },
  'track:status': { transfer: 'deposited', txs: ['confirmed', 'confirmed'] },
  'transfer:final': { transfer: 'success', txs: ['confirmed', 'confirmed'] },
};

/** The store right after a recovery run is killed while it reconciles, per kill sequence. */
export const STATE_AT_SECOND_KILL: Record<string, StoreState> = {
  // The approve written ahead is sent again and found mined: prepared → broadcast, the kill comes before the receipt is stored.
  'tx:written#1 then reconcile:moved': { transfer: 'broadcast', txs: ['sent'] },
  // The deposit written ahead is sent again exactly as signed and mined: broadcast → deposited.
  'tx:written#2 then reconcile:moved': { transfer: 'deposited', txs: ['confirmed', 'confirmed'] },
};

/** The store's newest transfer (or none) as a {@link StoreState}. */
export async function storeState(db: StoreDb): Promise<StoreState> {
  const row = (await listRecentTransfers(db, 1))[0];
  return { transfer: row?.status ?? null, txs: row ? row.txs.map((t) => t.status) : [] };
}

/** Everything a crash case saw. */
export interface CrashCaseResult {
  row: CaseRow;
  audit: CaseAudit;
  /** The killed runs, in order. */
  kills: ChildExit[];
  /** The store right after each kill. */
  statesAtKill: StoreState[];
  /** The recovery runs, in order. */
  recoveries: ChildExit[];
}

/**
 * How the recovery runs (the ones nothing kills) are made: `process`, as child processes like the killed runs;
 * `inProcess`, through the CLI's `main()` in the test's process (`runOnceInProcess`): the same command on the same
 * config, store and chains, without the two seconds of CPU a node start costs. A kill sequence's later kills are
 * always child processes.
 */
export type RecoveryRuns = 'process' | 'inProcess';

/** The treasury's wallets section when its key is in a key service, and the environment its runs need. */
export interface CrashSigner {
  wallets: Record<string, unknown>;
  env: Record<string, string>;
}

/**
 * Runs one crash case on a shared sandbox, with a fresh config and store.
 *
 * @param dir temp dir for the config and store
 * @param targets `BALLAST_CRASH_AT` values, one killed run each, in order (e.g. `['tx:written#2', 'reconcile:moved']`)
 * @param signer the treasury in a key service instead of a key on the host
 * @param recovery how the recovery runs are made (default: child processes)
 */
export async function crashAndRecover(
  s: Sandbox,
  dir: string,
  targets: string[],
  signer?: CrashSigner,
  recovery: RecoveryRuns = 'process',
): Promise<CrashCaseResult> {
  const start = await freshNeed(s);
  const { ballast, configFile, store } = ballastOnSandbox(s, dir, signer ? { wallets: signer.wallets } : {}, signer?.env);
  const env = { ...sandboxEnv(s, store), ...signer?.env };
  try {
    const kills: ChildExit[] = [];
    const statesAtKill: StoreState[] = [];
    const kill = async (target: string) => {
      kills.push(await runOnce(configFile, { ...env, BALLAST_CRASH_AT: target }));
      statesAtKill.push(await storeState(ballast.db));
    };
    await kill(targets[0]!);
    const faultAtMs = kills[0]!.exitedAtMs;
    const band = watchBand(s, faultAtMs);
    const recoveries: ChildExit[] = [];
    try {
      for (const target of targets.slice(1)) await kill(target);
      await recoverUntil({
        faultAtMs,
        step: async () => void recoveries.push(await (recovery === 'process' ? runOnce : runOnceInProcess)(configFile, env)),
        done: async () => (await listInFlightTransfers(ballast.db)).length === 0 && inBand(await readTreasury(s)),
      });
    } finally {
      await band.stop();
    }
    const audit = await auditCase(s, ballast.db, start);
    const row: CaseRow = {
      fault: targets.join(' then '),
      duplicates: audit.duplicates,
      lost: audit.lost,
      backInBandSec: band.backInBandSec(),
      note: `${recoveries.length} recovery run(s); transfers ${audit.transfers
        .map((t) => t.status)
        .reverse()
        .join(', ')}`,
    };
    console.log(formatRow(row));
    return { row, audit, kills, statesAtKill, recoveries };
  } finally {
    await ballast.close();
  }
}

/**
 * Boundaries an EVM-origin transfer never passes: the replacement of an unwanted Bitcoin deposit. The Bitcoin
 * cases kill there (crash-bitcoin.test.ts, helpers/nonEvmCrash.ts).
 */
export const BITCOIN_ONLY_POINTS: readonly CrashPoint[] = ['cancel:written'];

/**
 * Every EVM kill sequence of the suite, from {@link CRASH_POINTS} less {@link BITCOIN_ONLY_POINTS}: each
 * boundary a one-transfer run passes (both the approve's and the deposit's for `tx:*`), and `reconcile:moved`,
 * which only a recovery run passes, after a kill that leaves the approve or the deposit written ahead.
 */
export function crashSequences(): string[][] {
  return CRASH_POINTS.filter((point) => !BITCOIN_ONLY_POINTS.includes(point)).flatMap((point): string[][] => {
    if (point === 'reconcile:moved')
      return [
        ['tx:written#1', point],
        ['tx:written#2', point],
      ];
    if (point.startsWith('tx:')) return [[`${point}#1`], [`${point}#2`]];
    return [[point]];
  });
}

/**
 * Whether a kill sequence is one kill before the deposit is written (the store holds at most the approve):
 * crash-approve.test.ts runs these, crash-deposit.test.ts the others.
 */
export function killsBeforeDeposit(targets: readonly string[]): boolean {
  const state = STATE_AT_KILL[targets[0] ?? ''];
  return targets.length === 1 && state !== undefined && state.txs.length < 2;
}
