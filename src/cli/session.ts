/**
 * Shared CLI set-up: config path resolution, config loading (exit 2 on errors), logger on stderr so stdout
 * carries only command output, and the wired Ballast instance.
 */
import type { Logger } from 'pino';
import { loadConfig, ConfigError, type LoadedConfig } from '../config/loadConfig.ts';
import { createLogger } from '../log/logger.ts';
import { createBallast, type Ballast, type CreateBallastOptions } from '../app/createBallast.ts';
import { CliError, EXIT_USAGE } from './exitCodes.ts';

/** Global flags every config-reading command accepts. */
export interface GlobalFlags {
  config?: string;
  logLevel?: string;
}

/** Loads the config named by `--config`, else BALLAST_CONFIG, else ./ballast.yaml. */
export function loadCliConfig(flags: GlobalFlags, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const file = flags.config ?? env.BALLAST_CONFIG ?? './ballast.yaml';
  try {
    return loadConfig(file, env);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message, EXIT_USAGE, { cause: error });
    throw error;
  }
}

/** A logger writing JSON lines to stderr at the configured level. */
export function cliLogger(config: LoadedConfig | null, flags: GlobalFlags): Logger {
  return createLogger({
    level: flags.logLevel ?? config?.log?.level ?? 'info',
    destination: process.stderr,
  });
}

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
