import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../../packages/ballast/src/metrics/metrics.ts';
import { ballastOnly, exportRunMetrics } from '../../../packages/ballast/src/metrics/runExport.ts';
import { MetricsPushError, pushMetrics } from '../../../packages/ballast/src/metrics/push.ts';
import { MetricsTextfileError, writeMetricsTextfile } from '../../../packages/ballast/src/metrics/textfile.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'ballast-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

describe('one-shot metrics export', () => {
  it('exports only the ballast_* metrics', async () => {
    const m = createMetrics();
    m.cyclesTotal.inc({ outcome: 'ok' });
    const text = await ballastOnly(m.registry).metrics();
    expect(text).toContain('ballast_cycles_total{outcome="ok"} 1');
    expect(text).not.toMatch(/^process_|^nodejs_/m);
    expect(await m.registry.metrics()).toMatch(/^process_cpu_seconds_total/m); // the source registry is untouched
  });

  it('writes the textfile atomically, replacing the previous one, and promtool accepts it', async () => {
    const m = createMetrics();
    const file = path.join(dir, 'ballast.prom');
    await writeMetricsTextfile(ballastOnly(m.registry), file);
    m.cyclesTotal.inc({ outcome: 'error' });
    await writeMetricsTextfile(ballastOnly(m.registry), file);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('ballast_cycles_total{outcome="error"} 1');
    expect(statSync(file).mode & 0o777).toBe(0o644);
    expect(readdirSync(dir)).toEqual(['ballast.prom']); // no temporary file left
    const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(`${r.stdout}${r.stderr}`).toBe('');
  });

  it('refuses a textfile name the collector would ignore, and a missing directory, naming the path', async () => {
    const m = createMetrics();
    await expect(writeMetricsTextfile(m.registry, path.join(dir, 'x.txt'))).rejects.toThrow(/x\.txt: the name must end in \.prom/);
    const err = await writeMetricsTextfile(m.registry, path.join(dir, 'nope', 'x.prom')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MetricsTextfileError);
    expect((err as MetricsTextfileError).code).toBe('METRICS_TEXTFILE_FAILED');
    expect((err as Error).message).toContain('cannot write (ENOENT)');
  });

  it('refuses a non-http Pushgateway URL and reports an unreachable one', async () => {
    const m = createMetrics();
    await expect(pushMetrics(m.registry, { url: 'ftp://x' })).rejects.toThrow(/not an http\(s\) URL/);
    await expect(pushMetrics(m.registry, { url: 'nope' })).rejects.toBeInstanceOf(MetricsPushError);
    const port = await closedPort();
    await expect(pushMetrics(m.registry, { url: `http://127.0.0.1:${port}` })).rejects.toThrow(
      `pushing metrics to http://127.0.0.1:${port} failed`,
    );
  });

  it('turns each failed export into one warning line and never throws', async () => {
    const lines: string[] = [];
    const failed = await exportRunMetrics(
      createMetrics().registry,
      { pushgateway: 'ftp://x', metricsTextfile: path.join(dir, 'nope', 'y.prom') },
      (l) => lines.push(l),
    );
    expect(failed).toEqual(['pushgateway', 'textfile']);
    expect(lines).toHaveLength(2);
    expect(lines.every((l) => l.startsWith('ballast: warning: ') && l.endsWith('(exit code unchanged)'))).toBe(true);
    expect(await exportRunMetrics(createMetrics().registry, {}, (l) => lines.push(l))).toEqual([]);
  });
});
