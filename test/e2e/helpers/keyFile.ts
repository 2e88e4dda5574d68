/** Key files as `ballast approve --key-file` and `ballast policy approve --key-file` require them. */
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Writes `text` to `dir/name`, readable by its owner only (mode 600); returns the path. */
export function keyFile(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  chmodSync(file, 0o600);
  return file;
}
