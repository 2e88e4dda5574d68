/**
 * Every source the code cites can be opened: each citation of a section of docs/relay-contract.md (the page, then the
 * section name in double quotes) in src/, test/, config/, bench/ and deploy/ names a heading of that page (also a
 * second name after an arrow, and a citation wrapped over two comment lines), every `docs/<file>.md` named in src/ exists, and nothing in src/
 * or config/ points outside the repository or cites a section without naming the page it is in.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const PAGE = ['docs', 'relay-contract.md'].join('/');
const SCANNED = ['packages/ballast/src', 'test', 'packages/ballast/config', 'bench', 'deploy'];
const TEXT_FILE = /\.(ts|mts|mjs|js|json|ya?ml|md|sh)$/;

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name.startsWith('.')) return [];
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : TEXT_FILE.test(name) ? [full] : [];
  });
}

/** `##` and `###` headings of a markdown page. */
export function headingsOf(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/^#{2,3} (.+?)\s*$/gm)].map((m) => m[1]!));
}

/**
 * Section names cited as `<PAGE> "X"` (and `→ "Y"` after it) in `text`. Comment prefixes (`*`, `//`, `#`) at the
 * start of a continuation line and JSON string escapes are removed first, so wrapped citations are read whole.
 */
export function citedSections(text: string): string[] {
  const flat = text.replace(/\\"/g, '"').replace(/\s*\n\s*(?:\*(?!\/)|\/\/|#)?\s*/g, ' ');
  const escaped = PAGE.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const names: string[] = [];
  for (const m of flat.matchAll(new RegExp(`${escaped} "([^"]+)"((?:\\s*→\\s*"[^"]+")*)`, 'g'))) {
    names.push(m[1]!);
    for (const next of m[2]!.matchAll(/"([^"]+)"/g)) names.push(next[1]!);
  }
  return names;
}

/** Whether a cited name is a heading, or the start of one followed by a parenthesised qualifier. */
export function isHeading(name: string, headings: Set<string>): boolean {
  return headings.has(name) || [...headings].some((h) => h.startsWith(`${name} (`));
}

const headings = headingsOf(readFileSync(path.join(root, PAGE), 'utf8'));

describe(`${PAGE} citations`, () => {
  it('the checker reads wrapped and arrowed citations and rejects an unknown section', () => {
    const text = `/** see ${PAGE}\n * "Events" → "Webhooks" and ${PAGE} "No such section" 2 */`;
    expect(citedSections(text)).toEqual(['Events', 'Webhooks', 'No such section']);
    expect(citedSections(text).filter((n) => !isHeading(n, headings))).toEqual(['No such section']);
    expect(isHeading('Chain object', headings)).toBe(true);
  });

  it('every cited section is a heading of the page', () => {
    const bad: string[] = [];
    let count = 0;
    for (const file of SCANNED.flatMap((d) => files(path.join(root, d)))) {
      for (const name of citedSections(readFileSync(file, 'utf8'))) {
        count++;
        if (!isHeading(name, headings)) bad.push(`${path.relative(root, file)}: "${name}"`);
      }
    }
    expect(bad).toEqual([]);
    expect(count).toBeGreaterThan(200);
  });

  it('every docs/ page named in src/ exists', () => {
    const missing: string[] = [];
    for (const file of files(path.join(root, 'packages/ballast/src'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\bdocs\/([\w.-]+\.md)\b/g)) {
        if (!existsSync(path.join(root, 'docs', m[1]!))) missing.push(`${path.relative(root, file)}: docs/${m[1]}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('nothing in src/ or config/ cites a path outside the repository or a section without its page', () => {
    const outside = [/\.\.\/shared/, /\/work\//, /\bDESIGN\.md\b/, /\bspec \\?"/];
    const found: string[] = [];
    for (const file of [...files(path.join(root, 'packages/ballast/src')), ...files(path.join(root, 'packages/ballast/config'))]) {
      const lines = readFileSync(file, 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (outside.some((re) => re.test(line))) found.push(`${path.relative(root, file)}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });
});
