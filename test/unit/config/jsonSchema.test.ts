import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_JSON_SCHEMA_PATH, buildConfigJsonSchema, renderConfigJsonSchema } from '../../../packages/ballast/src/config/jsonSchema.ts';

const committed = readFileSync(new URL(`../../../packages/ballast/${CONFIG_JSON_SCHEMA_PATH}`, import.meta.url), 'utf8');

describe('config/ballast.schema.json', () => {
  it('equals a fresh export of the zod schema (run `npm run schema` after changing src/config/schema.ts)', () => {
    expect(committed).toBe(renderConfigJsonSchema());
  });

  it('is strict and describes the sections', () => {
    const schema = buildConfigJsonSchema() as {
      additionalProperties: unknown;
      required: string[];
      properties: Record<string, { additionalProperties?: unknown }>;
    };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required.sort()).toEqual(['assets', 'chains', 'policy', 'wallets']);
    expect(schema.properties.policy?.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties).sort()).toEqual(
      [
        'assets',
        'chains',
        'ha',
        'log',
        'metrics',
        'monitorOnly',
        'needs',
        'notify',
        'policy',
        'prices',
        'relay',
        'schedule',
        'store',
        'tracking',
        'wallets',
        'webhooks',
        'withdrawals',
      ].sort(),
    );
  });
});
