/**
 * Which level and format the CLI logs at (pure: the caller passes the flags, environment and config).
 *
 * - level: `--log-level`, else `BALLAST_LOG_LEVEL`, else the config's `log.level`, else `info`;
 * - format: `BALLAST_LOG_FORMAT`, else the config's `log.format`, else `pretty` when the log stream (stderr) is
 *   a terminal and `json` when it is not (a file, a pipe, journald, a container log driver);
 * - colour: never when `NO_COLOR` is set to any non-empty value (https://no-color.org), else on a terminal only.
 */
import { LOG_FORMATS, LOG_LEVELS } from '../config/schema.ts';

/** A pino level name Ballast accepts. */
export type LogLevel = (typeof LOG_LEVELS)[number];
/** A log line format. */
export type LogFormat = (typeof LOG_FORMATS)[number];

/** What {@link resolveLogSettings} reads. */
export interface LogSettingsInput {
  /** `--log-level` as typed, if given. */
  flagLevel?: string | undefined;
  /** The environment (only BALLAST_LOG_LEVEL, BALLAST_LOG_FORMAT and NO_COLOR are read). */
  env: Readonly<Record<string, string | undefined>>;
  /** The config's `log` section, when a config was loaded. */
  config?: { level?: LogLevel | undefined; format?: LogFormat | undefined } | undefined;
  /** Whether the log stream is a terminal (`process.stderr.isTTY`). */
  isTty: boolean;
}

/** The resolved settings, with where each came from (for a debug line). */
export interface LogSettings {
  level: LogLevel;
  format: LogFormat;
  /** false when NO_COLOR is set (non-empty): pretty lines carry no ANSI colour even on a terminal. */
  color: boolean;
}

/** Whether colour is allowed: NO_COLOR unset or empty (https://no-color.org). */
export function colorAllowed(env: Readonly<Record<string, string | undefined>>): boolean {
  return env.NO_COLOR === undefined || env.NO_COLOR === '';
}

/** A log setting that is not one of the accepted values; `setting` names where it came from. */
export class LogSettingError extends Error {
  constructor(
    readonly setting: string,
    value: string,
    allowed: readonly string[],
  ) {
    super(`${setting} is "${value}"; use one of ${allowed.join(', ')}`);
    this.name = 'LogSettingError';
  }
}

function pick<T extends string>(setting: string, value: string, allowed: readonly T[]): T {
  const v = value.trim().toLowerCase();
  if ((allowed as readonly string[]).includes(v)) return v as T; // checked against the list just above
  throw new LogSettingError(setting, value, allowed);
}

/**
 * Resolves the log level and format.
 *
 * @throws LogSettingError when `--log-level`, BALLAST_LOG_LEVEL or BALLAST_LOG_FORMAT is not an accepted value
 *   (an empty environment variable counts as unset)
 */
export function resolveLogSettings(input: LogSettingsInput): LogSettings {
  const envLevel = input.env.BALLAST_LOG_LEVEL;
  const envFormat = input.env.BALLAST_LOG_FORMAT;
  let level: LogLevel;
  if (input.flagLevel !== undefined) level = pick('--log-level', input.flagLevel, LOG_LEVELS);
  else if (envLevel !== undefined && envLevel !== '') level = pick('BALLAST_LOG_LEVEL', envLevel, LOG_LEVELS);
  else level = input.config?.level ?? 'info';
  let format: LogFormat;
  if (envFormat !== undefined && envFormat !== '') format = pick('BALLAST_LOG_FORMAT', envFormat, LOG_FORMATS);
  else format = input.config?.format ?? (input.isTty ? 'pretty' : 'json');
  return { level, format, color: colorAllowed(input.env) };
}
