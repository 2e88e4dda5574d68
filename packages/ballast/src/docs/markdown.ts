/**
 * Small Markdown builders shared by the generated reference pages (docs/configuration.md, docs/cli.md). Pure
 * string functions: GitHub-flavoured Markdown tables, cells safe for them, and headed sections read from a
 * hand-written Markdown file.
 */

/**
 * Makes text safe for one table cell: line breaks become spaces and `|` is escaped (GitHub reads `\|` as a
 * literal bar, in code spans too).
 *
 * @param text any text
 * @returns the text on one line with every `|` escaped
 */
export function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
}

/**
 * Wraps text in a code span, with a longer fence when the text holds backticks.
 *
 * @param text code, e.g. a flag or a default value
 * @returns `` `text` `` (or ``` `` text `` ``` when it contains a backtick)
 */
export function code(text: string): string {
  return text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``;
}

/**
 * A GitHub-flavoured Markdown table.
 *
 * @param head column titles
 * @param rows cells, already made safe with {@link cell} where they hold free text
 * @returns the table's lines joined with newlines (no trailing newline)
 */
export function markdownTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

/**
 * Splits a hand-written Markdown file into its `## name` sections.
 *
 * @param markdown the file's text; text before the first `## ` heading is returned under the name `''`
 * @returns section name → its body, trimmed (without the heading line)
 * @throws Error when a section name appears twice (the second would silently win)
 */
export function sectionsOf(markdown: string): Map<string, string> {
  const sections = new Map<string, string>();
  const parts = markdown.split(/^## (.+)$/m);
  sections.set('', parts[0]!.trim()); // split always returns at least one element
  for (let i = 1; i < parts.length; i += 2) {
    const name = parts[i]!.trim(); // headings and bodies alternate after the first element
    if (sections.has(name)) throw new Error(`section "## ${name}" appears twice`);
    sections.set(name, (parts[i + 1] ?? '').trim());
  }
  return sections;
}
