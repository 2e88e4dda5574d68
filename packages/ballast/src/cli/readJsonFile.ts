/**
 * Reads and validates a JSON input file for the CLI. Any failure is a usage error (exit 2) naming the file,
 * the field and the fix.
 */
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { CliError, EXIT_USAGE } from './exitCodes.ts';

/**
 * @param file path given on the command line
 * @param schema zod schema the content must satisfy
 * @param what human name of the document, e.g. "GET /chains response"
 * @throws CliError (exit 2) when the file is missing, not JSON, or does not match the schema
 */
export function readJsonFile<S extends z.ZodType>(file: string, schema: S, what: string): z.infer<S> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? 'error'}); check the path`, EXIT_USAGE);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${file}: not valid JSON (${(error as Error).message})`, EXIT_USAGE);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`)
      .join('\n');
    throw new CliError(`${file}: not a valid ${what}:\n${issues}`, EXIT_USAGE);
  }
  return parsed.data;
}
