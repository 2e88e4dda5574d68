/**
 * The ledger after a real transfer on the sandbox (anvil chains, local Relay API): received amount between the
 * order's minimum and the quoted expectation, realized fees per component summing to the total, origin gas equal
 * to the receipts' gasUsed × effectiveGasPrice, a positive settle time, the fee metrics, and `ballast report` on
 * the same store.
 */
import { Command } from 'commander';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { getLedgerEntry } from '../../packages/ballast/src/store/ledger.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { registerReport } from '../../packages/ballast/src/cli/commands/report.ts';
import { REPORT_CSV_HEADER } from '../../packages/ballast/src/cli/renderLedger.ts';
import { formatUsdMicros } from '../../packages/protocol/src/core/units.ts';
import { ballastOnSandbox, tempDir } from './helpers/sandboxBallast.ts';
import { trackingClock } from './trackingClock.ts';

const tmp = tempDir('ballast-ledger-');
let sandbox: Sandbox | null = null;
afterEach(async () => {
  await sandbox?.stop();
  sandbox = null;
});
afterAll(() => tmp.cleanup());

describe('ledger of a real transfer', () => {
  it('records quoted vs received, realized fees, gas and settle time, meters them, and reports them per route', async () => {
    sandbox = await startSandbox({});
    const { ballast, store } = ballastOnSandbox(sandbox, tmp.dir);
    try {
      const report = await ballast.runCycle('once');
      expect(report.attempts.map((a) => a.outcome)).toEqual(['success']);
      const [transfer] = await listRecentTransfers(ballast.db, 10);
      const entry = (await getLedgerEntry(ballast.db, transfer!.id))!;
      expect(entry).toBeDefined();
      expect(entry.status).toBe('success');
      expect(entry.amountIn).toBe(transfer!.amountIn);

      // Received: what the request record says was delivered, within the order's slippage band.
      expect(entry.receivedSource).toBe('requests_v3_route_actual');
      expect(entry.receivedOut! <= entry.quotedExpectedOut).toBe(true);
      expect(entry.receivedOut! >= entry.quotedMinOut).toBe(true);
      expect([entry.decimalsIn, entry.decimalsOut]).toEqual([6, 6]);

      // Fees: realized components from data.fees.actual; total = components + gas in USD.
      expect(entry.feesSource).toBe('requests_v3_actual');
      const f = entry.fees!;
      expect(f.execution > 0n).toBe(true); // at least the flat 0.02 USD
      expect(entry.totalFeesUsdMicros).toBe(f.execution + f.swap + f.platform + f.app + (entry.gasUsdMicros ?? 0n));

      // Gas: the sum over the origin receipts (approve + deposit), priced through the quote's fees.gas.
      const alpha = sandbox.chains.find((c) => c.def.slug === 'alpha')!;
      let gas = 0n;
      for (const tx of transfer!.txs) {
        const r = await alpha.publicClient.getTransactionReceipt({ hash: tx.txHash as `0x${string}` });
        gas += r.gasUsed * r.effectiveGasPrice;
      }
      expect(gas > 0n).toBe(true);
      expect(entry.gasPaid).toBe(gas);
      expect(entry.gasDecimals).toBe(18);
      expect(entry.gasUsdMicros! > 0n).toBe(true);

      // Settle: first signature → the close, both from the store.
      expect(entry.signedAtMs).toBe(Math.min(...transfer!.txs.map((t) => t.signedAtMs)));
      expect(entry.settleMs! > 0).toBe(true);
      expect(entry.settledAtMs).toBe(transfer!.events.at(-1)!.atMs);

      let metrics = await ballast.metrics.registry.metrics();
      const counter = (c: string) => Number(new RegExp(`ballast_fees_paid_usd_total\\{component="${c}"\\} ([0-9.e-]+)`).exec(metrics)?.[1]);
      expect(counter('execution')).toBeCloseTo(Number(f.execution) / 1e6, 6);
      expect(counter('gas')).toBeCloseTo(Number(entry.gasUsdMicros) / 1e6, 6);
      expect(metrics).toMatch(/ballast_transfer_fees_usd_count 1\b/);
      expect(metrics).toMatch(/ballast_transfer_settle_seconds_count 1\b/);

      // A second write is a no-op: the next cycle's backfill finds nothing missing and counts nothing twice.
      await ballast.runCycle('once');
      metrics = await ballast.metrics.registry.metrics();
      expect(counter('execution')).toBeCloseTo(Number(f.execution) / 1e6, 6);
      expect(metrics).toMatch(/ballast_transfer_fees_usd_count 1\b/);

      const lines: string[] = [];
      const program = new Command('ballast').exitOverride();
      registerReport(program, (s) => lines.push(s));
      await program.parseAsync(['report', '--db', store, '--since', '1h', '--csv'], { from: 'user' });
      const [head, row, ...rest] = lines.join('\n').split('\n');
      expect(rest).toHaveLength(0);
      expect(head).toBe(REPORT_CSV_HEADER.join(','));
      const cells = Object.fromEntries(REPORT_CSV_HEADER.map((h, i) => [h, row!.split(',')[i]]));
      expect(cells).toMatchObject({
        asset: 'USDC',
        origin_chain: 'alpha',
        destination_chain: 'beta',
        transfers: '1',
        successes: '1',
        success_rate: '1.0000',
        moved: '20000',
        fee_execution_usd: formatUsdMicros(f.execution),
        gas_paid_base_units: gas.toString(),
        total_fees_usd: formatUsdMicros(entry.totalFeesUsdMicros),
        settle_median_s: (entry.settleMs! / 1000).toFixed(3),
      });
    } finally {
      await ballast.close();
    }
  }, 120_000);

  it('is written when the next cycle closes a slow transfer, and written again by the backfill when missing', async () => {
    // Cycle 1 stops tracking at its first status read (the clock moves past its 10 s); the fill lands 4 s after the deposit.
    sandbox = await startSandbox({ faults: { fillDelayMs: 4_000 } });
    const clock = trackingClock();
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, { tracking: { pollMs: 200, timeoutSec: 10 } }, {}, { now: clock.now });
    try {
      void clock.timeOutAtNextStatusRead(ballast.relay, 10_000);
      const first = await ballast.runCycle('once');
      expect(clock.aheadMs).toBe(10_000);
      expect(first.attempts[0]!.outcome).toBe('in_flight');
      const id = first.attempts[0]!.transferId!;
      expect(await getLedgerEntry(ballast.db, id)).toBeUndefined();

      const requestId = (await listRecentTransfers(ballast.db, 1))[0]!.requestId!;
      const status = async () =>
        ((await (await fetch(`${sandbox!.apiUrl}/intents/status/v3?requestId=${requestId}`)).json()) as { status: string }).status;
      for (let i = 0; i < 160 && (await status()) !== 'success'; i++) await new Promise((r) => setTimeout(r, 250));
      await ballast.runCycle('once');
      const entry = (await getLedgerEntry(ballast.db, id))!;
      expect(entry.status).toBe('success');
      expect(entry.receivedSource).toBe('requests_v3_route_actual');
      expect(entry.gasPaid! > 0n).toBe(true);
      expect(entry.settleMs! > 0).toBe(true);

      // A ledger row lost (or never written, e.g. a webhook closed the transfer) is written by the next cycle.
      await ballast.db.run('DELETE FROM transfer_ledger WHERE transfer_id = ?', id);
      await ballast.runCycle('once');
      expect(await getLedgerEntry(ballast.db, id)).toMatchObject({
        status: 'success',
        gasPaid: entry.gasPaid,
        receivedOut: entry.receivedOut,
      });
    } finally {
      await ballast.close();
    }
  }, 120_000);

  it('records a refunded transfer with its origin gas and no fees or received amount', async () => {
    sandbox = await startSandbox({ faults: { refund: true } });
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir);
    try {
      const report = await ballast.runCycle('once');
      expect(report.attempts.map((a) => a.outcome)).toEqual(['refund']);
      const entry = (await getLedgerEntry(ballast.db, report.attempts[0]!.transferId!))!;
      expect(entry).toMatchObject({ status: 'refund', fees: null, feesSource: 'none', receivedOut: null, receivedSource: 'none' });
      expect(entry.gasPaid! > 0n).toBe(true);
      expect(entry.totalFeesUsdMicros).toBe(entry.gasUsdMicros ?? 0n);
      // Fee metrics count successes only.
      const metrics = await ballast.metrics.registry.metrics();
      expect(metrics).toMatch(/ballast_transfer_fees_usd_count 0\b/);
      expect(metrics).toMatch(/ballast_fees_paid_usd_total\{component="execution"\} 0\b/);
    } finally {
      await ballast.close();
    }
  }, 120_000);
});
