/**
 * Configuration errors: one class, code `CONFIG_INVALID`, process exit code 2 (conventions "CLI": 2 = bad
 * usage/config). All problems found in one load are reported together, one per line, each starting with the
 * YAML path it concerns (`assets.USDC[1].chain: …`) and ending with the fix.
 */
import { BallastError } from '@ballast/protocol/core/errors.ts';

/** One problem in the configuration file. `path` is a YAML path such as `assets.USDC[1].chain` ("" = file). */
export interface ConfigIssue {
  path: string;
  message: string;
}

/** Placeholder written instead of a secret value. */
export const REDACTED = '[redacted]';

/**
 * Thrown by `loadConfig` when the file cannot be read or is invalid.
 *
 * `message` is one line for one issue (`invalid configuration <file>: <path>: <problem>; <fix>`), else lists
 * every issue on its own line. Secret values (private keys, API
 * keys, key file contents) never appear: messages are built without them and redacted again before throwing.
 */
export class ConfigError extends BallastError {
  /** Stable error code. */
  readonly code = 'CONFIG_INVALID' as const;
  /** Exit code the CLI should use (2: bad usage or configuration). */
  readonly exitCode = 2 as const;
  /** The individual problems, in file order where possible. */
  readonly issues: readonly ConfigIssue[];
  /** Absolute path of the configuration file. */
  readonly file: string;

  /**
   * @param file absolute path of the config file
   * @param issues problems found (at least one)
   * @param secrets secret strings to scrub from the message (defence in depth)
   * @param cause underlying error (file system, YAML parser), when there was one
   */
  constructor(file: string, issues: ConfigIssue[], secrets: Iterable<string> = [], cause?: unknown) {
    const clean = issues.map((i) => ({ path: i.path, message: redactSecrets(i.message, secrets) }));
    const lines = clean.map((i) => `  ${i.path ? `${i.path}: ` : ''}${i.message}`);
    // One problem is one line (what a supervisor's journal shows at a failed start); several get one line each.
    const only = clean.length === 1 ? clean[0]! : null;
    super(
      only
        ? `invalid configuration ${file}: ${only.path ? `${only.path}: ` : ''}${only.message}`
        : `invalid configuration ${file} (${clean.length} problems):\n${lines.join('\n')}`,
      cause ? { cause } : undefined,
    );
    this.issues = clean;
    this.file = file;
  }
}

/**
 * Replaces every occurrence of each secret (strings of 8+ characters) in `text` with {@link REDACTED}.
 *
 * @param text message to clean
 * @param secrets secret values to remove
 * @returns the cleaned text
 */
export function redactSecrets(text: string, secrets: Iterable<string>): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 8) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/**
 * Formats a zod-style path as a YAML path: `['assets', 'USDC', 1, 'chain']` → `assets.USDC[1].chain`.
 * Keys that are not plain identifiers are quoted: `wallets["my wallet"]`.
 */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else {
      const k = String(key);
      if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(k)) out += out ? `.${k}` : k;
      else out += `[${JSON.stringify(k)}]`;
    }
  }
  return out;
}
