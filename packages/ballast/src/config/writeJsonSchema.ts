/**
 * Writes `config/ballast.schema.json` from the zod schema (`npm run schema`). A unit test fails when the
 * committed file differs from a fresh export, so run this after changing `schema.ts`.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIG_JSON_SCHEMA_PATH, renderConfigJsonSchema } from './jsonSchema.ts';

/**
 * Writes the schema file.
 *
 * @param file destination (default: `config/ballast.schema.json` in this repository)
 * @returns the path written
 */
export function writeJsonSchema(file = resolve(fileURLToPath(new URL('../../', import.meta.url)), CONFIG_JSON_SCHEMA_PATH)): string {
  writeFileSync(file, renderConfigJsonSchema());
  return file;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.stdout.write(`wrote ${writeJsonSchema()}\n`);
}
