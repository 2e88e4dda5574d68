/**
 * `ballast report --since 7d [--csv | --json] [--db PATH]`: per route (asset, origin → destination) the transfers, successes
 * and success rate, the volume moved, the fees quoted beside the fees paid (Relay components and total in USD, the
 * network cost in the origin's native currency and USD; rounded for people in the table), and the
 * median and 95th percentile settle time, from the ledger (table `transfer_ledger`); then the approval requests
 * recorded in the window, with who signed off and how each closed. Reads the store, never the network. `--json`:
 * `{since, routes, approvals}`, amounts in base units and USD in micro-USD as decimal strings.
 */
import type { Command } from 'commander';
import { buildRouteReports } from '../../ledger/routeReport.ts';
import { parseSince } from '../../ledger/parseSince.ts';
import { countTransfersByRoute, listLedgerSince } from '../../store/ledger.ts';
import { CliError, EXIT_USAGE } from '../exitCodes.ts';
import { toJson } from '../format.ts';
import { quotedByRoute, reportCsv, reportTable } from '../renderLedger.ts';
import { quotedFeesOfTransfers } from '../../store/quotedFees.ts';
import { nativeSymbolsOfChains } from '../../store/quotedUnits.ts';
import { loadCliConfig, type GlobalFlags } from '../session.ts';
import { openExistingStore } from '../storeFile.ts';
import { listApprovalRequestsSince } from '../../store/approvalReads.ts';
import { approvalReportLines } from '../renderApprovals.ts';

/** Registers the command. */
export function registerReport(program: Command, out: (s: string) => void): void {
  program
    .command('report')
    .description('per-route totals: transfers, success rate, volume, fees quoted and paid (Relay and network), settle times')
    .option('--since <when>', 'window start: a duration back from now (30m, 24h, 7d) or an ISO date (2026-11-01)', '7d')
    .option('--csv', 'CSV with a header row instead of a table')
    .option('--json', 'machine-readable output: {since, routes, approvals}; amounts in base units, USD in micro-USD')
    .option('--db <file>', 'existing SQLite store to read instead of the one in the config')
    .action(async (flags: { since: string; csv?: boolean; json?: boolean; db?: string }, cmd: Command) => {
      if (flags.csv && flags.json) throw new CliError('give one of --csv and --json', EXIT_USAGE);
      let sinceMs: number;
      try {
        sinceMs = parseSince(flags.since, Date.now());
      } catch (error) {
        throw new CliError((error as Error).message, EXIT_USAGE); // parseSince throws RangeError only
      }
      const db =
        flags.db === undefined
          ? await openExistingStore(loadCliConfig(cmd.optsWithGlobals<GlobalFlags>()).store, 'store')
          : await openExistingStore(flags.db, '--db');
      try {
        const ledger = await listLedgerSince(db, sinceMs);
        const routes = buildRouteReports(await countTransfersByRoute(db, sinceMs), ledger);
        if (flags.json) {
          out(toJson({ since: new Date(sinceMs).toISOString(), routes, approvals: await listApprovalRequestsSince(db, sinceMs) }));
          return;
        }
        // Fees quoted beside fees paid, the network cost with its native symbol (src/cli/renderFees.ts).
        const extras = {
          quotedUsdMicros: quotedByRoute(
            ledger,
            await quotedFeesOfTransfers(
              db,
              ledger.map((e) => e.transferId),
            ),
          ),
          nativeSymbols: await nativeSymbolsOfChains(
            db,
            routes.map((r) => r.originChain),
          ),
        };
        out(flags.csv ? reportCsv(routes, extras) : reportTable(routes, sinceMs, extras));
        // Who approved what and when (policy.approvals); nothing is printed when no request was recorded.
        const approvals = flags.csv ? [] : approvalReportLines(await listApprovalRequestsSince(db, sinceMs));
        if (approvals.length > 0) out(approvals.join('\n'));
      } finally {
        await db.close();
      }
    });
}
