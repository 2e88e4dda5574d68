/**
 * pino logger factory: JSON lines (or pino-pretty's human-readable lines), one child logger per component,
 * secrets redacted. JSON lines name their level (`"level":"warn"`, not pino's number 40), so `jq 'select(.level ==
 * "error")'` and log shippers read them without a table; pretty lines are coloured only on a terminal and never
 * when NO_COLOR is set (https://no-color.org, resolved by ./logSettings.ts).
 *
 * pino-pretty is loaded only when the pretty format is chosen (synchronously, through `createRequire`: it is a
 * CommonJS package), so JSON logging and commands that never log do not pay for it.
 */
import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogFormat } from './logSettings.ts';

/**
 * Paths redacted from every log line (conventions "Logging and secrets"): private keys in every form a wallet
 * holds them (hex, Solana secret key bytes, Bitcoin WIF), signer objects, API keys, webhook secrets and HTTP
 * credentials. A path matches the top-level field and the same field one object down.
 */
export const REDACT_PATHS = [
  'privateKey',
  '*.privateKey',
  'secretKey',
  '*.secretKey',
  'wif',
  '*.wif',
  'keypair',
  '*.keypair',
  'mnemonic',
  '*.mnemonic',
  'account',
  '*.account',
  'apiKey',
  '*.apiKey',
  'relay.apiKey',
  'secret',
  '*.secret',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  'headers.authorization',
  '*.headers.authorization',
];

/** The text that replaces a redacted value or a scrubbed secret. */
export const REDACTED = '[redacted]';

/** Options for {@link createLogger}. */
export interface CreateLoggerOptions {
  /** pino level name; default "info". */
  level?: string;
  /** `json` (default) or `pretty` (pino-pretty, colours when the destination is a terminal and `color` allows). */
  format?: LogFormat;
  /**
   * Destination stream; default stdout. With `pretty`, a stream that is a terminal (`isTTY`) gets colours unless
   * `color` is false. Tests pass a buffer stream.
   */
  destination?: NodeJS.WritableStream;
  /** false: never colour the pretty lines (NO_COLOR is set); default true (colour on a terminal only). */
  color?: boolean;
  /**
   * Secret values (API key, webhook secret) replaced by `[redacted]` wherever they appear in a line, whatever
   * field or message carries them. Values shorter than 8 characters are ignored (they would mangle ordinary
   * text); the field paths in {@link REDACT_PATHS} apply regardless.
   */
  scrub?: readonly string[];
}

type PrettyFactory = (opts: {
  destination: NodeJS.WritableStream;
  colorize: boolean;
  sync: boolean;
  translateTime: string;
  ignore: string;
}) => DestinationStream;

/** Loads pino-pretty on first use only (CommonJS; `require` keeps {@link createLogger} synchronous). */
function loadPretty(): PrettyFactory {
  const require = createRequire(import.meta.url);
  return require('pino-pretty') as PrettyFactory; // pino-pretty's module.exports is its factory function
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A streamWrite hook replacing every secret value in a serialized line, or undefined when none is long enough. */
function scrubber(secrets: readonly string[]): ((line: string) => string) | undefined {
  const values = [...new Set(secrets.filter((s) => s.length >= 8))].sort((a, b) => b.length - a.length);
  if (values.length === 0) return undefined;
  // Each value as it appears inside a JSON string (escaped), longest first so a secret containing another wins.
  const re = new RegExp(values.map((v) => escapeRegExp(JSON.stringify(v).slice(1, -1))).join('|'), 'g');
  return (line) => line.replace(re, REDACTED);
}

/** JSON lines carry the level's name (`info`), not its number (30). */
const LEVEL_NAMES = { level: (label: string) => ({ level: label }) };

/**
 * Creates the root logger. Components take `logger.child({ component: 'executor' })`.
 *
 * @returns a pino Logger writing JSON lines with the level's name (or pretty lines) with secret paths censored and
 *   scrubbed values replaced
 */
export function createLogger(opts: CreateLoggerOptions = {}): Logger {
  const out = opts.destination ?? process.stdout;
  const scrub = scrubber(opts.scrub ?? []);
  const options = {
    level: opts.level ?? 'info',
    base: { app: 'ballast' },
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    timestamp: pino.stdTimeFunctions.isoTime,
    ...(scrub ? { hooks: { streamWrite: scrub } } : {}),
  };
  if (opts.format !== 'pretty') return pino({ ...options, formatters: LEVEL_NAMES }, out);
  const isTty = (out as NodeJS.WritableStream & { isTTY?: boolean }).isTTY === true; // tty.WriteStream sets it
  const pretty = loadPretty()({
    destination: out,
    colorize: isTty && opts.color !== false,
    sync: true, // lines reach the terminal before the process exits, in order with direct stderr writes
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,app',
  });
  return pino(options, pretty);
}
