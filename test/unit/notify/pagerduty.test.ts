/**
 * The PagerDuty mapping (src/notify/pagerduty.ts, sinks.ts `sinkRequest`): a trigger per opening event with its
 * severity mapped, the route as component and the asset as group, the payload in custom_details and the summary
 * cut to PagerDuty's 1024 characters; a resolving event is a bare resolve under the opening event's dedup_key.
 * Every event built passes the rules the local PagerDuty endpoint applies (packages/sandbox/src/pagerduty/eventRules.ts).
 */
import { describe, expect, it } from 'vitest';
import type { LoadedNotifySink } from '../../../packages/ballast/src/config/notifySchema.ts';
import type { DeliveryContent } from '../../../packages/ballast/src/notify/format.ts';
import {
  PAGERDUTY_EVENTS_URL,
  pagerDutyAction,
  pagerDutyDedupKey,
  pagerDutyEvent,
  pagerDutySeverity,
} from '../../../packages/ballast/src/notify/pagerduty.ts';
import { sinkRequest } from '../../../packages/ballast/src/notify/sinks.ts';
import { checkEvent } from '../../../packages/sandbox/src/pagerduty/eventRules.ts';

const KEY = 'R0UTINGKEY0123456789abcdef012345';
const AT = Date.UTC(2026, 10, 29, 10, 0, 0);

const stalled: DeliveryContent = {
  dedupeKey: 'transfer_stalled:transfer:42',
  event: 'transfer_stalled',
  severity: 'warning',
  summary: 'USDC base -> arbitrum stalled: deposited for over 1800 s',
  payload: { transferId: 42, asset: 'USDC', originChain: 'base', destinationChain: 'arbitrum', amountIn: '2500000', status: 'deposited' },
  createdAtMs: AT,
};

const unstalled: DeliveryContent = {
  dedupeKey: 'transfer_unstalled:transfer_stalled:transfer:42',
  event: 'transfer_unstalled',
  severity: 'info',
  summary: 'USDC base -> arbitrum no longer stalled: transfer 42 filled',
  payload: { transferId: 42, status: 'success', resolves: 'transfer_stalled:transfer:42' },
  createdAtMs: AT + 60_000,
};

describe('pagerduty mapping', () => {
  it('triggers an opening event with the documented payload', () => {
    const event = pagerDutyEvent(stalled, { routingKey: KEY, source: 'treasury-prod' });
    expect(event).toEqual({
      routing_key: KEY,
      event_action: 'trigger',
      dedup_key: 'transfer_stalled:transfer:42',
      client: 'Ballast',
      payload: {
        summary: stalled.summary,
        source: 'treasury-prod',
        severity: 'warning',
        timestamp: '2026-11-29T10:00:00.000Z',
        component: 'base -> arbitrum',
        group: 'USDC',
        class: 'transfer_stalled',
        custom_details: { event: 'transfer_stalled', id: 'transfer_stalled:transfer:42', ...stalled.payload },
      },
    });
    expect(checkEvent(JSON.parse(JSON.stringify(event)))).toMatchObject({ ok: true });
  });

  it('resolves under the dedup_key of the event it ends, with no payload', () => {
    const event = pagerDutyEvent(unstalled, { routingKey: KEY, source: 'ballast' });
    expect(event).toEqual({ routing_key: KEY, event_action: 'resolve', dedup_key: 'transfer_stalled:transfer:42' });
    expect(pagerDutyDedupKey(unstalled)).toBe(pagerDutyDedupKey(stalled));
    // Without `resolves` in the payload the key still comes from the resolving event's own dedupe key.
    expect(pagerDutyDedupKey({ ...unstalled, payload: {} })).toBe('transfer_stalled:transfer:42');
    expect(
      pagerDutyDedupKey({ event: 'route_resumed', dedupeKey: 'route_resumed:route_paused:route:USDC:a:b:failure:7', payload: {} }),
    ).toBe('route_paused:route:USDC:a:b:failure:7');
    expect(checkEvent(event)).toMatchObject({ ok: true });
  });

  it('maps severities and actions', () => {
    expect(pagerDutySeverity('route_paused', 'critical')).toBe('critical');
    expect(pagerDutySeverity('kill_switch_engaged', 'critical')).toBe('critical');
    expect(pagerDutySeverity('transfer_failed', 'critical')).toBe('error');
    expect(pagerDutySeverity('transfer_stalled', 'warning')).toBe('warning');
    expect(pagerDutySeverity('leader_changed', 'info')).toBe('info');
    expect(pagerDutyAction('transfer_stalled')).toBe('trigger');
    expect(pagerDutyAction('kill_switch_engaged')).toBe('trigger');
    expect(pagerDutyAction('transfer_unstalled')).toBe('resolve');
    expect(pagerDutyAction('route_resumed')).toBe('resolve');
  });

  it('cuts a long summary to 1024 characters and leaves out component and group when the event names no route', () => {
    const kill: DeliveryContent = {
      ...stalled,
      dedupeKey: 'kill_switch_engaged:kill_switch:2026-11-29',
      event: 'kill_switch_engaged',
      severity: 'critical',
      summary: 'k'.repeat(1500),
      payload: { reason: 'kill_switch' },
    };
    const event = pagerDutyEvent(kill, { routingKey: KEY, source: 'ballast' });
    expect(event.payload!.summary).toHaveLength(1024);
    expect(event.payload!.summary.endsWith('…')).toBe(true);
    expect(event.payload).not.toHaveProperty('component');
    expect(event.payload).not.toHaveProperty('group');
    expect(checkEvent(event)).toMatchObject({ ok: true });
    expect(checkEvent({ ...event, payload: { ...event.payload, summary: 'k'.repeat(1025) } })).toMatchObject({ ok: false });
  });

  it('builds the request of a pagerduty sink: JSON to its URL, a 400 not retried, the routing key only in the body', () => {
    const sink = { name: 'pager', kind: 'pagerduty', events: '*', minSeverity: 'info', source: 'ballast' } as LoadedNotifySink;
    Object.defineProperty(sink, 'url', { value: PAGERDUTY_EVENTS_URL });
    Object.defineProperty(sink, 'routingKey', { value: KEY });
    const req = sinkRequest(sink, stalled, AT);
    expect(req.url).toBe('https://events.pagerduty.com/v2/enqueue');
    expect(req.noRetryStatuses).toEqual([400]);
    expect(JSON.stringify(req.headers)).not.toContain(KEY);
    expect(JSON.parse(req.body)).toMatchObject({ routing_key: KEY, event_action: 'trigger', dedup_key: 'transfer_stalled:transfer:42' });
  });
});
