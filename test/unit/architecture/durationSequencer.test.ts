/**
 * The order the tiered suite's files start in (test/helpers/durationSequencer.ts): tier by tier, costliest tier first,
 * the longest files first within a tier, by the results cache's durations where it has them and by the estimates
 * otherwise. A worker that changes tier loads its modules again, so files of different tiers must not interleave even
 * when the cache says a cheap tier's file took longer than a costly tier's.
 */
import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import { durationSequencer } from '../../helpers/durationSequencer.ts';

const ROOT = '/repo';
const ESTIMATES = {
  byProject: { model: 120_000, e2e: 20_000, integration: 2_000, pure: 300 },
  slow: [{ pattern: /^test\/e2e\/faults\/crash-/, ms: 120_000 }],
};

/** What the sequencer reads of vitest: the root and the results cache (durations and sizes by `<project>:<path>`). */
function sequencerWith(durations: Record<string, number>, sizes: Record<string, number> = {}) {
  const ctx = {
    config: { root: ROOT },
    cache: {
      getFileTestResults: (key: string) => (key in durations ? { duration: durations[key], failed: false } : undefined),
      getFileStats: (key: string) => (key in sizes ? { size: sizes[key] } : undefined),
    },
  } as unknown as Vitest;
  const Sequencer = durationSequencer(ESTIMATES);
  return new Sequencer(ctx);
}

const spec = (project: string, file: string) =>
  ({ moduleId: `${ROOT}/${file}`, project: { name: project } }) as unknown as TestSpecification;
const order = (specs: TestSpecification[]) => specs.map((s) => `${s.project.name}:${s.moduleId.slice(ROOT.length + 1)}`);

const FILES = [
  spec('pure', 'test/unit/a.test.ts'),
  spec('e2e', 'test/e2e/short.test.ts'),
  spec('integration', 'test/unit/store/b.test.ts'),
  spec('model', 'test/model/m.test.ts'),
  spec('e2e', 'test/e2e/faults/crash-x.test.ts'),
  spec('pure', 'test/unit/c.test.ts'),
];

describe('durationSequencer', () => {
  it('keeps each tier together, costliest first, even when cached durations would interleave them', async () => {
    const sequencer = sequencerWith({
      'pure:test/unit/a.test.ts': 40_000, // a slow pure file: still after every e2e and integration file
      'pure:test/unit/c.test.ts': 10,
      'e2e:test/e2e/short.test.ts': 1_000,
      'e2e:test/e2e/faults/crash-x.test.ts': 50_000,
      'integration:test/unit/store/b.test.ts': 60_000,
      'model:test/model/m.test.ts': 5_000,
    });
    expect(order(await sequencer.sort(FILES))).toEqual([
      'model:test/model/m.test.ts',
      'e2e:test/e2e/faults/crash-x.test.ts',
      'e2e:test/e2e/short.test.ts',
      'integration:test/unit/store/b.test.ts',
      'pure:test/unit/a.test.ts',
      'pure:test/unit/c.test.ts',
    ]);
  });

  it('orders a fresh clone by the estimates: slow files first within their tier, then larger files', async () => {
    const sequencer = sequencerWith({}, { 'pure:test/unit/c.test.ts': 9_000, 'pure:test/unit/a.test.ts': 100 });
    expect(order(await sequencer.sort(FILES))).toEqual([
      'model:test/model/m.test.ts',
      'e2e:test/e2e/faults/crash-x.test.ts',
      'e2e:test/e2e/short.test.ts',
      'integration:test/unit/store/b.test.ts',
      'pure:test/unit/c.test.ts',
      'pure:test/unit/a.test.ts',
    ]);
  });
});
