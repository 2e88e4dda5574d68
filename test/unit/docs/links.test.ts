/**
 * Every link and section citation in the documentation leads somewhere: each relative Markdown link in README.md and
 * docs/*.md names an existing file (and, after `#`, a heading of it, by GitHub's anchor rule), and each citation of a
 * page's section — `docs/<page>.md "Heading"` or `README "Heading"` — in the docs, the deploy kit, the product's
 * sources and the tests names a heading of that page. Moving a section out of the README without its readers
 * fails here, naming the file and the citation.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PAGES = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const CITING = ['README.md', 'docs', 'deploy', 'packages/ballast/src', 'packages/ballast/config', 'test', 'eslint.config.js'];
const TEXT_FILE = /\.(ts|mjs|js|md|ya?ml|sh|cron|service)$|Dockerfile$/;

function files(rel: string): string[] {
  const full = path.join(ROOT, rel);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [rel];
  return readdirSync(full).flatMap((name) => (name === 'node_modules' || name.startsWith('.') ? [] : files(path.join(rel, name))));
}

/** GitHub's anchor of a heading: lower case, punctuation dropped (hyphens and underscores kept), spaces to hyphens. */
export function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Headings of a Markdown page (any level, outside fenced code), as written. */
export function headingsOf(markdown: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6} (.+?)\s*#*\s*$/.exec(line);
    if (m) out.push(m[1]!);
  }
  return out;
}

/** Anchors of a page, with GitHub's `-1`, `-2` suffixes for repeated headings. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const heading of headingsOf(markdown)) {
    const slug = slugOf(heading);
    const n = seen.get(slug) ?? 0;
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
    seen.set(slug, n + 1);
  }
  return anchors;
}

/** Relative link targets of a Markdown page (outside fenced code and code spans). */
export function linksOf(markdown: string): string[] {
  const prose = markdown.replace(/^\s*```[\s\S]*?^\s*```/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/i.test(t));
}

/** Section citations `docs/<page>.md "Heading"` and `README "Heading"` (wrapped comment lines read whole). */
export function citationsOf(text: string): { page: string; heading: string }[] {
  const flat = text.replace(/\\"/g, '"').replace(/\s*\n\s*(?:\*(?!\/)|\/\/|#)?\s*/g, ' ');
  return [...flat.matchAll(/\b(README|docs\/[\w.-]+\.md)\)?,? "([^"]+)"/g)].map((m) => ({
    page: m[1] === 'README' ? 'README.md' : m[1]!,
    heading: m[2]!,
  }));
}

/**
 * Whether a cited name is a heading of the page (code marks aside), the start of one followed by a parenthesised
 * qualifier or a colon, or a heading the citation qualifies in parentheses (`"planner (pure: …)"` for `## planner`).
 */
function isHeading(cited: string, headings: readonly string[]): boolean {
  const name = cited.replace(/`/g, '');
  return headings
    .map((h) => h.replace(/`/g, ''))
    .some((h) => h === name || h.startsWith(`${name} (`) || h.startsWith(`${name}:`) || name.startsWith(`${h} (`));
}

describe('documentation links', () => {
  it('the checkers read links, anchors and wrapped citations', () => {
    expect(slugOf('`chains.<chain>` with `vm: evm`')).toBe('chainschain-with-vm-evm');
    expect(slugOf('ballast check-config')).toBe('ballast-check-config');
    expect(slugOf('Test a configuration before it moves money')).toBe('test-a-configuration-before-it-moves-money');
    expect(linksOf('see [a](docs/a.md#x) and `[b](no.md)` and [c](https://example.com)\n```\n[d](e.md)\n```')).toEqual(['docs/a.md#x']);
    expect(citationsOf('/** as README "Exit codes" and docs/ha.md\n * "The lease row" say */')).toEqual([
      { page: 'README.md', heading: 'Exit codes' },
      { page: 'docs/ha.md', heading: 'The lease row' },
    ]);
  });

  it('every relative link in README.md and docs/ names an existing file and heading', () => {
    const broken: string[] = [];
    let count = 0;
    for (const page of PAGES) {
      for (const target of linksOf(readFileSync(path.join(ROOT, page), 'utf8'))) {
        count++;
        const [file, anchor] = target.split('#') as [string, string | undefined];
        const resolved = file === '' ? page : path.normalize(path.join(path.dirname(page), file));
        if (!existsSync(path.join(ROOT, resolved))) {
          broken.push(`${page}: (${target}) — no file ${resolved}`);
          continue;
        }
        if (anchor && resolved.endsWith('.md') && !anchorsOf(readFileSync(path.join(ROOT, resolved), 'utf8')).has(anchor)) {
          broken.push(`${page}: (${target}) — ${resolved} has no heading with anchor #${anchor}`);
        }
      }
    }
    expect(broken).toEqual([]);
    expect(count).toBeGreaterThan(30);
  });

  it('every cited section of README.md or a docs/ page is a heading of that page', () => {
    const headings = new Map(PAGES.map((p) => [p, headingsOf(readFileSync(path.join(ROOT, p), 'utf8'))]));
    const broken: string[] = [];
    let count = 0;
    const self = path.relative(ROOT, fileURLToPath(import.meta.url)); // its own examples cite made-up headings
    for (const file of CITING.flatMap(files).filter((f) => TEXT_FILE.test(f) && f !== self)) {
      for (const { page, heading } of citationsOf(readFileSync(path.join(ROOT, file), 'utf8'))) {
        const known = headings.get(page);
        if (!known || /^<.*>$/.test(heading)) continue; // another project's README, or a placeholder such as "<section>"
        count++;
        if (!isHeading(heading, known)) broken.push(`${file}: ${page} "${heading}"`);
      }
    }
    expect(broken).toEqual([]);
    expect(count).toBeGreaterThan(50);
  });

  it('README.md is a front door: at most ~200 lines, its first code block the set-up and test commands', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(210);
    const first = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(first.split('\n')[0]).toMatch(/^npm ci && npm run demo\s/);
    expect(first.split('\n')[1]).toMatch(/^npm ci && npm test\s/);
    expect(readme).toContain('packages/ballast/config/ballast.example.yaml');
    expect(readme).not.toMatch(/[^/]config\/ballast\.example\.yaml/);
  });
});
