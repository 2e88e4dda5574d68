/**
 * One fee, labelled, on a SQLite file with known rows: `history` and `report` set the fees quoted beside the fees
 * paid, with units (USD; the network cost in the origin's native symbol, read from the stored quote) and rounded
 * for people, while `--json` and CSV keep every digit; `limits` shows what was spent in whole units with the
 * symbol (decimals from the store when the config gives none), never base units.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerHistory } from '../../../packages/ballast/src/cli/commands/history.ts';
import { registerLimits } from '../../../packages/ballast/src/cli/commands/limits.ts';
import { registerReport } from '../../../packages/ballast/src/cli/commands/report.ts';
import { REPORT_CSV_HEADER } from '../../../packages/ballast/src/cli/renderLedger.ts';
import type { LedgerEntry } from '../../../packages/ballast/src/ledger/ledgerEntry.ts';
import { startCycle } from '../../../packages/ballast/src/store/cycles.ts';
import { insertLedgerEntry } from '../../../packages/ballast/src/store/ledger.ts';
import { openSqliteStore } from '../../../packages/ballast/src/store/openStore.ts';
import { recordQuote } from '../../../packages/ballast/src/store/quotes.ts';
import { addTransferTx } from '../../../packages/ballast/src/store/transfers.ts';
import { offlineConfig } from '../../e2e/helpers/offlineConfig.ts';

const dir = mkdtempSync(join(tmpdir(), 'ballast-fees-'));
const file = join(dir, 'fees.db');
const NOW = Date.now();
let configFile = '';

/** The stored quote's parts the store reads units from: input USDC (6 dp) and the origin gas estimate in ETH. */
const QUOTE = {
  fees: {
    gas: {
      currency: { chainId: 31001, address: '0x0000000000000000000000000000000000000000', symbol: 'ETH', decimals: 18 },
      amount: '121102448624602',
      amountUsd: '0.363307',
    },
  },
  details: {
    currencyIn: {
      currency: { chainId: 31001, address: '0x2E983A1Ba5e8b38AAAeC4B440B9dDcFBf72E15d1', symbol: 'USDC', decimals: 6 },
      amount: '500000000',
      amountUsd: '500',
    },
    currencyOut: {
      currency: { chainId: 31002, address: '0x2E983A1Ba5e8b38AAAeC4B440B9dDcFBf72E15d1', symbol: 'USDC', decimals: 6 },
      amount: '499000000',
      amountUsd: '499',
    },
  },
};

const ENTRY: Omit<LedgerEntry, 'transferId'> = {
  status: 'success',
  asset: 'USDC',
  originChain: 'alpha',
  destinationChain: 'beta',
  amountIn: 500_000_000n,
  decimalsIn: 6,
  decimalsOut: 6,
  quotedExpectedOut: 499_500_000n,
  quotedMinOut: 499_000_000n,
  receivedOut: 499_400_000n,
  receivedSource: 'requests_v3_route_actual',
  fees: { execution: 500_000n, swap: 100_000n, platform: 0n, app: 0n },
  feesSource: 'requests_v3_actual',
  gasPaid: 121_102_448_624_602n,
  gasDecimals: 18,
  gasUsdMicros: 21_791n,
  totalFeesUsdMicros: 621_791n,
  signedAtMs: NOW - 60_000,
  settledAtMs: NOW - 50_000,
  settleMs: 10_000,
};

