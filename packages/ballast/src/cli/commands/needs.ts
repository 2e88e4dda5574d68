/**
 * Known outflows on the command line (docs/needs.md):
 * - `ballast needs add --asset A --chain C [--wallet W] --amount N --due T --key K [--note TEXT] [--by NAME] [--json]`
 *   records a need (idempotent on `--key`: the same key with the same content is the need already recorded);
 * - `ballast needs list [--all] [--json]`: the open needs (every one with `--all`), in due order;
 * - `ballast needs cancel <id> [--by NAME] [--json]`: cancels an open need.
 * One line per need: id, status, amount in whole units with the asset symbol, holding, due time, key, note.
 * Exit codes (README "Exit codes"): 2 for a request that cannot be recorded as given (the flag is named) or an
 * unknown id, 3 for a refusal (a key recorded with other content, a need no longer open), 1 when the holding's
 * token decimals cannot be learnt now.
 */
import { hostname, userInfo } from 'node:os';
import type { Command } from 'commander';
import type { LoadedConfig } from '../../config/loadConfig.ts';
import { configNeedHoldings, needHoldingsSource } from '../../needs/holdings.ts';
import { decimalsOfNeed, needJson, needLine } from '../../needs/needView.ts';
import { findNeedHolding, NeedDecimalsError, NeedInputError, resolveNeed, type NeedHolding } from '../../needs/resolveNeed.ts';
import { addNeed, cancelNeed, findNeedByKey, listNeeds, NeedStoreError } from '../../store/needs.ts';
import { CliError, EXIT_ERROR, EXIT_REFUSED, EXIT_USAGE } from '../exitCodes.ts';
import { toJson } from '../format.ts';
import type { GlobalFlags } from '../session.ts';
import { withStore } from '../storeFile.ts';

/** Flags of `ballast needs add`. */
interface AddFlags {
  asset: string;
  chain: string;
  wallet?: string;
  amount: string;
  due: string;
  key: string;
  note?: string;
  by?: string;
  json?: boolean;
}

/** The flag each input field comes from, for messages. */
const FLAG_OF: Readonly<Record<string, string>> = {
  asset: '--asset',
  chain: '--chain',
  wallet: '--wallet',
  amount: '--amount',
  dueAt: '--due',
  idempotencyKey: '--key',
  note: '--note',
};

/** Who runs the command, when `--by` is not given: `<user>@<host>`. */
function defaultBy(): string {
  return `${userInfo().username}@${hostname()}`;
}

/**
 * The configured holdings with decimals; when the named holding's config entry states none, they are learnt as a
 * cycle learns them (GET /chains, the token contract), through a wired app.
 */
async function holdingsFor(cmd: Command, config: LoadedConfig, flags: AddFlags): Promise<NeedHolding[]> {
  const fromConfig = configNeedHoldings(config);
  let holding: NeedHolding;
  try {
    holding = findNeedHolding(fromConfig, flags.asset, flags.chain, flags.wallet);
  } catch {
    return fromConfig; // resolveNeed names the flag at fault
  }
  if (holding.decimals !== null) return fromConfig;
  const { openBallast } = await import('../openBallast.ts'); // the app, only when the network must be asked
  const { ballast } = await openBallast(cmd.optsWithGlobals<GlobalFlags>());
  try {
    return await needHoldingsSource(ballast.ctx)();
  } finally {
    await ballast.close();
  }
}

/** A need error as a CLI error with its exit code; anything else is rethrown. */
function cliErrorOf(error: unknown): never {
  if (error instanceof NeedInputError) {
    throw new CliError(`${FLAG_OF[error.field] ?? error.field}: ${error.message.slice(error.field.length + 2)}`, EXIT_USAGE, {
      cause: error,
    });
  }
  if (error instanceof NeedDecimalsError) throw new CliError(error.message, EXIT_ERROR, { cause: error });
  if (error instanceof NeedStoreError && error.code === 'NEED_NOT_FOUND') throw new CliError(error.message, EXIT_USAGE, { cause: error });
  if (error instanceof NeedStoreError) {
    const message = error.code === 'NEED_CONFLICT' ? error.message.replace('idempotency key', '--key') : error.message;
    throw new CliError(`refused: ${message}`, EXIT_REFUSED, { cause: error });
  }
  throw error;
}

