/**
 * Renders docs/cli.md from the commander program itself (src/cli/main.ts `buildProgram`, every command
 * registered, nothing run): per command its synopsis, description, options with their defaults, one example and
 * the exit codes it can return (`cliFacts.ts`), and the hand-written notes of `cliGuide.md` (its `## <command>`
 * sections; its preamble and `## Exit codes` open the page). Pure: the program, the facts and the guide come in,
 * the page comes out.
 */
import type { Command, Option } from 'commander';
import { EXIT_MEANINGS, type CommandFacts } from './cliFacts.ts';
import { cell, code, markdownTable, sectionsOf } from './markdown.ts';

/** A command's words after `ballast`, e.g. `approvals list`. */
export function commandPath(cmd: Command): string {
  const words: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) words.unshift(c.name());
  return words.join(' ');
}

/** Every command that runs something (leaves), parents before their subcommands, in help order. */
export function runnableCommands(program: Command): Command[] {
  return program.commands.flatMap((c) => (c.commands.length > 0 ? c.commands : [c]));
}

/** The option's term without its short alias, e.g. `--config <file>` for `-c, --config <file>`. */
function longTerm(option: Option): string {
  return option.flags.replace(/^-\w,?\s*/, '');
}

/** `ballast transfer --from <chain:asset> --to <chain:asset> --amount <whole units> [options]`. */
export function synopsis(cmd: Command): string {
  const visible = cmd.options.filter((o) => !o.hidden);
  const mandatory = visible.filter((o) => o.mandatory).map(longTerm);
  const optional = visible.some((o) => !o.mandatory) ? ['[options]'] : [];
  const args = cmd.registeredArguments.map((a) => {
    const name = `${a.name()}${a.variadic ? '...' : ''}`;
    return a.required ? `<${name}>` : `[${name}]`;
  });
  return ['ballast', commandPath(cmd), ...mandatory, ...optional, ...args].join(' ');
}

/** The default column of an option: its default value, or a dash. */
function defaultOf(option: Option): string {
  if (option.defaultValueDescription) return cell(option.defaultValueDescription);
  if (option.defaultValue === undefined || option.negate) return '—';
  return cell(code(typeof option.defaultValue === 'string' ? option.defaultValue : JSON.stringify(option.defaultValue)));
}

function optionsTable(options: readonly Option[]): string {
  return markdownTable(
    ['option', 'what it does', 'default'],
    options
      .filter((o) => !o.hidden)
      .map((o) => [cell(code(o.flags)) + (o.mandatory ? ' (required)' : ''), cell(o.description), defaultOf(o)]),
  );
}

/** A command description (lower case, no full stop, as `--help` shows it) as a sentence. */
function sentence(description: string): string {
  return `${description.charAt(0).toUpperCase()}${description.slice(1)}.`;
}

/** GitHub's anchor of a `## ballast <path>` heading. */
function anchorOf(path: string): string {
  return `ballast-${path.replace(/ /g, '-')}`;
}

function commandSection(cmd: Command, heading: string, facts: CommandFacts, notes: string | undefined): string {
  const path = commandPath(cmd);
  const parts = [`${heading} ballast ${path}`, sentence(cmd.description()), '```sh\n' + synopsis(cmd) + '\n```'];
  if (notes) parts.push(notes);
  if (cmd.options.some((o) => !o.hidden)) parts.push(optionsTable(cmd.options));
  parts.push('Example:', '```sh\n' + facts.example + '\n```');
  parts.push(
    'Exit codes:',
    markdownTable(
      ['code', 'when'],
      Object.entries(facts.exits).map(([exitCode, when]) => [exitCode, cell(when)]),
    ),
  );
  return parts.join('\n\n');
}

/**
 * Renders the page.
 *
 * @param program the `ballast` program with every command registered (`buildProgram(out, COMMAND_NAMES)`)
 * @param facts example and exit codes per command path (`cliFacts.ts`)
 * @param guide the hand-written Markdown (`cliGuide.md`): a preamble with the page's `#` title, `## Exit codes`,
 *   and optional `## <command path>` notes placed under that command's synopsis
 * @returns the page, ending with one newline
 * @throws Error naming the command when a command has no facts, or when facts or notes name no command (a renamed
 *   or removed one): add or fix its entry in packages/ballast/src/docs/cliFacts.ts or cliGuide.md
 */
export function renderCliPage(program: Command, facts: Readonly<Record<string, CommandFacts>>, guide: string): string {
  const notes = sectionsOf(guide);
  const paths = new Set([...program.commands.map(commandPath), ...runnableCommands(program).map(commandPath)]);
  for (const name of [...notes.keys()].filter((n) => n !== '' && n !== 'Exit codes')) {
    if (!paths.has(name)) throw new Error(`cliGuide.md has notes for "${name}", which is not a ballast command`);
  }
  for (const name of Object.keys(facts)) {
    if (!paths.has(name)) throw new Error(`cliFacts.ts has facts for "${name}", which is not a ballast command`);
  }
  const factsOf = (cmd: Command): CommandFacts => {
    const found = facts[commandPath(cmd)];
    if (!found) {
      throw new Error(
        `ballast ${commandPath(cmd)} has no example and exit codes: add it to packages/ballast/src/docs/cliFacts.ts, then run npm run docs`,
      );
    }
    return found;
  };

  const global = program.options.filter((o) => !o.hidden && o.long !== '--version');
  const index = markdownTable(
    ['command', 'what it does'],
    runnableCommands(program).map((c) => [`[${code(`ballast ${commandPath(c)}`)}](#${anchorOf(commandPath(c))})`, cell(c.description())]),
  );
  const exitTable = markdownTable(
    ['code', 'meaning'],
    Object.entries(EXIT_MEANINGS).map(([exitCode, meaning]) => [exitCode, cell(meaning)]),
  );
  const sections: string[] = [];
  for (const cmd of program.commands) {
    if (cmd.commands.length === 0) {
      sections.push(commandSection(cmd, '##', factsOf(cmd), notes.get(commandPath(cmd))));
      continue;
    }
    const parent = [`## ballast ${commandPath(cmd)}`, sentence(cmd.description())];
    const own = notes.get(commandPath(cmd));
    if (own) parent.push(own);
    sections.push(parent.join('\n\n'));
    for (const sub of cmd.commands) sections.push(commandSection(sub, '###', factsOf(sub), notes.get(commandPath(sub))));
  }

  const notice =
    '<!-- Generated by `npm run docs` from the command definitions (packages/ballast/src/cli/commands/), ' +
    'packages/ballast/src/docs/cliFacts.ts and cliGuide.md: edit those, not this file. -->';
  return [
    notice,
    notes.get('')!, // sectionsOf always sets the preamble
    '## Global options',
    'Given before or after the command.',
    optionsTable(global),
    '## Exit codes',
    exitTable,
    notes.get('Exit codes') ?? '',
    '## Commands',
    index,
    ...sections,
  ]
    .filter((part) => part !== '')
    .join('\n\n')
    .concat('\n');
}
