/**
 * `ballast resume --transfer ID --note TEXT`: records that an operator resolved what paused a route, so it is
 * planned again from the next cycle: a failed transfer (its deposit was withdrawn or otherwise dealt with), or
 * origin transactions that failed on chain in a row (the id given and every earlier one of its route).
 */
import type { Command } from 'commander';
import { resolveFailure } from '../../store/failures.ts';
import { openExistingStore } from '../storeFile.ts';
import { CliError, EXIT_USAGE } from '../exitCodes.ts';
import { loadCliConfig, type GlobalFlags } from '../session.ts';

/** Registers the command. */
export function registerResume(program: Command, out: (s: string) => void): void {
  program
    .command('resume')
    .description('resume a route paused by a failed deposit (once its funds are recovered or dealt with) or by origin transactions failing on chain')
    .requiredOption('--transfer <id>', 'the failed transfer, or the last origin failure the route_paused decision names (see `ballast history`)')
    .requiredOption('--note <text>', 'what was done about it (kept in the history)')
    .option('--db <file>', 'SQLite store to write instead of the one in the config')
    .action(async (flags: { transfer: string; note: string; db?: string }, cmd: Command) => {
      if (!/^[1-9][0-9]*$/.test(flags.transfer)) throw new CliError(`--transfer must be a transfer id, got "${flags.transfer}"`, EXIT_USAGE);
      if (flags.note.trim() === '') throw new CliError('--note must say what was done about the deposit', EXIT_USAGE);
      const db = flags.db === undefined ? await openExistingStore(loadCliConfig(cmd.optsWithGlobals<GlobalFlags>()).store, 'store') : await openExistingStore(flags.db, '--db');
      try {
        const ids = await resolveFailure(db, Number(flags.transfer), flags.note.trim(), Date.now());
        out(`${ids.length === 1 ? 'transfer' : 'transfers'} ${ids.join(', ')} resolved; the route is planned again from the next cycle`);
      } finally {
        await db.close();
      }
    });
}
