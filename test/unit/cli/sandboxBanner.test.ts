/**
 * The sandbox banner names the demo config by a path that works from where the operator stands: from the repository
 * root that is packages/ballast/config/demo.yaml, never a bare config/demo.yaml that exists only inside the package.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { demoConfigHint } from '../../../packages/ballast/src/cli/commands/sandbox.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The config path the banner line gives, resolved from `cwd`. */
function configFrom(cwd: string): string {
  const line = demoConfigHint(cwd);
  const config = /--config (\S+)$/.exec(line)?.[1];
  if (!config) throw new Error(`no --config in: ${line}`);
  return path.resolve(cwd, config);
}

describe('ballast sandbox banner', () => {
  it('gives the demo config relative to the repository root when run from there', () => {
    expect(demoConfigHint(ROOT)).toBe(
      'Run Ballast against it with these variables exported: npx ballast run --once --config packages/ballast/config/demo.yaml',
    );
  });

  it('gives a path that exists from the root, the package and an unrelated directory', () => {
    for (const cwd of [ROOT, path.join(ROOT, 'packages/ballast'), path.join(ROOT, 'docs/examples')]) {
      expect(existsSync(configFrom(cwd)), cwd).toBe(true);
      expect(configFrom(cwd)).toBe(path.join(ROOT, 'packages/ballast/config/demo.yaml'));
    }
  });
});
