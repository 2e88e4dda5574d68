/**
 * Shared CLI set-up: config path resolution, config loading (exit 2 on errors) and the logger on stderr, so
 * stdout carries only command output. Wiring a whole Ballast instance lives in openBallast.ts, so commands that
 * only read the config or the store (history, report, limits) start without loading the app.
 */
import type { Logger } from 'pino';
import { loadConfig, ConfigError, type LoadedConfig } from '../config/loadConfig.ts';
import { createLogger } from '../log/logger.ts';
import { LogSettingError, resolveLogSettings } from '../log/logSettings.ts';
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

/**
 * The CLI's logger, on stderr (stdout carries only command output). Level: `--log-level`, else
 * BALLAST_LOG_LEVEL, else the config's `log.level`, else info. Format: BALLAST_LOG_FORMAT, else the config's
 * `log.format`, else pretty when stderr is a terminal and JSON lines otherwise; no colour when NO_COLOR is set.
 * The Relay API key (also the webhook HMAC secret) is scrubbed from every line.
 *
 * @param destination where the lines go: stderr, or the live progress view's stream in front of it, which clears
 *   its open line before a log line (src/cli/progress.ts)
 * @throws CliError (exit 2) when the flag or a variable names an unknown level or format
 */
export function cliLogger(
  config: LoadedConfig | null,
  flags: GlobalFlags,
  env: NodeJS.ProcessEnv = process.env,
  destination: NodeJS.WritableStream = process.stderr,
): Logger {
  let settings;
  try {
    settings = resolveLogSettings({ flagLevel: flags.logLevel, env, config: config?.log, isTty: process.stderr.isTTY === true });
  } catch (error) {
    if (error instanceof LogSettingError) throw new CliError(error.message, EXIT_USAGE, { cause: error });
    throw error;
  }
  const scrub = config?.relay.apiKey !== undefined ? [config.relay.apiKey] : [];
  return createLogger({ level: settings.level, format: settings.format, color: settings.color, destination, scrub });
}
