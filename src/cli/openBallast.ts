/**
 * Wires a Ballast instance for a CLI command (config, logger, the app). Kept apart from session.ts so that
 * commands needing only the config or the store do not load the app's modules at start.
 */
import type { Logger } from 'pino';
import type { LoadedConfig } from '../config/loadConfig.ts';
import { createBallast, type Ballast, type CreateBallastOptions } from '../app/createBallast.ts';
import { cliLogger, loadCliConfig, type GlobalFlags } from './session.ts';

/** Loads config and wires Ballast for a command. The caller closes it. */
export function openBallast(
  flags: GlobalFlags,
  extra: Omit<CreateBallastOptions, 'logger'> = {},
): { config: LoadedConfig; ballast: Ballast; logger: Logger } {
  const config = loadCliConfig(flags);
  const logger = cliLogger(config, flags);
  for (const warning of config.warnings) logger.warn({ component: 'config' }, warning);
  return { config, ballast: createBallast(config, { logger, ...extra }), logger };
}
