/**
 * docs/configuration.md and docs/cli.md are generated (packages/ballast/src/docs/): the committed pages must equal a
 * fresh rendering from today's config schema and command definitions, and the renderers must say what they are
 * given. A flag, description or schema field changed without `npm run docs` fails here.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildConfigJsonSchema } from '../../../packages/ballast/src/config/jsonSchema.ts';
import { CLI_FACTS } from '../../../packages/ballast/src/docs/cliFacts.ts';
import { commandPath, renderCliPage, runnableCommands, synopsis } from '../../../packages/ballast/src/docs/cliPage.ts';
import { renderConfigurationReference, type JsonSchemaNode } from '../../../packages/ballast/src/docs/configurationPage.ts';
import { generatedPages } from '../../../packages/ballast/src/docs/generatedPages.ts';
import { buildProgram } from '../../../packages/ballast/src/cli/main.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('generated reference pages', () => {
  it('the committed docs/configuration.md and docs/cli.md equal a fresh rendering (run npm run docs)', async () => {
    const pages = await generatedPages();
    expect(pages.map((p) => p.path)).toEqual(['docs/configuration.md', 'docs/cli.md']);
    for (const page of pages) {
      const committed = readFileSync(path.join(ROOT, page.path), 'utf8');
      // One line names the page and the fix; the diff below it shows what changed.
      expect(committed, `${page.path} is out of date: run npm run docs and commit the result`).toBe(page.text);
    }
  });

  it('docs/configuration.md has a row for every field of the schema, with its default', async () => {
    const page = (await generatedPages())[0]!.text;
    const schema = buildConfigJsonSchema() as JsonSchemaNode;
    for (const key of Object.keys(schema.properties ?? {})) expect(page).toContain(`\n### ${key}\n`);
    expect(page).toContain('| `relay.quotesPerMinute` | `integer 1–6000` | `50` |');
    expect(page).toContain('| `policy.maxFees.totalBps` | `integer 0–10000` | — |');
    expect(page).toContain('#### `chains.<chain>` with `vm: bvm`');
    expect(page).toContain('| `assets.<asset>[].chain` | `string` | **required** | name under chains: |');
    expect(page).toContain('| `policy` | `object` | **required** | spending rules |');
  });

  it('the configuration renderer lists variants, maps and lists of a schema it has never seen', () => {
    const schema: JsonSchemaNode = {
      type: 'object',
      required: ['pets'],
      properties: {
        pets: {
          type: 'object',
          description: 'pets by name',
          additionalProperties: {
            oneOf: [
              {
                type: 'object',
                description: 'a cat',
                properties: { kind: { const: 'cat' }, lives: { type: 'integer', minimum: 1, maximum: 9, default: 9 } },
              },
              { type: 'object', properties: { kind: { const: 'dog' }, tricks: { type: 'array', items: { type: 'string' } } } },
            ],
          },
        },
      },
    };
    const text = renderConfigurationReference(schema);
    expect(text).toContain('| `pets` | `map of object by kind: "cat" \\| "dog"` | **required** | pets by name |');
    expect(text).toContain('#### `pets.<name>` with `kind: cat`\n\na cat');
    expect(text).toContain('| `pets.<name>.lives` | `integer 1–9` | `9` |');
    expect(text).toContain('| `pets.<name>.tricks` | `list of string` | — |');
    expect(text).toContain('| `pets.<name>.kind` | `"dog"` | — | always "dog": selects this kind |');
  });

  it('docs/cli.md documents every command with its options, an example and exit codes', async () => {
    const program = await buildProgram(() => {});
    const page = (await generatedPages())[1]!.text;
    const commands = runnableCommands(program);
    expect(commands.length).toBeGreaterThan(25);
    for (const cmd of commands) {
      const name = commandPath(cmd);
      expect(CLI_FACTS[name], `ballast ${name}: add its example and exit codes to packages/ballast/src/docs/cliFacts.ts`).toBeDefined();
      expect(page).toContain('```sh\n' + synopsis(cmd) + '\n```');
      // Table cells escape `|` (`--store <path\|url>`).
      for (const option of cmd.options)
        expect(page, `ballast ${name} ${option.flags}`).toContain(`\`${option.flags.replace(/\|/g, '\\|')}\``);
    }
    expect(synopsis(program.commands.find((c) => c.name() === 'transfer')!)).toBe(
      'ballast transfer --from <chain:asset> --to <chain:asset> --amount <whole units> [options]',
    );
    expect(page).toContain('| `--push-job <name>` | job grouping label of the push | `ballast` |');
  });

  it('the CLI renderer refuses facts or notes for a command that does not exist, and a command without facts', () => {
    const program = new Command('ballast');
    program.command('hello').description('say hello').option('--loud', 'shout');
    const facts = { hello: { example: 'ballast hello --loud', exits: { 0: 'said' } } };
    const page = renderCliPage(program, facts, '# CLI\n\n## hello\n\nSays hello.');
    expect(page).toContain('## ballast hello\n\nSay hello.\n\n```sh\nballast hello [options]\n```\n\nSays hello.');
    expect(page).toContain('| 0 | said |');
    expect(() => renderCliPage(program, facts, '# CLI\n\n## goodbye\n\nno such command')).toThrow(
      /"goodbye", which is not a ballast command/,
    );
    expect(() => renderCliPage(program, { ...facts, bye: facts.hello }, '# CLI')).toThrow(/cliFacts.ts has facts for "bye"/);
    expect(() => renderCliPage(program, {}, '# CLI')).toThrow(
      /ballast hello has no example and exit codes: add it to .*cliFacts.ts, then run npm run docs/,
    );
  });
});
