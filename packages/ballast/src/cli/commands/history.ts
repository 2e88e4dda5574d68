/**
 * `ballast history`: recent transfers with status, amounts, fees, transaction hashes and notes (approved by whom,
 * stalled, failed, refunded, withdrawn, a withdrawal under way, with their reasons). Reads the store named by the
 * config (or `--db`, which must exist), never the network. Amounts are whole units with the asset symbol (decimals from the
 * store's ledger or quote, else `assets.<symbol>[i].decimals` of the config); `--raw` shows base units. Fees are
 * `quoted` (the accepted quote) beside `paid` (the ledger: Relay fees and the network cost in the origin's native
 * currency, e.g. `0.0001211 ETH`), USD rounded for people (src/cli/renderFees.ts); `--json` keeps every digit.
 */
import type { Command } from 'commander';
import type { LoadedConfig } from '../../config/loadConfig.ts';
import { listRecentTransfers } from '../../store/transfers.ts';
import type { TransferRow } from '../../store/transferRows.ts';
import { decimalsOfTransfers, type TransferDecimals } from '../../store/ledgerUnits.ts';
import { getLedgerEntry, ledgerEntriesOf } from '../../store/ledger.ts';
import { nativeSymbolsOfTransfers } from '../../store/quotedUnits.ts';
import { feeLines } from '../renderFees.ts';
import { parseUsdMicros } from '@ballast/protocol/core/units.ts';
import { withdrawalsOfTransfers } from '../../store/withdrawals.ts';
import { transferNotes } from '../historyNotes.ts';
import { approvalsOfTransfers } from '../../store/approvalReads.ts';
import { approvalNote } from '../renderApprovals.ts';
import { CliError, EXIT_USAGE } from '../exitCodes.ts';
import { formatWhole, shortHash, table, toJson } from '../format.ts';
import { loadCliConfig, type GlobalFlags } from '../session.ts';
import { openExistingStore } from '../storeFile.ts';

/** Registers the command. */
export function registerHistory(program: Command, out: (s: string) => void): void {
  program
    .command('history')
    .description(
      'recent transfers with status, amounts (whole units with the symbol; --raw for base units), fees quoted and paid, tx hashes',
    )
    .option('--db <file>', 'existing SQLite store to read instead of the one in the config')
    .option('--limit <n>', 'how many transfers', '20')
    .option('--raw', "amounts in base units (the store's exact values)")
    .option('--json', 'machine-readable output (amounts in base units, with their decimals and the ledger entry)')
    .action(async (flags: { db?: string; limit: string; raw?: boolean; json?: boolean }, cmd: Command) => {
      if (!/^[0-9]+$/.test(flags.limit)) throw new CliError(`--limit must be a positive integer, got "${flags.limit}"`, EXIT_USAGE);
      const config = flags.db === undefined ? loadCliConfig(cmd.optsWithGlobals<GlobalFlags>()) : null;
      const db = flags.db === undefined ? await openExistingStore(config!.store, 'store') : await openExistingStore(flags.db, '--db'); // config loaded when --db is absent
      try {
        const rows = await listRecentTransfers(db, Number(flags.limit));
        const withdrawals = await withdrawalsOfTransfers(
          db,
          rows.map((r) => r.id),
        );
        const stored = await decimalsOfTransfers(
          db,
          rows.map((r) => r.id),
        );
        const approvals = await approvalsOfTransfers(
          db,
          rows.map((r) => r.id),
        );
        const decimals = new Map(rows.map((r) => [r.id, withConfigDecimals(r, stored.get(r.id), config)]));
        const notesOf = (r: TransferRow) => {
          const approval = approvals.get(r.id);
          // Whole units with the symbol, as the amounts columns; base units with --raw.
          const decimalsIn = flags.raw ? null : (decimals.get(r.id)?.decimalsIn ?? null);
          return [...transferNotes(r, withdrawals.get(r.id), decimalsIn), ...(approval ? [approvalNote(approval)] : [])];
        };
        if (flags.json) {
          const items = [];
          for (const r of rows) {
            items.push({
              ...r,
              ...decimals.get(r.id)!, // set for every row above
              ledger: (await getLedgerEntry(db, r.id)) ?? null,
              withdrawal: withdrawals.get(r.id) ?? null,
              notes: notesOf(r),
            });
          }
          out(toJson(items));
          return;
        }
        if (rows.length === 0) {
          out('no transfers recorded yet');
          return;
        }
        // Fees paid (the ledger) and the native symbol of the network cost, for the fee column.
        const ledgers = await ledgerEntriesOf(
          db,
          rows.map((r) => r.id),
        );
        const natives = await nativeSymbolsOfTransfers(
          db,
          rows.map((r) => r.id),
        );
        const unit = flags.raw ? ' (base units)' : '';
        out(
          table(
            [
              'id',
              'created',
              'asset',
              'route',
              `amount in${unit}`,
              `min out${unit}`,
              'fees',
              'status',
              'relay',
              'origin txs',
              'fill / refund txs',
              'notes',
            ],
            rows.map((r) => {
              const d = decimals.get(r.id)!; // set for every row above
              return [
                r.id,
                new Date(r.createdAtMs).toISOString(),
                r.asset,
                `${r.originChain} → ${r.destinationChain}`,
                flags.raw ? r.amountIn.toString() : formatWhole(r.amountIn, d.decimalsIn, r.asset),
                flags.raw ? r.minOut.toString() : formatWhole(r.minOut, d.decimalsOut, d.symbolOut ?? r.asset),
                feeLines({
                  quotedMicros: usdMicrosOrNull(r.feesUsd),
                  ledger: ledgers.get(r.id) ?? null,
                  nativeSymbol: natives.get(r.id) ?? null,
                  originChain: r.originChain,
                }).join('\n'),
                r.status,
                r.relayStatus ?? '—',
                r.txs.map((t) => shortHash(t.txHash)).join('\n') || '—',
                r.outTxHashes.map((h) => (r.status === 'refund' ? `refund ${shortHash(h)}` : shortHash(h))).join('\n') || '—',
                notesOf(r).join('\n') || '—',
              ];
            }),
          ),
        );
      } finally {
        await db.close();
      }
    });
}

/** Micro-USD of a stored USD decimal string; null when absent or not a decimal (shown as unknown). */
function usdMicrosOrNull(usd: string | null): bigint | null {
  if (usd === null) return null;
  try {
    return parseUsdMicros(usd);
  } catch {
    return null; // not a decimal string (parseUsdMicros throws TypeError): a row written outside Ballast
  }
}

/**
 * Fills decimals the store does not know from `assets.<asset>[i].decimals` of the config entry holding that
 * currency on that chain (a gas top-up's output, another asset's native token, has none).
 */
function withConfigDecimals(r: TransferRow, stored: TransferDecimals | undefined, config: LoadedConfig | null): TransferDecimals {
  const fromConfig = (chain: string, currency: string): number | null =>
    config?.assets[r.asset]?.find((e) => e.chain === chain && e.currency.toLowerCase() === currency.toLowerCase())?.decimals ?? null;
  return {
    decimalsIn: stored?.decimalsIn ?? fromConfig(r.originChain, r.originCurrency),
    decimalsOut: stored?.decimalsOut ?? fromConfig(r.destinationChain, r.destinationCurrency),
    ...(stored?.symbolOut !== undefined ? { symbolOut: stored.symbolOut } : {}),
  };
}
