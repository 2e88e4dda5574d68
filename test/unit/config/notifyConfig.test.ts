/**
 * The `notify:` section (src/config/notifySchema.ts): absent means off; sinks load with defaults and their URL and
 * secret hidden from spread, JSON and error messages; unknown events are refused with the list of known ones; a
 * webhook needs a secret and a Slack sink takes none; a PagerDuty sink needs a 32-character routing key, defaults
 * its URL to the Events API v2 endpoint and its events to the ones that page, and takes no daily digest.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import { SINK_EVENTS } from '../../../packages/ballast/src/notify/events.ts';
import { ENV, baseConfig, issueLines, loadErrorIn, tempDirPerTest } from './helpers.ts';

const tmp = tempDirPerTest();
const SECRET = 'whsec-0123456789abcdef';
const SLACK = 'https://hooks.slack.com/services/T000/B000/XXXXSECRET';
const ROUTING_KEY = 'R0UTINGKEY0123456789abcdef012345';
const NOTIFY_ENV = { ...ENV, HOOK_SECRET: SECRET, SLACK_URL: SLACK, PD_KEY: ROUTING_KEY };

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
    for (const name of SINK_EVENTS) expect(lines[0]).toContain(name);
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

  it('loads a pagerduty sink: default URL and events, routing key hidden', () => {
    const notify = {
      sinks: {
        pager: { kind: 'pagerduty', routingKey: '${PD_KEY}' },
        eu: {
          kind: 'pagerduty',
          routingKey: '${PD_KEY}',
          url: 'https://events.eu.pagerduty.com/v2/enqueue',
          source: 'treasury-prod',
          events: ['*'],
        },
      },
    };
    const config = loadConfig(tmp.write({ ...baseConfig(), notify }), NOTIFY_ENV);
    const [pager, eu] = config.notify!.sinks;
    expect(pager).toEqual({
      name: 'pager',
      kind: 'pagerduty',
      source: 'ballast',
      events: ['transfer_failed', 'transfer_stalled', 'route_paused', 'kill_switch_engaged'],
      minSeverity: 'info',
    });
    expect(pager!.url).toBe('https://events.pagerduty.com/v2/enqueue');
    expect(pager!.routingKey).toBe(ROUTING_KEY);
    expect(eu).toMatchObject({ source: 'treasury-prod', events: '*' });
    expect(eu!.url).toBe('https://events.eu.pagerduty.com/v2/enqueue');
    expect(JSON.stringify(config.notify)).not.toContain(ROUTING_KEY);
    expect(config.warnings).toEqual([]);
  });

  it('refuses a pagerduty sink without a routing key or with a short one, fields of other kinds, and a resolving event in events', () => {
    const notify = {
      sinks: {
        none: { kind: 'pagerduty' },
        short: { kind: 'pagerduty', routingKey: 'abc', secret: '${HOOK_SECRET}' },
        chat: { kind: 'slack', url: '${SLACK_URL}', routingKey: '${PD_KEY}', source: 'x' },
        listed: { kind: 'slack', url: '${SLACK_URL}', events: ['transfer_unstalled'] },
        hook: { kind: 'webhook', secret: '${HOOK_SECRET}' },
      },
    };
    const err = loadErrorIn(tmp, { ...baseConfig(), notify }, NOTIFY_ENV);
    const text = issueLines(err).join('\n');
    expect(text).toMatch(/notify\.sinks\.none\.routingKey: a pagerduty sink needs routingKey/);
    expect(text).toMatch(/notify\.sinks\.short\.routingKey: routingKey must be 32 characters/);
    expect(text).toMatch(/notify\.sinks\.short\.secret: a pagerduty sink is not signed/);
    expect(text).toMatch(/notify\.sinks\.chat\.routingKey: routingKey is for a pagerduty sink only/);
    expect(text).toMatch(/notify\.sinks\.chat\.source: source is for a pagerduty sink only/);
    expect(text).toMatch(
      /notify\.sinks\.listed\.events\[0\]: transfer_unstalled is not listed: it goes to every sink that was sent transfer_stalled/,
    );
    expect(text).toMatch(/notify\.sinks\.hook\.url: a webhook sink needs the url/);
    expect(err.message).not.toContain(ROUTING_KEY);
  });

  it('warns about a routing key written literally', () => {
    const notify = { sinks: { pager: { kind: 'pagerduty', routingKey: ROUTING_KEY } } };
    const config = loadConfig(tmp.write({ ...baseConfig(), notify }), ENV);
    expect(config.warnings).toEqual(['notify.sinks.pager.routingKey is written literally in the config file; prefer ${ENV_VAR}']);
  });

  it('loads a daily digest on a webhook or Slack sink, UTC by default, and refuses a bad one or one on PagerDuty', () => {
    const ok = {
      sinks: {
        chat: { kind: 'slack', url: '${SLACK_URL}', digest: { at: '09:00' } },
        ops: {
          kind: 'webhook',
          url: 'https://ops.example/hook',
          secret: '${HOOK_SECRET}',
          digest: { at: '18:30', timezone: 'Europe/Paris' },
        },
      },
    };
    const [chat, ops] = loadConfig(tmp.write({ ...baseConfig(), notify: ok }), NOTIFY_ENV).notify!.sinks;
    expect(chat!.digest).toEqual({ at: '09:00', timezone: 'UTC' });
    expect(ops!.digest).toEqual({ at: '18:30', timezone: 'Europe/Paris' });

    const bad = {
      sinks: {
        pager: { kind: 'pagerduty', routingKey: '${PD_KEY}', digest: { at: '09:00' } },
        late: { kind: 'slack', url: '${SLACK_URL}', digest: { at: '24:00', timezone: 'Mars/Olympus' } },
        listed: { kind: 'slack', url: '${SLACK_URL}', events: ['daily_digest'] },
      },
    };
    const text = issueLines(loadErrorIn(tmp, { ...baseConfig(), notify: bad }, NOTIFY_ENV)).join('\n');
    expect(text).toMatch(/notify\.sinks\.pager\.digest: a pagerduty sink opens incidents and sends no digest/);
    expect(text).toMatch(/notify\.sinks\.late\.digest\.at: at must be a time of day as HH:MM/);
    expect(text).toMatch(/notify\.sinks\.late\.digest\.timezone: timezone must be an IANA time zone name/);
    expect(text).toMatch(/notify\.sinks\.listed\.events\[0\]: daily_digest is not listed: set digest/);
  });
});
