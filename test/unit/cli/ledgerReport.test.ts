/**
 * `ballast report` and `ballast history` read a SQLite file with known rows: exact per-route totals (table and
 * CSV), the `--since` window, whole units in history with `--raw` for base units, and a mistyped `--db` path
 * refused with exit 2 without creating a file.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerHistory } from '../../../packages/ballast/src/cli/commands/history.ts';
import { registerReport } from '../../../packages/ballast/src/cli/commands/report.ts';
import { CliError, EXIT_USAGE } from '../../../packages/ballast/src/cli/exitCodes.ts';
import { REPORT_CSV_HEADER } from '../../../packages/ballast/src/cli/renderLedger.ts';
import type { LedgerEntry } from '../../../packages/ballast/src/ledger/ledgerEntry.ts';
import { startCycle } from '../../../packages/ballast/src/store/cycles.ts';
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import { insertLedgerEntry } from '../../../packages/ballast/src/store/ledger.ts';
import { openSqliteStore } from '../../../packages/ballast/src/store/openStore.ts';

const dir = mkdtempSync(join(tmpdir(), 'ballast-report-'));
const file = join(dir, 'ledger.db');
const WINDOW_START = Date.parse('2026-11-01T00:00:00Z');
const IN_WINDOW = WINDOW_START + 3_600_000;

async function insertTransfer(
  db: StoreDb,
  cycleId: number,
  t: { asset: string; to: string; status: string; createdAtMs: number; amountIn: bigint },
): Promise<number> {
  const row = await db.get<{ id: number }>(
    `INSERT INTO transfers (cycle_id, asset, origin_chain, origin_chain_id, origin_currency, destination_chain, destination_chain_id,
       destination_currency, user_address, recipient, amount_in, expected_out, min_out, status, created_at_ms, updated_at_ms)
     VALUES (?, ?, 'alpha', 1, '0xa', ?, 2, '0xb', '0xu', '0xu', ?, ?, ?, ?, ?, ?) RETURNING id`,
    cycleId,
    t.asset,
    t.to,
    t.amountIn.toString(),
    t.amountIn.toString(),
    t.amountIn.toString(),
    t.status,
    t.createdAtMs,
    t.createdAtMs,
  );
  return Number(row!.id);
}

function entry(id: number, over: Partial<LedgerEntry>): LedgerEntry {
  return {
    transferId: id,
    status: 'success',
    asset: 'USDC',
    originChain: 'alpha',
    destinationChain: 'beta',
    amountIn: 100_000_000n,
    decimalsIn: 6,
    decimalsOut: 6,
    quotedExpectedOut: 99_500_000n,
    quotedMinOut: 99_000_000n,
    receivedOut: 99_400_000n,
    receivedSource: 'requests_v3_route_actual',
    fees: { execution: 100_000n, swap: 50_000n, platform: 10_000n, app: 0n },
    feesSource: 'requests_v3_actual',
    gasPaid: 10n ** 15n,
    gasDecimals: 18,
    gasUsdMicros: 3_000_000n,
    totalFeesUsdMicros: 3_160_000n,
    signedAtMs: IN_WINDOW,
    settledAtMs: IN_WINDOW + 10_000,
    settleMs: 10_000,
    ...over,
  };
}

beforeAll(async () => {
  const db = openSqliteStore(file);
  const cycle = await startCycle(db, { mode: 'once', startedAtMs: WINDOW_START - 86_400_000 });
  const usdc = (status: string, createdAtMs = IN_WINDOW) =>
    insertTransfer(db, cycle, { asset: 'USDC', to: 'beta', status, createdAtMs, amountIn: 100_000_000n });
  const s1 = await usdc('success');
  const s2 = await usdc('success');
  const s3 = await usdc('success');
  const failed = await usdc('failure');
  await usdc('origin_failed');
  await usdc('deposited');
  const old = await usdc('success', WINDOW_START - 1); // before the window: counted nowhere
  const eth = await insertTransfer(db, cycle, {
    asset: 'ETH',
    to: 'gamma',
    status: 'success',
    createdAtMs: IN_WINDOW,
    amountIn: 5n * 10n ** 17n,
  });
  await insertLedgerEntry(db, entry(s1, {}), IN_WINDOW);
  await insertLedgerEntry(
    db,
    entry(s2, {
      fees: { execution: 200_000n, swap: 50_000n, platform: 10_000n, app: 0n },
      totalFeesUsdMicros: 3_260_000n,
      settleMs: 40_000,
    }),
    IN_WINDOW,
  );
  await insertLedgerEntry(
    db,
    entry(s3, {
      fees: { execution: 300_000n, swap: 50_000n, platform: 10_000n, app: 0n },
      totalFeesUsdMicros: 3_360_000n,
      settleMs: 20_000,
    }),
    IN_WINDOW,
  );
  await insertLedgerEntry(
    db,
    entry(failed, {
      status: 'failure',
      fees: null,
      feesSource: 'none',
      receivedOut: null,
      receivedSource: 'none',
      gasPaid: 2n * 10n ** 15n,
      gasUsdMicros: 6_000_000n,
      totalFeesUsdMicros: 6_000_000n,
      settleMs: 5_000,
    }),
    IN_WINDOW,
  );
  await insertLedgerEntry(db, entry(old, { settleMs: 999_000 }), IN_WINDOW);
  await insertLedgerEntry(
    db,
    entry(eth, { asset: 'ETH', destinationChain: 'gamma', amountIn: 5n * 10n ** 17n, decimalsIn: 18, decimalsOut: 18, settleMs: 7_000 }),
    IN_WINDOW,
  );
  await db.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[]): Promise<string> {
  const lines: string[] = [];
  const program = new Command('ballast').exitOverride();
  registerReport(program, (s) => lines.push(s));
  registerHistory(program, (s) => lines.push(s));
  for (const c of program.commands) c.exitOverride();
  await program.parseAsync(args, { from: 'user' });
  return lines.join('\n');
}

/** Minimal RFC 4180 reader: enough for quoted fields with commas and doubled quotes. */
function parseCsv(text: string): string[][] {
  return text
    .split('\n')
    .map((line) =>
      [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(,|$)/g)].slice(0, -1).map((m) => m[1]!.replace(/^"|"$/g, '').replace(/""/g, '"')),
    );
}

