/**
 * The `notify:` section (src/config/notifySchema.ts): absent means off; sinks load with defaults and their URL and
 * secret hidden from spread, JSON and error messages; unknown events are refused with the list of known ones; a
 * webhook needs a secret and a Slack sink takes none.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import { NOTIFY_EVENTS } from '../../../packages/ballast/src/notify/events.ts';
import { ENV, baseConfig, issueLines, loadErrorIn, tempDirPerTest } from './helpers.ts';

const tmp = tempDirPerTest();
const SECRET = 'whsec-0123456789abcdef';
const SLACK = 'https://hooks.slack.com/services/T000/B000/XXXXSECRET';
const NOTIFY_ENV = { ...ENV, HOOK_SECRET: SECRET, SLACK_URL: SLACK };

describe('config notify:', () => {
  it('is absent unless configured', () => {
    expect(loadConfig(tmp.write(baseConfig()), ENV).notify).toBeUndefined();
  });

  it('loads sinks with defaults; url and secret are not enumerable', () => {
    const notify = {
      sinks: {
        ops: { kind: 'webhook', url: 'https://ops.example/hook', secret: '${HOOK_SECRET}', events: ['transfer_failed', 'route_paused'] },
        chat: { kind: 'slack', url: '${SLACK_URL}', minSeverity: 'warning' },
      },
      maxAttempts: 3,
    };
    const config = loadConfig(tmp.write({ ...baseConfig(), notify }), NOTIFY_ENV);
    const [ops, chat] = config.notify!.sinks;
    expect(ops).toEqual({ name: 'ops', kind: 'webhook', events: ['transfer_failed', 'route_paused'], minSeverity: 'info' });
    expect(ops!.secret).toBe(SECRET);
    expect(chat!.url).toBe(SLACK);
    expect(chat!.events).toBe('*');
    expect(config.notify).toMatchObject({ maxAttempts: 3, timeoutMs: 5000, retryBaseSec: 30, retryMaxSec: 3600, batchSize: 20 });
    const shown = JSON.stringify(config.notify);
    expect(shown).not.toContain(SECRET);
    expect(shown).not.toContain('XXXXSECRET');
    expect(config.warnings).toEqual([]);
  });

  it('refuses an unknown event naming the field and listing the known ones', () => {
    const notify = { sinks: { ops: { kind: 'slack', url: '${SLACK_URL}', events: ['transfer_failed', 'transfer_exploded'] } } };
    const lines = issueLines(loadErrorIn(tmp, { ...baseConfig(), notify }, NOTIFY_ENV));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^notify\.sinks\.ops\.events\[1\]: unknown event/);
    for (const name of NOTIFY_EVENTS) expect(lines[0]).toContain(name);
  });

  it('asks a webhook for its secret, refuses one on a Slack sink, and never prints the URL or secret', () => {
    const notify = {
      sinks: {
        ops: { kind: 'webhook', url: 'https://ops.example/hook' },
        chat: { kind: 'slack', url: '${SLACK_URL}', secret: '${HOOK_SECRET}' },
        bad: { kind: 'email', url: '${SLACK_URL}', minSeverity: 'loud' },
      },
    };
    const err = loadErrorIn(tmp, { ...baseConfig(), notify }, NOTIFY_ENV);
    const text = issueLines(err).join('\n');
    expect(text).toMatch(/notify\.sinks\.ops\.secret: a webhook sink signs every delivery/);
    expect(text).toMatch(/notify\.sinks\.chat\.secret: a slack sink is not signed/);
    expect(text).toMatch(/notify\.sinks\.bad\.kind: kind must be webhook/);
    expect(text).toMatch(/notify\.sinks\.bad\.minSeverity: minSeverity must be info, warning or critical/);
    expect(err.message).not.toContain(SECRET);
    expect(err.message).not.toContain('XXXXSECRET');
  });

  it('warns about a secret written literally', () => {
    const notify = { sinks: { ops: { kind: 'webhook', url: 'https://ops.example/hook', secret: SECRET } } };
    const config = loadConfig(tmp.write({ ...baseConfig(), notify }), ENV);
    expect(config.warnings).toEqual(['notify.sinks.ops.secret is written literally in the config file; prefer ${ENV_VAR}']);
  });
});
