/**
 * Wires a Ballast instance for a CLI command (config, logger, the app). Kept apart from session.ts so that
 * commands needing only the config or the store do not load the app's modules at start.
 */
import type { Logger } from 'pino';
import type { LoadedConfig } from '../config/loadConfig.ts';
import { openBallastApp, type Ballast, type CreateBallastOptions } from '../app/createBallast.ts';
import { cliLogger, loadCliConfig, type GlobalFlags } from './session.ts';

/** Loads config, opens the store (SQLite or PostgreSQL) and wires Ballast for a command. The caller closes it. */
export async function openBallast(
  flags: GlobalFlags,
  extra: Omit<CreateBallastOptions, 'logger' | 'store'> = {},
): Promise<{ config: LoadedConfig; ballast: Ballast; logger: Logger }> {
  const config = loadCliConfig(flags);
  const logger = cliLogger(config, flags);
  for (const warning of config.warnings) logger.warn({ component: 'config' }, warning);
  return { config, ballast: await openBallastApp(config, { logger, ...extra }), logger };
}
