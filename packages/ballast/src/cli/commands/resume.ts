/**
 * `ballast resume (--transfer ID | --wallet NAME) --note TEXT [--json]`: records that an operator resolved what paused
 * routes, so they are planned again from the next cycle:
 * - `--transfer`: a failed transfer (its deposit was withdrawn or otherwise dealt with), or origin transactions
 *   that failed on chain in a row (the id given and every earlier one of its route). A fill blocked by address
 *   screening (`failReason` BLOCKED_WALLET) is a failed transfer: resuming it also lifts the wallet pauses it made.
 * - `--wallet`: a wallet paused by Relay address screening (a quote refused with BLOCKED_WALLET_ADDRESS or
 *   SANCTIONED_WALLET_ADDRESS, or a fill blocked), once Relay support has cleared it (src/store/walletPauses.ts).
 * `--json` prints what was resolved: `{transfers, walletPausesLifted}` or `{wallet, walletPausesLifted}` (ids).
 */
import type { Command } from 'commander';
import { resolveFailure } from '../../store/failures.ts';
import { resolveTransferWalletPauses, resolveWalletPauses } from '../../store/walletPauses.ts';
import { openExistingStore } from '../storeFile.ts';
import { CliError, EXIT_USAGE } from '../exitCodes.ts';
import { toJson } from '../format.ts';
import { loadCliConfig, type GlobalFlags } from '../session.ts';

/** Registers the command. */
export function registerResume(program: Command, out: (s: string) => void): void {
  program
    .command('resume')
    .description(
      'resume a route paused by a failed deposit (once its funds are recovered or dealt with) or by origin transactions failing on chain, or a wallet paused by Relay address screening',
    )
    .option('--transfer <id>', 'the failed transfer, or the last origin failure the route_paused decision names (see `ballast history`)')
    .option('--wallet <name>', 'a wallet paused by Relay address screening (name under wallets:), once Relay support has cleared it')
    .requiredOption('--note <text>', 'what was done about it (kept in the history)')
    .option('--db <file>', 'SQLite store to write instead of the one in the config')
    .option('--json', 'print JSON: {transfers, walletPausesLifted} or {wallet, walletPausesLifted}, ids resolved')
    .action(async (flags: { transfer?: string; wallet?: string; note: string; db?: string; json?: boolean }, cmd: Command) => {
      if ((flags.transfer === undefined) === (flags.wallet === undefined))
        throw new CliError('give exactly one of --transfer <id> and --wallet <name>', EXIT_USAGE);
      if (flags.transfer !== undefined && !/^[1-9][0-9]*$/.test(flags.transfer))
        throw new CliError(`--transfer must be a transfer id, got "${flags.transfer}"`, EXIT_USAGE);
      if (flags.note.trim() === '') throw new CliError('--note must say what was done about the deposit', EXIT_USAGE);
      const note = flags.note.trim();
      const needConfig = flags.db === undefined || flags.wallet !== undefined;
      const config = needConfig ? loadCliConfig(cmd.optsWithGlobals<GlobalFlags>()) : undefined;
      const address = flags.wallet === undefined ? undefined : config?.wallets[flags.wallet]?.address;
      if (flags.wallet !== undefined && address === undefined) {
        throw new CliError(
          `--wallet ${flags.wallet}: no such wallet under wallets: (${Object.keys(config?.wallets ?? {}).join(', ')})`,
          EXIT_USAGE,
        );
      }
      const db = flags.db === undefined ? await openExistingStore(config!.store, 'store') : await openExistingStore(flags.db, '--db'); // config is loaded when --db is absent
      try {
        if (address !== undefined) {
          const ids = await resolveWalletPauses(db, address, note, Date.now());
          if (flags.json) {
            out(toJson({ wallet: flags.wallet, walletPausesLifted: ids }));
            return;
          }
          out(
            ids.length === 0
              ? `wallet ${flags.wallet} was not paused by address screening; nothing changed`
              : `wallet ${flags.wallet}: ${ids.length} screening pause(s) resolved; its routes are planned again from the next cycle`,
          );
          return;
        }
        const ids = await resolveFailure(db, Number(flags.transfer), note, Date.now());
        const lifted = await resolveTransferWalletPauses(db, Number(flags.transfer), note, Date.now());
        if (flags.json) {
          out(toJson({ transfers: ids, walletPausesLifted: lifted }));
          return;
        }
        out(
          `${ids.length === 1 ? 'transfer' : 'transfers'} ${ids.join(', ')} resolved; the route is planned again from the next cycle` +
            (lifted.length > 0 ? ` (and the wallets its screening block paused: ${lifted.length} pause(s) lifted)` : ''),
        );
      } finally {
        await db.close();
      }
    });
}
