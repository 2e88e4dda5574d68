/**
 * `ballast schema [--out DIR]`: the JSON Schema of the config file (src/config/jsonSchema.ts, the same document as
 * packages/ballast/config/ballast.schema.json), printed or written as `DIR/ballast.schema.json`. The example configs
 * start with `# yaml-language-server: $schema=./ballast.schema.json`, so after copying one to /etc/ballast,
 * `ballast schema --out /etc/ballast` puts the schema where that hint points and an editor completes and checks the
 * file there too. Needs no config. Exit 0 written, 2 when DIR is not a writable directory.
 */
import type { Command } from 'commander';
import { CliError, EXIT_USAGE } from '../exitCodes.ts';

/** Name of the written file: the one the example configs' `$schema` hint names. */
export const SCHEMA_FILE_NAME = 'ballast.schema.json';

/** Registers the command. */
export function registerSchema(program: Command, out: (s: string) => void): void {
  program
    .command('schema')
    .description("print the config file's JSON Schema, or write it beside a config (editors read it through the $schema hint)")
    .option('--out <dir>', `write <dir>/${SCHEMA_FILE_NAME} (the file the example configs' $schema hint names) instead of printing`)
    .action(async (flags: { out?: string }) => {
      const [{ renderConfigJsonSchema }, { statSync, writeFileSync }, path] = await Promise.all([
        import('../../config/jsonSchema.ts'),
        import('node:fs'),
        import('node:path'),
      ]);
      const text = renderConfigJsonSchema();
      if (flags.out === undefined) {
        out(text.trimEnd());
        return;
      }
      const notDirectory = `--out ${flags.out}: not a directory; give the existing directory that holds the config`;
      let isDirectory: boolean;
      try {
        isDirectory = statSync(flags.out).isDirectory();
      } catch (error) {
        throw new CliError(notDirectory, EXIT_USAGE, { cause: error });
      }
      if (!isDirectory) throw new CliError(notDirectory, EXIT_USAGE);
      const file = path.join(flags.out, SCHEMA_FILE_NAME);
      try {
        writeFileSync(file, text, { mode: 0o644 });
      } catch (error) {
        throw new CliError(`--out ${flags.out}: cannot write ${file}: ${(error as Error).message}`, EXIT_USAGE, { cause: error });
      }
      out(`wrote ${file}`);
    });
}
