/**
 * What a fault case is judged on, read from the chains and the SQLite store, never from what Ballast reports:
 * - duplicates: the treasury's depository deposits (on either chain) since the case started, beyond the one
 *   need of the case (a second payment for the need, or a move back and forth, shows here);
 * - lost: money that left the treasury and is neither filled back to it, nor tracked by a transfer still in
 *   flight, nor parked by a `failure` that pauses its route: a deposit no transfer tracks, a transfer
 *   `origin_failed` or `refund` whose deposit exists, a `success` whose fill to the treasury is short of its
 *   guaranteed minimum, a balance that fell by more than its deposits less its fills;
 * - time back in band: from the fault to the first read with every target in band.
 */
import type { StoreDb } from '../../../../packages/ballast/src/store/db.ts';
import { formatUnits, parseAbiItem, type Hex } from 'viem';
import { decodeDepositLogs } from '../../../../packages/sandbox/src/solver/depositLogs.ts';
import type { Sandbox } from '../../../../packages/sandbox/src/startSandbox.ts';
import { listRecentTransfers, type TransferRow } from '../../../../packages/ballast/src/store/transfers.ts';
import { chainOf, inBand, readTreasury, type CaseStart } from './treasuryNeed.ts';

type Slug = 'alpha' | 'beta';
const SLUGS: readonly Slug[] = ['alpha', 'beta'];

/** One depository deposit by the treasury. */
export interface TreasuryDeposit {
  chain: Slug;
  orderId: string;
  txHash: Hex;
  amount: bigint;
  blockNumber: bigint;
}

/** The treasury's deposits into `chain`'s depository after block `afterBlock`, oldest first. */
export async function treasuryDeposits(s: Sandbox, afterBlock: bigint, chain: Slug = 'alpha'): Promise<TreasuryDeposit[]> {
  const c = chainOf(s, chain);
  if ((await c.publicClient.getBlockNumber({ cacheTime: 0 })) <= afterBlock) return []; // anvil refuses a range past its head
  const logs = await c.publicClient.getLogs({ address: c.depository, fromBlock: afterBlock + 1n, toBlock: 'latest' });
  const treasury = s.accounts.treasury.address.toLowerCase();
  return decodeDepositLogs(c.def.chainId, c.depository, logs)
    .filter((d) => d.from === treasury)
    .map((d) => ({ chain, orderId: d.id.toLowerCase(), txHash: d.txHash, amount: d.amount, blockNumber: d.blockNumber }));
}

const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

/** The solver's USDC payments to the treasury on `chain` after `afterBlock`: tx hash (lower case) → amount. */
async function fillsToTreasury(s: Sandbox, chain: Slug, afterBlock: bigint): Promise<Map<string, bigint>> {
  const c = chainOf(s, chain);
  const out = new Map<string, bigint>();
  if ((await c.publicClient.getBlockNumber({ cacheTime: 0 })) <= afterBlock) return out;
  const logs = await c.publicClient.getLogs({
    address: c.usdc,
    event: transferEvent,
    args: { from: s.accounts.solver.address, to: s.accounts.treasury.address },
    fromBlock: afterBlock + 1n,
    toBlock: 'latest',
  });
  for (const l of logs)
    if (l.transactionHash) out.set(l.transactionHash.toLowerCase(), (out.get(l.transactionHash.toLowerCase()) ?? 0n) + l.args.value!);
  return out;
}

/** The outcome of a case. Amounts in base units. */
export interface CaseAudit {
  /** The treasury's deposits on both chains, alpha's first. */
  deposits: TreasuryDeposit[];
  /** Deposits beyond one for the case's single need. */
  duplicates: number;
  /** Base units of USDC lost (see the module comment). */
  lost: bigint;
  /** One line per loss found. */
  lostWhy: string[];
  transfers: TransferRow[];
  /** Transfers still `prepared`, `broadcast` or `deposited`. */
  inFlight: TransferRow[];
}

const IN_FLIGHT = new Set(['prepared', 'broadcast', 'deposited']);

/**
 * Audits a case against the chains and the store.
 *
 * @param db the case's store (its transfers only)
 * @param start balances and blocks when the case started
 */
