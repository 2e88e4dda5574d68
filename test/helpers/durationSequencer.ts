/**
 * vitest sequencer for the tiered suite (vitest.config.ts): all tiers share one pool of workers, the tiers run one
 * after the other, costliest first (by their estimate: model, e2e, integration, pure), and within a tier the files
 * that take longest start first, so a long file never starts last and leaves one worker idle at the end
 * (longest-processing-time-first scheduling).
 *
 * A tier is a vitest project with its own module graph per worker (`isolate: false`): a worker that moves to
 * another tier loads viem, web3.js and src/ again. Sorting every file by duration across tiers made the workers
 * switch tiers hundreds of times once the results cache held real durations (import time summed over files
 * ~60 s -> ~260 s, the run ~2 min longer than on a fresh clone); in tier order they switch three times.
 *
 * vitest's own BaseSequencer sorts by project name (e2e, integration, model, pure), which would start the model
 * proofs only after every e2e and integration file. The expected duration of a file is:
 *
 * - the duration of the file's last run in vitest's results cache (`<project>:<path>`, else `:<path>` from a run
 *   before the tiers existed), when there is one;
 * - else (a fresh clone: CI) the tier's estimate, raised for files listed as slow, and larger files first
 *   among equal estimates.
 *
 * Sharding is BaseSequencer's.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Estimates used when the results cache has no duration for a file. */
export interface DurationEstimates {
  /** Estimated milliseconds per project name (a project missing here counts 0). */
  readonly byProject: Readonly<Record<string, number>>;
  /** Milliseconds for files whose path (relative to the root) matches one of these expressions. */
  readonly slow: ReadonlyArray<{ readonly pattern: RegExp; readonly ms: number }>;
}

/** Returns a sequencer class (vitest constructs it) using `estimates` for files without a cached duration. */
export function durationSequencer(estimates: DurationEstimates): typeof BaseSequencer {
  return class DurationSequencer extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
      const { cache, config } = this.ctx;
      const expected = new Map<TestSpecification, { ms: number; size: number }>();
      for (const spec of files) {
        const rel = relative(config.root, spec.moduleId).split('\\').join('/');
        const name = spec.project.name;
        const cached = cache.getFileTestResults(`${name}:${rel}`)?.duration ?? cache.getFileTestResults(`:${rel}`)?.duration;
        const slow = estimates.slow.find((s) => s.pattern.test(rel))?.ms;
        const ms = cached ?? slow ?? estimates.byProject[name] ?? 0;
        const size = cache.getFileStats(`${name}:${rel}`)?.size ?? 0;
        expected.set(spec, { ms, size });
      }
      const key = (s: TestSpecification): { ms: number; size: number } => expected.get(s) ?? { ms: 0, size: 0 };
      const tier = (s: TestSpecification): number => estimates.byProject[s.project.name] ?? 0;
      return [...files].sort((a, b) => tier(b) - tier(a) || key(b).ms - key(a).ms || key(b).size - key(a).size);
    }
  };
}
