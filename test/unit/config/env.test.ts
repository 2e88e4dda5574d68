import { describe, expect, it } from 'vitest';
import { protectEnvRefs, resolveEnvRefs, restoreEnvRefs } from '../../../packages/ballast/src/config/env.ts';
import type { ConfigIssue } from '../../../packages/ballast/src/config/errors.ts';

describe('resolveEnvRefs', () => {
  it('resolves strings at any depth, leaves keys and non-strings alone, records referencing paths', () => {
    const issues: ConfigIssue[] = [];
    const r = resolveEnvRefs({ '${K}': 1, a: ['x-${A}-${B}', 7, true, null], b: { c: '$${A} and ${A}' } }, { A: 'one', B: 'two' }, issues);
    expect(issues).toEqual([]);
    expect(r.value).toEqual({ '${K}': 1, a: ['x-one-two', 7, true, null], b: { c: '${A} and one' } });
    expect([...r.referencedPaths].sort()).toEqual(['a[0]', 'b.c']);
    expect([...r.substituted].sort()).toEqual(['one', 'two']);
  });

  it('reports each missing variable with its path', () => {
    const issues: ConfigIssue[] = [];
    resolveEnvRefs({ wallets: { w: { privateKey: '${KEY_A}' } }, list: ['${KEY_B}'] }, {}, issues);
    expect(issues).toEqual([
      { path: 'wallets.w.privateKey', message: 'environment variable KEY_A is not set; export it before starting Ballast' },
      { path: 'list[0]', message: 'environment variable KEY_B is not set; export it before starting Ballast' },
    ]);
  });

  it('rejects a reference with an invalid name', () => {
    const issues: ConfigIssue[] = [];
    resolveEnvRefs({ a: '${1BAD}' }, { '1BAD': 'x' }, issues);
    expect(issues.map((i) => i.path)).toEqual(['a']);
  });
});

describe('protectEnvRefs / restoreEnvRefs', () => {
  it('keeps the text length, leaves escapes alone, and round-trips through a parsed tree', () => {
    const text = 'a: { url: ${BASE_RPC} }\nb: "$${LIT}"\n';
    const protectedText = protectEnvRefs(text);
    expect(protectedText).toHaveLength(text.length);
    expect(protectedText).not.toContain('${BASE_RPC}');
    expect(protectedText).toContain('$${LIT}');
    expect(restoreEnvRefs({ k: ['x $\u27E6BASE_RPC\u27E7 y'], '$\u27E6K\u27E7': 1 })).toEqual({ k: ['x ${BASE_RPC} y'], '${K}': 1 });
  });
});
