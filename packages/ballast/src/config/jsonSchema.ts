/**
 * JSON Schema (draft 2020-12) of the configuration file, generated from the zod schema with `z.toJSONSchema`
 * (input side: fields with defaults are optional). Editors use it for completion and inline errors; checks
 * that need more than one field (references, bands, keys) are enforced only by `loadConfig`.
 *
 * URL fields lose their `format: uri` in the export: they usually hold a `${VAR}` reference, which an editor
 * would otherwise flag; `loadConfig` checks the resolved URL.
 */
import { z } from 'zod';
import { ConfigSchema } from './schema.ts';

/** Repository path of the committed schema file, relative to the repository root. */
export const CONFIG_JSON_SCHEMA_PATH = 'config/ballast.schema.json';

/**
 * Builds the JSON Schema document.
 *
 * @returns the schema as a plain JSON object
 */
export function buildConfigJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ConfigSchema, {
    io: 'input',
    target: 'draft-2020-12',
    override: (ctx) => {
      if (ctx.jsonSchema.format === 'uri') delete ctx.jsonSchema.format;
    },
  }) as Record<string, unknown>; // toJSONSchema returns a JSON object typed as JSONSchema.BaseSchema
}

/**
 * Serialises the schema exactly as it is committed (2-space indent, trailing newline).
 *
 * @returns file contents
 */
export function renderConfigJsonSchema(): string {
  return `${JSON.stringify(buildConfigJsonSchema(), null, 2)}\n`;
}
