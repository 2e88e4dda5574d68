/**
 * The `ha:` section (src/config/haSchema.ts): defaults, a PostgreSQL store taken as written, timing the elector
 * would refuse reported on the key at fault, and a warning when it is set for a SQLite store.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import { ENV, baseConfig, issueLines, loadErrorIn, tempDirPerTest } from './helpers.ts';

const tmp = tempDirPerTest();
const PG = 'postgres://ballast:pw@db.internal:5432/ballast';

describe('config ha:', () => {
  it('defaults to lease "ballast" and a 15 s ttl; a postgres:// store is kept as written', () => {
    const config = loadConfig(tmp.write({ ...baseConfig(), store: '${STORE}' }), { ...ENV, STORE: PG });
    expect(config.store).toBe(PG);
    expect(config.ha).toEqual({ lease: 'ballast', ttlMs: 15_000 });
    expect(config.warnings).toEqual([]);
  });

  it('takes lease, instance and timing', () => {
    const ha = { lease: 'treasury-eu', instance: 'pod-7f9c', ttlMs: 9000, renewEveryMs: 2000, marginMs: 1500 };
    expect(loadConfig(tmp.write({ ...baseConfig(), store: PG, ha }), ENV).ha).toEqual(ha);
  });

  it('reports timing the elector would refuse on the key at fault', () => {
    const tooSlow = issueLines(loadErrorIn(tmp, { ...baseConfig(), store: PG, ha: { ttlMs: 3000, renewEveryMs: 2500 } }, ENV));
    expect(tooSlow).toEqual([expect.stringMatching(/^ha\.renewEveryMs: must be below ttlMs − marginMs \(2400\)/)]);
    const bad = issueLines(loadErrorIn(tmp, { ...baseConfig(), store: PG, ha: { ttlMs: 50, lease: 'no spaces', extra: 1 } }, ENV));
    expect(bad.join('\n')).toMatch(/ha\.ttlMs/);
    expect(bad.join('\n')).toMatch(/ha\.lease/);
    expect(bad.join('\n')).toMatch(/ha.*extra/);
  });

  it('warns that ha: does nothing for a SQLite store', () => {
    const config = loadConfig(tmp.write({ ...baseConfig(), ha: { ttlMs: 15_000 } }), ENV);
    expect(config.warnings).toEqual([expect.stringContaining('ha: is set but store: is a SQLite file')]);
  });
});
