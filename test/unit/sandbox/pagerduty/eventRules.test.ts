/**
 * The Events API v2 rules of the local PagerDuty endpoint (packages/sandbox/src/pagerduty/eventRules.ts): a valid
 * trigger and resolve pass; every broken rule is named, as PagerDuty's `errors` lines.
 */
import { describe, expect, it } from 'vitest';
import { checkEvent } from '../../../../packages/sandbox/src/pagerduty/eventRules.ts';

const KEY = 'R0UTINGKEY0123456789abcdef012345';
const valid = {
  routing_key: KEY,
  event_action: 'trigger',
  dedup_key: 'srv01/mysql',
  payload: {
    summary: 'DISK at 99% on machine prod-datapipe03.example.com',
    timestamp: '2015-07-17T08:42:58.315+0000',
    severity: 'critical',
    source: 'prod-datapipe03.example.com',
    component: 'mysql',
    group: 'prod-datapipe',
    class: 'disk',
    custom_details: { 'free space': '1%' },
  },
};

describe('local PagerDuty event rules', () => {
  it('accepts the documented example trigger and a resolve of it', () => {
    expect(checkEvent(valid)).toEqual({
      ok: true,
      event: { routingKey: KEY, action: 'trigger', dedupKey: 'srv01/mysql', payload: valid.payload },
    });
    expect(checkEvent({ routing_key: KEY, event_action: 'resolve', dedup_key: 'srv01/mysql' })).toMatchObject({
      ok: true,
      event: { action: 'resolve', payload: null },
    });
    expect(checkEvent({ ...valid, payload: { ...valid.payload, summary: 's'.repeat(1024) } })).toMatchObject({ ok: true });
    expect(checkEvent({ ...valid, payload: { ...valid.payload, summary: 's'.repeat(1025) } })).toEqual({
      ok: false,
      errors: ["'payload.summary' is too long (at most 1024 characters)"],
    });
  });

  it('names every broken rule', () => {
    const checked = checkEvent({
      routing_key: 'short',
      event_action: 'trigger',
      payload: { summary: ' ', severity: 'fatal', timestamp: 'yesterday', custom_details: [1] },
    });
    expect(checked.ok).toBe(false);
    expect(checked.ok ? [] : checked.errors).toEqual([
      "Length of 'routing_key' is incorrect (should be 32 characters)",
      "'payload.summary' is missing or blank",
      "'payload.source' is missing or blank",
      "'payload.severity' is invalid (must be one of: critical, error, warning, info)",
      "'payload.timestamp' must be an ISO 8601 date-time",
      "'payload.custom_details' must be an object",
    ]);
  });

  it('asks a resolve for its dedup_key and refuses an unknown action', () => {
    expect(checkEvent({ routing_key: KEY, event_action: 'resolve' })).toEqual({ ok: false, errors: ["'dedup_key' is missing or blank"] });
    expect(checkEvent({ ...valid, event_action: 'escalate' })).toMatchObject({ ok: false });
    expect(checkEvent({ ...valid, dedup_key: 'd'.repeat(256) })).toMatchObject({ ok: false });
    expect(checkEvent({ ...valid, payload: undefined })).toEqual({ ok: false, errors: ["'payload' is missing or not an object"] });
    expect(
      checkEvent({ routing_key: KEY, event_action: 'trigger', payload: { summary: 's', source: 'x', severity: 'info' } }),
    ).toMatchObject({
      ok: true,
      event: { dedupKey: undefined },
    });
  });
});
