/**
 * docs/needs.openapi.yaml describes the needs API as built (src/needs/api.ts): OpenAPI 3.1, the operations it serves,
 * every `$ref` resolving, the request body's fields and the error codes those of the code, and its examples
 * accepted by the API's own body schema.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { NEEDS_PATH, NeedBodySchema } from '../../../packages/ballast/src/needs/api.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const doc = parse(readFileSync(path.join(root, 'docs/needs.openapi.yaml'), 'utf8')) as Record<string, any>;
const apiSource = ['packages/ballast/src/needs/api.ts', 'packages/ballast/src/store/needs.ts', 'packages/ballast/src/needs/resolveNeed.ts']
  .map((f) => readFileSync(path.join(root, f), 'utf8'))
  .join('\n');

/** Every `$ref` value in a tree. */
function refs(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(refs);
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([k, v]) => (k === '$ref' && typeof v === 'string' ? [v] : refs(v)));
}

describe('docs/needs.openapi.yaml', () => {
  it('is OpenAPI 3.1 with exactly the served operations, each needing the bearer token', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.security).toEqual([{ bearer: [] }]);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    const ops = Object.entries(doc.paths as Record<string, object>).flatMap(([p, item]) => Object.keys(item).map((m) => `${m} ${p}`));
    expect(ops.sort()).toEqual([`delete ${NEEDS_PATH}/{id}`, `get ${NEEDS_PATH}`, `post ${NEEDS_PATH}`]);
    expect(Object.keys(doc.paths[NEEDS_PATH].post.responses).sort()).toEqual([
      '200',
      '201',
      '400',
      '401',
      '409',
      '413',
      '415',
      '500',
      '503',
    ]);
    expect(Object.keys(doc.paths[`${NEEDS_PATH}/{id}`].delete.responses).sort()).toEqual(['200', '401', '404', '409', '500']);
  });

  it('resolves every $ref', () => {
    const all = refs(doc);
    expect(all.length).toBeGreaterThan(10);
    for (const ref of all) {
      const target = ref
        .replace(/^#\//, '')
        .split('/')
        .reduce<any>((node, key) => node?.[key], doc);
      expect(target, ref).toBeDefined();
    }
  });

  it('lists the body fields and the error codes of the code, and its example body is accepted', () => {
    const body = doc.components.schemas.NewNeed;
    expect(Object.keys(body.properties).sort()).toEqual(Object.keys(NeedBodySchema.shape).sort());
    expect(body.additionalProperties).toBe(false);
    const example = doc.paths[NEEDS_PATH].post.requestBody.content['application/json'].example;
    expect(NeedBodySchema.safeParse(example).success).toBe(true);
    const inCode = [...new Set([...apiSource.matchAll(/'(NEED_[A-Z_]+)'/g)].map((m) => m[1]!))].filter((c) => c !== 'NEED_LISTEN_FAILED');
    expect([...doc.components.schemas.Error.properties.error.properties.code.enum].sort()).toEqual(inCode.sort());
  });
});
