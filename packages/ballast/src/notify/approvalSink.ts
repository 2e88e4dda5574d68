/**
 * Approval request transitions (src/approvals/events.ts) as notifications: `needed`, `granted`, `rejected`,
 * `expired`, `not_needed` and `executed` become `approval_<kind>` events (docs/notifications.md "Events"), queued in
 * the same store transaction as the transition, once per request and kind. Queuing never throws (src/notify/
 * notify.ts), so a notification can never undo or block a transition.
 */
import type { Logger } from 'pino';
import type { ApprovalEvent, ApprovalEventKind, ApprovalEventSink } from '../approvals/events.ts';
import type { NotifyConfig } from '../config/notifySchema.ts';
import { amountFields, type NotifyEvent, type NotifyEventKind } from './events.ts';
import { notify } from './notify.ts';

const KIND: Readonly<Record<ApprovalEventKind, NotifyEventKind>> = {
  needed: 'approval_needed',
  granted: 'approval_granted',
  rejected: 'approval_rejected',
  expired: 'approval_expired',
  not_needed: 'approval_not_needed',
  executed: 'approval_executed',
};

const SAYS: Readonly<Record<ApprovalEventKind, string>> = {
  needed: 'approval needed',
  granted: 'approval granted',
  rejected: 'approval rejected',
  expired: 'approval expired',
  not_needed: 'approval no longer needed',
  executed: 'approval used: its transfer is signed and written ahead, not yet broadcast',
};

/**
 * The notification of one transition (pure). Subject `approval:<requestId>`: each kind is queued once per request.
 * Payload: requestId, asset, originChain, destinationChain, amountIn (origin base units, decimal string), detail,
 * at (ISO time).
 */
export function approvalNotifyEvent(e: ApprovalEvent): NotifyEvent {
  const route = `${e.asset} ${e.originChain} -> ${e.destinationChain}`;
  const hint = e.kind === 'needed' ? ` (ballast approvals show ${e.requestId})` : '';
  return {
    kind: KIND[e.kind],
    subject: `approval:${e.requestId}`,
    summary: `${SAYS[e.kind]}: request ${e.requestId}, ${route}, ${e.amountIn} base units: ${e.detail}${hint}`,
    payload: {
      requestId: e.requestId,
      asset: e.asset,
      originChain: e.originChain,
      destinationChain: e.destinationChain,
      ...amountFields('amountIn', e.amountIn, undefined),
      detail: e.detail,
      at: new Date(e.atMs).toISOString(),
    },
  };
}

/**
 * The event sink the approval store functions take: queues each transition's notification in the transition's
 * own transaction (nothing without `notify:` in the config).
 */
export function approvalNotifier(deps: {
  now: () => number;
  config: { notify?: NotifyConfig | undefined };
  logger?: Pick<Logger, 'warn'>;
}): ApprovalEventSink {
  return async (db, event) => {
    await notify({ db, now: deps.now, config: deps.config, ...(deps.logger ? { logger: deps.logger } : {}) }, approvalNotifyEvent(event));
  };
}
