/**
 * Writes the registry's text exposition for node_exporter's textfile collector (`--collector.textfile.directory`),
 * atomically: into a temporary file in the same directory, then renamed over the target, so the collector never
 * reads a half-written file. The name must end in `.prom` for the collector to pick it up.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Registry } from 'prom-client';
import { BallastError } from '@ballast/protocol/core/errors.ts';

/** The textfile could not be written. Code `METRICS_TEXTFILE_FAILED`. */
export class MetricsTextfileError extends BallastError {
  readonly code = 'METRICS_TEXTFILE_FAILED' as const;
}

/**
 * Writes `registry` to `path` (atomic rename; mode 0644).
 *
 * @throws MetricsTextfileError naming the path and the cause (missing directory, no permission, not `.prom`)
 */
export async function writeMetricsTextfile(registry: Registry, path: string): Promise<void> {
  if (!path.endsWith('.prom')) {
    throw new MetricsTextfileError(
      `--metrics-textfile ${path}: the name must end in .prom (node_exporter's textfile collector reads only *.prom)`,
    );
  }
  const text = await registry.metrics();
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    writeFileSync(tmp, text, { mode: 0o644 });
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    const cause = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
    throw new MetricsTextfileError(`--metrics-textfile ${path}: cannot write (${cause}); check that the directory exists and is writable`, {
      cause: error,
    });
  }
}
