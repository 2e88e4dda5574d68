/**
 * Key file reading for wallets (`wallets.<name>.keyFile`): the file must be a regular file that other users
 * cannot read or write (mode bits `o=`, e.g. 600, 640 or 400). A world-accessible key file is an error, not a
 * warning: the key may already be exposed, and starting anyway would hide that. Group access is allowed for
 * setups that share secrets through a group. The content is returned trimmed and never put into a message.
 */
import { readFileSync, statSync } from 'node:fs';
import type { ConfigIssue } from './errors.ts';

/**
 * Reads a key file after checking its type and permissions.
 *
 * @param file absolute path of the key file
 * @param path YAML path of the `keyFile` setting (for issues)
 * @param issues receives the problem when the file is missing, not a regular file, accessible by other users
 *   or unreadable
 * @returns the trimmed file content, or undefined when an issue was recorded
 */
export function readKeyFile(file: string, path: string, issues: ConfigIssue[]): string | undefined {
  let mode: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) {
      issues.push({ path, message: `${file} is not a regular file; point keyFile at the key file` });
      return undefined;
    }
    mode = st.mode;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code; // fs errors carry an errno code
    issues.push({
      path,
      message:
        code === 'ENOENT'
          ? `${file} does not exist; create it or fix the path (relative paths start at the config file's directory)`
          : `${file} cannot be inspected (${code ?? 'error'}); check the path and permissions`,
    });
    return undefined;
  }
  if ((mode & 0o007) !== 0) {
    const octal = (mode & 0o777).toString(8);
    issues.push({
      path,
      message: `${file} is accessible by other users (mode ${octal}); run chmod 600 ${file} and consider rotating the key`,
    });
    return undefined;
  }
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code; // fs errors carry an errno code
    issues.push({ path, message: `${file} cannot be read (${code ?? 'error'}); make it readable by the Ballast user` });
    return undefined;
  }
}
