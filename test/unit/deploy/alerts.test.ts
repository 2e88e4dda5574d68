/**
 * Prometheus deployment files: alerts.yml passes `promtool check rules` and its unit tests
 * (`promtool test rules alerts.test.yml`, where every alert is seen firing and not firing), names only metrics
 * the Ballast registry defines, and carries severity and annotations; prometheus.yml passes
 * `promtool check config` and scrapes the daemon and the Pushgateway.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createMetrics } from '../../../packages/ballast/src/metrics/metrics.ts';
import { ROOT } from '../../e2e/helpers/cli.ts';
import { tempDir } from '../../e2e/helpers/sandboxBallast.ts';
import { promqlMetricNames, registryMetricNames } from './metricNames.ts';

const DIR = path.join(ROOT, 'deploy/prometheus');
const tmp = tempDir('ballast-alerts-');
afterAll(() => tmp.cleanup());

interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface RuleTest {
  alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[];
}

const alerts = (parse(readFileSync(path.join(DIR, 'alerts.yml'), 'utf8')) as { groups: { rules: AlertRule[] }[] }).groups.flatMap(
  (g) => g.rules,
);

function promtool(...args: string[]): string {
  return execFileSync('promtool', args, { encoding: 'utf8', cwd: ROOT });
}

describe('deploy/prometheus/alerts.yml', () => {
  it('passes promtool check rules', () => {
    expect(promtool('check', 'rules', 'deploy/prometheus/alerts.yml')).toContain(`SUCCESS: ${alerts.length} rules found`);
  });

  it('passes its unit tests (promtool test rules alerts.test.yml)', () => {
    expect(promtool('test', 'rules', 'deploy/prometheus/alerts.test.yml')).toContain('SUCCESS');
  });

  it('fails a unit test whose expected annotation is wrong (the tests can fail)', () => {
    const text = readFileSync(path.join(DIR, 'alerts.test.yml'), 'utf8')
      .replace('rule_files:\n  - alerts.yml', `rule_files:\n  - ${path.join(DIR, 'alerts.yml')}`)
      .replace('is 2500 USDC short', 'is 2501 USDC short');
    const file = path.join(tmp.dir, 'wrong.test.yml');
    writeFileSync(file, text);
    expect(() => execFileSync('promtool', ['test', 'rules', file], { stdio: 'pipe' })).toThrow();
  });

  it('has the alerts operators need, each with severity, summary, description and a firing and a quiet test', () => {
    expect(alerts.map((a) => a.alert)).toEqual(
      expect.arrayContaining([
        'BallastDown',
        'BallastNoSuccessfulCycle',
        'BallastBalanceBelowMin',
        'BallastTransfersStalled',
        'BallastRefusalSpike',
        'BallastBudgetNearlyExhausted',
        'BallastRelayApiErrors',
        'BallastGasLow',
        'BallastKillSwitchEngaged',
        'BallastRelayEndpointSunset',
      ]),
    );
    const tests = (parse(readFileSync(path.join(DIR, 'alerts.test.yml'), 'utf8')) as { tests: RuleTest[] }).tests.flatMap(
      (t) => t.alert_rule_test ?? [],
    );
    for (const a of alerts) {
      expect(['critical', 'warning', 'info'], a.alert).toContain(a.labels?.severity);
      expect(a.annotations?.summary, a.alert).toBeTruthy();
      expect(a.annotations?.description, a.alert).toBeTruthy();
      expect(a.for, a.alert).toMatch(/^[0-9]+[smh]$/);
      const mine = tests.filter((t) => t.alertname === a.alert);
      expect(
        mine.some((t) => (t.exp_alerts ?? []).length > 0),
        `${a.alert} seen firing`,
      ).toBe(true);
      expect(
        mine.some((t) => (t.exp_alerts ?? []).length === 0),
        `${a.alert} seen quiet`,
      ).toBe(true);
    }
  });

  it('names only metrics that the Ballast registry defines (or Prometheus itself: up)', async () => {
    const known = new Set([...(await registryMetricNames(createMetrics().registry)), 'up']);
    const unknown = alerts.flatMap((a) =>
      promqlMetricNames(a.expr)
        .filter((n) => !known.has(n))
        .map((n) => `${a.alert}: ${n}`),
    );
    expect(unknown).toEqual([]);
  });
});

describe('deploy/prometheus/prometheus.yml', () => {
  it('passes promtool check config and scrapes the daemon and the Pushgateway (honor_labels)', () => {
    expect(promtool('check', 'config', 'deploy/prometheus/prometheus.yml')).toContain('is valid prometheus config file syntax');
    const config = parse(readFileSync(path.join(DIR, 'prometheus.yml'), 'utf8')) as {
      rule_files: string[];
      scrape_configs: { job_name: string; honor_labels?: boolean; static_configs: { targets: string[] }[] }[];
    };
    expect(config.rule_files).toEqual(['alerts.yml']);
    const jobs = Object.fromEntries(config.scrape_configs.map((s) => [s.job_name, s]));
    expect(jobs.ballast?.static_configs[0]?.targets).toEqual(['ballast:9464']);
    expect(jobs.pushgateway).toMatchObject({ honor_labels: true, static_configs: [{ targets: ['pushgateway:9091'] }] });
  });
});
