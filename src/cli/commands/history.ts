/**
 * `ballast history`: recent transfers with status, amounts, fees, transaction hashes and notes (stalled, failed,
 * refunded, withdrawn, a withdrawal under way, with their reasons). Reads the store named
 * by the config (or `--db`), never the network.
 */
import type { Command } from 'commander';
import { openDatabase } from '../../store/database.ts';
import { listRecentTransfers } from '../../store/transfers.ts';
import { withdrawalsOfTransfers } from '../../store/withdrawals.ts';
import { transferNotes } from '../historyNotes.ts';
import { CliError, EXIT_USAGE } from '../exitCodes.ts';
import { shortHash, table, toJson } from '../format.ts';
import { loadCliConfig, type GlobalFlags } from '../session.ts';

/** Registers the command. */
export function registerHistory(program: Command, out: (s: string) => void): void {
  program
    .command('history')
    .description('recent transfers with status, amounts (base units), fees and tx hashes')
    .option('--db <file>', 'SQLite store to read instead of the one in the config')
    .option('--limit <n>', 'how many transfers', '20')
    .option('--json', 'machine-readable output')
    .action((flags: { db?: string; limit: string; json?: boolean }, cmd: Command) => {
      if (!/^[0-9]+$/.test(flags.limit)) throw new CliError(`--limit must be a positive integer, got "${flags.limit}"`, EXIT_USAGE);
      const file = flags.db ?? loadCliConfig(cmd.optsWithGlobals<GlobalFlags>()).store;
      const db = openDatabase(file);
      try {
        const rows = listRecentTransfers(db, Number(flags.limit));
        const withdrawals = withdrawalsOfTransfers(db, rows.map((r) => r.id));
        if (flags.json) {
          out(toJson(rows.map((r) => ({ ...r, withdrawal: withdrawals.get(r.id) ?? null, notes: transferNotes(r, withdrawals.get(r.id)) }))));
          return;
        }
        if (rows.length === 0) {
          out('no transfers recorded yet');
          return;
        }
        out(
          table(
            ['id', 'created', 'asset', 'route', 'amount in', 'min out', 'fees USD', 'status', 'relay', 'origin txs', 'fill / refund txs', 'notes'],
            rows.map((r) => [
              r.id,
              new Date(r.createdAtMs).toISOString(),
              r.asset,
              `${r.originChain} → ${r.destinationChain}`,
              r.amountIn.toString(),
              r.minOut.toString(),
              r.feesUsd ?? '—',
              r.status,
              r.relayStatus ?? '—',
              r.txs.map((t) => shortHash(t.txHash)).join('\n') || '—',
              r.outTxHashes.map((h) => (r.status === 'refund' ? `refund ${shortHash(h)}` : shortHash(h))).join('\n') || '—',
              transferNotes(r, withdrawals.get(r.id)).join('\n') || '—',
            ]),
          ),
        );
      } finally {
        db.close();
      }
    });
}
