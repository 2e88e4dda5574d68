/**
 * pino logger factory: JSON lines, one child logger per component, secrets redacted.
 */
import { pino, type Logger } from 'pino';

/** Paths redacted from every log line (conventions "Logging and secrets"). */
export const REDACT_PATHS = [
  'privateKey',
  '*.privateKey',
  'apiKey',
  '*.apiKey',
  'relay.apiKey',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  'mnemonic',
  '*.mnemonic',
  'account',
  '*.account',
];

/** Options for {@link createLogger}. */
export interface CreateLoggerOptions {
  /** pino level name; default "info". */
  level?: string;
  /** Destination stream; default stdout. Tests pass a buffer stream. */
  destination?: NodeJS.WritableStream;
}

/**
 * Creates the root logger. Components take `logger.child({ component: 'executor' })`.
 *
 * @returns a pino Logger writing JSON lines with secret paths censored
 */
export function createLogger(opts: CreateLoggerOptions = {}): Logger {
  return pino(
    {
      level: opts.level ?? 'info',
      base: { app: 'ballast' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    opts.destination ?? process.stdout,
  );
}