/** Registers `ballast needs add|list|cancel`. */
export function registerNeeds(program: Command, out: (s: string) => void): void {
  const cmd = program.command('needs').description('known outflows: payments due from a holding, held by the planner before they are due');
  cmd
    .command('add')
    .description('record a need: an amount of an asset due from a configured holding at a time (idempotent on --key)')
    .requiredOption('--asset <symbol>', 'asset under assets: in the config, e.g. USDC')
    .requiredOption('--chain <name>', 'chain of the holding, e.g. base')
    .option('--wallet <name>', 'wallet of the holding; may be left out when the asset has one holding on the chain')
    .requiredOption('--amount <whole units>', 'amount in whole units of the asset, e.g. 50000 or 0.5')
    .requiredOption('--due <time>', 'due time: ISO-8601 with Z or an offset (2026-12-06T09:00:00Z), or ms since the epoch')
    .requiredOption('--key <key>', 'idempotency key, 1-200 printable characters (e.g. payroll-2026-12): the same key records nothing twice')
    .option('--note <text>', 'what the payment is for (kept with the need)')
    .option('--by <name>', 'who records it (default <user>@<host>)')
    .option('--json', 'print JSON: {created, need}')
    .action(async (flags: AddFlags, sub: Command) => {
      await withStore(sub, async (db, config) => {
        const holdings = await holdingsFor(sub, config, flags);
        try {
          const recorded = (await findNeedByKey(db, flags.key)) ?? null;
          const need = resolveNeed(
            {
              asset: flags.asset,
              chain: flags.chain,
              wallet: flags.wallet,
              amount: flags.amount,
              dueAt: flags.due,
              idempotencyKey: flags.key,
              note: flags.note,
            },
            holdings,
            { nowMs: Date.now(), createdBy: flags.by ?? defaultBy(), recorded },
          );
          const { need: row, created } = await addNeed(db, need, Date.now());
          const decimals = decimalsOfNeed(row, holdings);
          if (flags.json) out(toJson({ created, need: needJson(row, decimals) }));
          else out(`${created ? 'recorded' : `already recorded under key ${row.idempotencyKey}`}: ${needLine(row, decimals)}`);
        } catch (error) {
          cliErrorOf(error);
        }
      });
    });
  cmd
    .command('list')
    .description('open needs in due order (every need with --all), one line each')
    .option('--all', 'every need, cancelled and closed ones too')
    .option('--json', 'print JSON')
    .action(async (flags: { all?: boolean; json?: boolean }, sub: Command) => {
      await withStore(sub, async (db, config) => {
        const needs = await listNeeds(db, { all: flags.all === true });
        const holdings = configNeedHoldings(config);
        if (flags.json) {
          out(toJson(needs.map((n) => needJson(n, decimalsOfNeed(n, holdings)))));
          return;
        }
        if (needs.length === 0) out(flags.all ? 'no needs' : 'no open needs');
        for (const n of needs) out(needLine(n, decimalsOfNeed(n, holdings)));
      });
    });
  cmd
    .command('cancel <id>')
    .description('cancel an open need: the planner no longer holds it')
    .option('--by <name>', 'who cancels it (default <user>@<host>)')
    .option('--json', 'print JSON')
    .action(async (id: string, flags: { by?: string; json?: boolean }, sub: Command) => {
      if (!/^[1-9][0-9]{0,14}$/.test(id)) throw new CliError(`expected a need id (see ballast needs list), got "${id}"`, EXIT_USAGE);
      await withStore(sub, async (db, config) => {
        try {
          const need = await cancelNeed(db, Number(id), Date.now(), flags.by ?? defaultBy());
          const decimals = decimalsOfNeed(need, configNeedHoldings(config));
          out(flags.json ? toJson(needJson(need, decimals)) : `cancelled: ${needLine(need, decimals)}`);
        } catch (error) {
          cliErrorOf(error);
        }
      });
    });
}