beforeAll(async () => {
  const db = openSqliteStore(file);
  const cycle = await startCycle(db, { mode: 'once', startedAtMs: NOW - 120_000 });
  const quoteId = await recordQuote(db, {
    cycleId: cycle,
    planId: null,
    requestId: null,
    orderId: null,
    request: {},
    raw: QUOTE,
    receivedAtMs: NOW - 90_000,
  });
  const row = await db.get<{ id: number }>(
    `INSERT INTO transfers (cycle_id, quote_id, asset, origin_chain, origin_chain_id, origin_currency, destination_chain, destination_chain_id,
       destination_currency, user_address, recipient, amount_in, expected_out, min_out, fees_usd, status, created_at_ms, updated_at_ms)
     VALUES (?, ?, 'USDC', 'alpha', 31001, '0xa', 'beta', 31002, '0xb', '0xu', '0xu', '500000000', '499500000', '499000000', '1.10235', 'broadcast', ?, ?)
     RETURNING id`,
    cycle,
    quoteId,
    NOW - 60_000,
    NOW - 50_000,
  );
  const id = Number(row!.id);
  // Signed: the spending history counts transfers with an origin transaction.
  await addTransferTx(db, id, {
    stepId: 'deposit',
    itemIndex: 0,
    chainId: 31001,
    request: {},
    txHash: `0x${'ab'.repeat(32)}`,
    rawTx: '0x00',
    nowMs: NOW - 60_000,
  });
  await db.run("UPDATE transfers SET status = 'success' WHERE id = ?", id);
  await insertLedgerEntry(db, { ...ENTRY, transferId: id }, NOW - 50_000);
  await db.close();
  // A config whose assets give no decimals: `limits` takes them from what the store recorded.
  ({ config: configFile } = await offlineConfig(dir, 'config', (yaml) =>
    yaml
      .replaceAll(', decimals: 6', '')
      .replace('${BETA_RPC}', 'http://127.0.0.1:9')
      .replace('maxFees: {totalBps: 30}', 'maxFees: {totalBps: 30}\n  limits: {dailyNotional: {USDC: "100000"}}'),
  ));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[]): Promise<string> {
  const lines: string[] = [];
  const program = new Command('ballast').exitOverride().option('--config <file>');
  registerReport(program, (s) => lines.push(s));
  registerHistory(program, (s) => lines.push(s));
  registerLimits(program, (s) => lines.push(s));
  for (const c of program.commands) c.exitOverride();
  await program.parseAsync(args, { from: 'user' });
  return lines.join('\n');
}

/** The cells of a cli-table3 table's body, joined per column line: enough to find a cell's text. */
function cellsText(table: string): string {
  return table.replace(/[│┌┐└┘├┤┬┴┼─]/g, ' ').replace(/ +/g, ' ');
}

describe('ballast history', () => {
  it('shows the fee quoted and the fee paid, labelled, in USD rounded to the cent, and the network cost with its symbol', async () => {
    const text = cellsText(await cli(['history', '--db', file]));
    expect(text).toContain('quoted 1.10 USD');
    expect(text).toContain('paid 0.62 USD: Relay 0.60 USD,');
    expect(text).toContain('network 0.0001211 ETH (0.02 USD)');
    expect(text).not.toContain('1.10235');
    expect(text).not.toContain('0.000121102448624602');
  });

  it('keeps every digit in --json', async () => {
    const [row] = JSON.parse(await cli(['history', '--db', file, '--json'])) as {
      feesUsd: string;
      ledger: { totalFeesUsdMicros: string; gasPaid: string };
    }[];
    expect(row).toMatchObject({ feesUsd: '1.10235', ledger: { totalFeesUsdMicros: '621791', gasPaid: '121102448624602' } });
  });
});

describe('ballast report', () => {
  it('sets the fees quoted beside the fees paid, with units, rounded', async () => {
    const text = cellsText(await cli(['report', '--db', file, '--since', '1d']));
    expect(text).toContain('fees quoted');
    expect(text).toContain('fees paid');
    expect(text).toContain('1.10 USD'); // quoted
    expect(text).toContain('total 0.62 USD');
    expect(text).toContain('Relay 0.60 USD: execution 0.50, swap 0.10, platform 0.00, app 0.00');
    expect(text).toContain('network 0.0001211 ETH (0.02 USD)');
    expect(text).not.toContain('0.621791');
  });

  it('keeps every digit in CSV, the quoted total in its own column', async () => {
    const [head, row] = (await cli(['report', '--db', file, '--since', '1d', '--csv'])).split('\n').map((l) => l.split(','));
    const byName = Object.fromEntries(head!.map((h, i) => [h, row![i]]));
    expect(head).toEqual([...REPORT_CSV_HEADER]);
    expect(byName).toMatchObject({
      total_fees_usd: '0.621791',
      gas_paid_native: '0.000121102448624602',
      quoted_fees_usd: '1.10235',
    });
  });
});

describe('ballast limits', () => {
  it('shows what was spent in whole units with the symbol, not base units', async () => {
    expect(readFileSync(configFile, 'utf8')).not.toContain('decimals');
    const text = await cli(['limits', '--db', file, '--config', configFile]);
    expect(text).toContain('USDC spent in 24 h: 500 USDC from alpha; cap 100000 USDC');
    expect(text).not.toContain('500000000');
    expect(text).not.toContain('base units');
  });
});
