/**
 * Wires a Ballast instance for a CLI command (config, logger, the app). Kept apart from session.ts so that
 * commands needing only the config or the store do not load the app's modules at start.
 */
import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import type { LoadedConfig } from '../config/loadConfig.ts';
import { createBallast, openBallastApp, type Ballast, type CreateBallastOptions } from '../app/createBallast.ts';
import { isPostgresUrl } from '../config/storeUrl.ts';
import { openSqliteStore } from '../store/openStore.ts';
import { cliLogger, loadCliConfig, type GlobalFlags } from './session.ts';
import { isLoopbackUrl } from '../relay/authRefusal.ts';

/**
 * Loads config, opens the store (SQLite or PostgreSQL) and wires Ballast for a command. The caller closes it.
 *
 * @param opts.createStore false for a command that only reads (`plan`): a SQLite `store:` file that does not
 *   exist is not created; the command runs on an empty in-memory store instead (no history), and says so
 * @param opts.logDestination where log lines go instead of stderr (the live progress view's stream in front of it)
 */
export async function openBallast(
  flags: GlobalFlags,
  extra: Omit<CreateBallastOptions, 'logger' | 'store'> = {},
  opts: { createStore?: boolean; logDestination?: NodeJS.WritableStream } = {},
): Promise<{ config: LoadedConfig; ballast: Ballast; logger: Logger }> {
  const config = loadCliConfig(flags);
  const logger = cliLogger(config, flags, process.env, opts.logDestination);
  for (const warning of config.warnings) logger.warn({ component: 'config' }, warning);
  const keyWarning = missingKeyWarning(config.relay);
  if (keyWarning) logger.warn({ component: 'config' }, keyWarning);
  if (opts.createStore === false && !isPostgresUrl(config.store) && config.store !== ':memory:' && !existsSync(config.store)) {
    logger.info({ component: 'store' }, `store: ${config.store} does not exist yet; planning without history (nothing is created)`);
    return { config, ballast: createBallast(config, { logger, ...extra, store: openSqliteStore(':memory:') }), logger };
  }
  return { config, ballast: await openBallastApp(config, { logger, ...extra }), logger };
}

/**
 * The start-up warning when no Relay API key is configured for a remote API: keys are mandatory on /quote/v3
 * and public clients report 401 `UNAUTHORIZED_QUOTE` on the older quote endpoints without one
 * (https://docs.relay.link/references/api/api-keys). None for a loopback base URL (a local sandbox).
 *
 * @returns the warning, or undefined when a key is set or the API is on this machine
 */
export function missingKeyWarning(relay: { baseUrl: string; apiKey?: string | undefined }): string | undefined {
  if (relay.apiKey !== undefined || isLoopbackUrl(relay.baseUrl)) return undefined;
  return (
    `relay.apiKey is not set and relay.baseUrl (${new URL(relay.baseUrl).host}) is not this machine: the Relay API may refuse quotes ` +
    'with 401 UNAUTHORIZED_QUOTE; set relay.apiKey: ${RELAY_API_KEY} with a key from dashboard.relay.link'
  );
}