describe('ballast report', () => {
  it('computes per-route totals from the ledger (CSV with a header row)', async () => {
    const rows = parseCsv(await cli(['report', '--db', file, '--since', '2026-11-01', '--csv']));
    expect(rows[0]).toEqual([...REPORT_CSV_HEADER]);
    expect(rows).toHaveLength(3);
    const byRoute = rows.slice(1).map((r) => Object.fromEntries(REPORT_CSV_HEADER.map((h, i) => [h, r[i]])));
    expect(byRoute[0]).toEqual({
      asset: 'ETH',
      origin_chain: 'alpha',
      destination_chain: 'gamma',
      transfers: '1',
      finished: '1',
      in_flight: '0',
      successes: '1',
      success_rate: '1.0000',
      moved: '0.5',
      moved_base_units: '500000000000000000',
      decimals_in: '18',
      fee_execution_usd: '0.1',
      fee_swap_usd: '0.05',
      fee_platform_usd: '0.01',
      fee_app_usd: '0',
      gas_paid_native: '0.001',
      gas_paid_base_units: '1000000000000000',
      gas_usd: '3',
      total_fees_usd: '3.16',
      settle_median_s: '7.000',
      settle_p95_s: '7.000',
    });
    expect(byRoute[1]).toEqual({
      asset: 'USDC',
      origin_chain: 'alpha',
      destination_chain: 'beta',
      transfers: '6',
      finished: '5',
      in_flight: '1',
      successes: '3',
      success_rate: '0.6000',
      moved: '300',
      moved_base_units: '300000000',
      decimals_in: '6',
      fee_execution_usd: '0.6',
      fee_swap_usd: '0.15',
      fee_platform_usd: '0.03',
      fee_app_usd: '0',
      gas_paid_native: '0.005',
      gas_paid_base_units: '5000000000000000',
      gas_usd: '15',
      total_fees_usd: '15.78',
      settle_median_s: '20.000',
      settle_p95_s: '40.000',
    });
  });

  it('renders a table with whole units, the success rate and settle times', async () => {
    const text = await cli(['report', '--db', file, '--since', '2026-11-01']);
    expect(text).toContain('transfers created since 2026-11-01T00:00:00.000Z');
    expect(text).toContain('300 USDC');
    expect(text).toContain('60.0 %');
    expect(text).toContain('execution 0.6');
    expect(text).toContain('15.78');
    expect(text).toContain('40.000 s');
  });

  it('counts nothing outside the window', async () => {
    const rows = parseCsv(await cli(['report', '--db', file, '--since', '2027-01-01', '--csv']));
    expect(rows).toEqual([[...REPORT_CSV_HEADER]]);
  });

  it('refuses a bad --since naming the flag and the format (exit 2)', async () => {
    const error = await cli(['report', '--db', file, '--since', 'last week']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(EXIT_USAGE);
    expect((error as CliError).message).toMatch(/^--since: "last week" is not a duration such as 30m, 24h or 7d/);
  });
});

describe('--db naming a missing file', () => {
  it.each(['report', 'history'])('%s exits 2 naming the flag and the path, and creates nothing', async (command) => {
    const missing = join(dir, 'typo', 'ledgr.db');
    const error = await cli([command, '--db', missing]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(EXIT_USAGE);
    expect((error as CliError).message).toContain(`--db ${missing}: no such database file`);
    expect(existsSync(missing)).toBe(false);
    expect(existsSync(join(dir, 'typo'))).toBe(false);
  });
});

describe('ballast history', () => {
  it('shows amounts in whole units with the asset symbol, base units with --raw, and says when decimals are unknown', async () => {
    const text = await cli(['history', '--db', file, '--limit', '20']);
    expect(text).toContain('0.5 ETH');
    expect(text).toContain('100 USDC');
    // Transfers without a ledger row or a stored quote: the store does not know their decimals.
    expect(text).toContain('100000000 base units (decimals unknown)');
    const raw = await cli(['history', '--db', file, '--raw']);
    expect(raw).toContain('amount in (base units)');
    expect(raw).toContain('500000000000000000');
    expect(raw).not.toContain('0.5 ETH');
    expect(raw).not.toContain('100 USDC');
  });

  it('adds decimals and the ledger entry to --json (amounts stay base units)', async () => {
    const rows = JSON.parse(await cli(['history', '--db', file, '--json'])) as {
      asset: string;
      amountIn: string;
      decimalsIn: number | null;
      ledger: { totalFeesUsdMicros: string } | null;
    }[];
    const eth = rows.find((r) => r.asset === 'ETH')!;
    expect(eth).toMatchObject({ amountIn: '500000000000000000', decimalsIn: 18, ledger: { totalFeesUsdMicros: '3160000' } });
    expect(rows.filter((r) => r.ledger === null)).toHaveLength(2); // origin_failed and deposited
  });
});
