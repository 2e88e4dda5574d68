/**
 * The generated reference pages and their sources: docs/configuration.md from the config's JSON Schema and
 * configurationGuide.md, docs/cli.md from the `ballast` program, cliFacts.ts and cliGuide.md. `npm run docs`
 * writes them (writeDocs.ts); a test compares the committed pages with a fresh rendering. Reads the two guides
 * beside this file; writes nothing.
 */
import { readFileSync } from 'node:fs';
import { buildProgram } from '../cli/main.ts';
import { COMMAND_NAMES } from '../cli/commandTable.ts';
import { buildConfigJsonSchema } from '../config/jsonSchema.ts';
import { CLI_FACTS } from './cliFacts.ts';
import { renderCliPage } from './cliPage.ts';
import { renderConfigurationPage, type JsonSchemaNode } from './configurationPage.ts';

/** One generated page: its path from the repository root and its full text. */
export interface GeneratedPage {
  path: string;
  text: string;
}

function guide(name: string): string {
  return readFileSync(new URL(`./${name}`, import.meta.url), 'utf8');
}

/**
 * Renders every generated page.
 *
 * @returns docs/configuration.md and docs/cli.md, paths relative to the repository root
 * @throws Error naming the command or section to fix when cliFacts.ts or cliGuide.md disagree with the commands
 */
export async function generatedPages(): Promise<GeneratedPage[]> {
  const program = await buildProgram(() => {}, COMMAND_NAMES);
  // toJSONSchema's output is plain JSON whose nodes have the fields JsonSchemaNode names (or lack them).
  const schema = buildConfigJsonSchema() as JsonSchemaNode;
  return [
    { path: 'docs/configuration.md', text: renderConfigurationPage(schema, guide('configurationGuide.md')) },
    { path: 'docs/cli.md', text: renderCliPage(program, CLI_FACTS, guide('cliGuide.md')) },
  ];
}
