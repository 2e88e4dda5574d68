/**
 * `npm run docs`: writes the generated reference pages (docs/configuration.md, docs/cli.md; generatedPages.ts)
 * into the repository. Run it after changing a command's flags or descriptions, cliFacts.ts, the guides, or the
 * config schema (after `npm run schema`); test/unit/docs/generatedPages.test.ts fails until the pages match.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedPages } from './generatedPages.ts';

/** The repository root, from this file's place (packages/ballast/src/docs/). */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * Writes every generated page.
 *
 * @param root repository root to write under (default: this checkout)
 * @returns the absolute paths written
 */
export async function writeDocs(root = ROOT): Promise<string[]> {
  const written: string[] = [];
  for (const page of await generatedPages()) {
    const file = resolve(root, page.path);
    writeFileSync(file, page.text);
    written.push(file);
  }
  return written;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const file of await writeDocs()) process.stdout.write(`wrote ${file}\n`);
}