export async function auditCase(s: Sandbox, db: StoreDb, start: CaseStart): Promise<CaseAudit> {
  const after = { alpha: start.alphaBlock, beta: start.betaBlock };
  const deposits = (await Promise.all(SLUGS.map((c) => treasuryDeposits(s, after[c], c)))).flat();
  const fills = { alpha: await fillsToTreasury(s, 'alpha', after.alpha), beta: await fillsToTreasury(s, 'beta', after.beta) };
  const now = await readTreasury(s);
  const transfers = await listRecentTransfers(db, 100);
  const lostWhy: string[] = [];
  let lost = 0n;
  const loss = (amount: bigint, why: string) => {
    lost += amount;
    lostWhy.push(`${formatUnits(amount, 6)} USDC: ${why}`);
  };
  for (const d of deposits) {
    const row = transfers.find((t) => t.orderId?.toLowerCase() === d.orderId);
    if (!row) loss(d.amount, `deposit ${d.txHash} on ${d.chain} for order ${d.orderId} is tracked by no transfer`);
    else if (row.status === 'origin_failed' || row.status === 'refund')
      loss(d.amount, `transfer ${row.id} is ${row.status} but its deposit ${d.txHash} exists`);
  }
  for (const t of transfers.filter((x) => x.status === 'success')) {
    const paid = fills[t.destinationChain as Slug] ?? new Map<string, bigint>();
    const filled = t.outTxHashes.reduce((sum, h) => sum + (paid.get(h.toLowerCase()) ?? 0n), 0n);
    if (filled < t.minOut)
      loss(
        t.minOut - filled,
        `transfer ${t.id} is success but its fill paid the treasury ${formatUnits(filled, 6)} of ${formatUnits(t.minOut, 6)} guaranteed`,
      );
  }
  for (const c of SLUGS) {
    const out = deposits.filter((d) => d.chain === c).reduce((sum, d) => sum + d.amount, 0n);
    const back = [...fills[c].values()].reduce((sum, v) => sum + v, 0n);
    const change = now[c] - start[c];
    if (change < back - out) loss(back - out - change, `${c} fell by more than its deposits less its fills`);
  }
  return {
    deposits,
    duplicates: Math.max(0, deposits.length - 1),
    lost,
    lostWhy,
    transfers,
    inFlight: transfers.filter((t) => IN_FLIGHT.has(t.status)),
  };
}

/** Watches the treasury from a fault on and remembers the first read with every target in band. */
export interface BandWatch {
  /** Seconds from the fault to the first in-band read, or null when none yet. */
  backInBandSec(): number | null;
  /** Stops polling after one last read (so a return to band just before the stop is not missed). */
  stop(): Promise<void>;
}

/**
 * Polls the treasury's balances every `everyMs` (a read error is retried on the next poll).
 *
 * @param faultAtMs when the fault happened, unix ms
 */
export function watchBand(s: Sandbox, faultAtMs: number, everyMs = 150): BandWatch {
  let firstMs: number | null = null;
  let stopped = false;
  const loop = (async () => {
    while (!stopped && firstMs === null) {
      try {
        if (inBand(await readTreasury(s))) firstMs = Date.now();
      } catch {
        // a read that fails says nothing about the band; the next poll reads again
      }
      if (firstMs === null) await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    backInBandSec: () => (firstMs === null ? null : Math.max(0, firstMs - faultAtMs) / 1000),
    async stop() {
      stopped = true;
      await loop;
      if (firstMs === null && inBand(await readTreasury(s))) firstMs = Date.now();
    },
  };
}

/**
 * Default recovery budget from the fault, ms. It bounds how long a case may try, not how fast recovery must be:
 * a case stops as soon as `done()` holds (seconds on an idle machine), and the time back in band is printed in the
 * case's row, not asserted, since a run is a fresh process whose start grows with machine load.
 */
export const RECOVERY_BUDGET_MS = 90_000;

/**
 * Repeats `step` (one recovery run) until `done()` or until `budgetMs` (default {@link RECOVERY_BUDGET_MS}) from
 * the fault has passed; at least `minSteps` times.
 *
 * @returns how many steps ran
 */
export async function recoverUntil(opts: {
  faultAtMs: number;
  step: () => Promise<void>;
  done: () => Promise<boolean> | boolean;
  budgetMs?: number;
  minSteps?: number;
  pauseMs?: number;
}): Promise<number> {
  const budgetMs = opts.budgetMs ?? RECOVERY_BUDGET_MS;
  let steps = 0;
  while (steps < (opts.minSteps ?? 1) || (!(await opts.done()) && Date.now() - opts.faultAtMs < budgetMs)) {
    if (steps > 0) await new Promise((r) => setTimeout(r, opts.pauseMs ?? 300));
    await opts.step();
    steps += 1;
  }
  return steps;
}

/** One printed row. */
export interface CaseRow {
  fault: string;
  duplicates: number;
  lost: bigint;
  backInBandSec: number | null;
  /** Why a case does not return to band, or what recovery took. */
  note: string;
}

/** The one line a case prints, e.g. `fault tx:written#2  duplicates=0 lost=0 backInBand=3.1s`. */
export function formatRow(r: CaseRow): string {
  const back = r.backInBandSec === null ? 'n/a' : `${r.backInBandSec.toFixed(1)}s`;
  return `fault ${r.fault.padEnd(34)} duplicates=${r.duplicates} lost=${formatUnits(r.lost, 6)} backInBand=${back.padEnd(6)} ${r.note}`.trimEnd();
}

/** The summary table printed at the end of a file. */
export function formatSummary(title: string, rows: readonly CaseRow[]): string {
  const lines = rows.map(
    (r) =>
      `| ${[r.fault, String(r.duplicates), formatUnits(r.lost, 6), r.backInBandSec === null ? 'n/a' : r.backInBandSec.toFixed(1), r.note].join(' | ')} |`,
  );
  return [`${title}`, '| fault | duplicates | lost (USDC) | back in band (s) | note |', '|---|---|---|---|---|', ...lines].join('\n');
}
