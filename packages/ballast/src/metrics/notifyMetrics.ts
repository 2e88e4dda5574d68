/**
 * Metrics of notification delivery (docs/notifications.md "Delivery"). Registered by `createMetrics`
 * (src/metrics/metrics.ts); they carry samples only when `notify:` is configured.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

/** Values of the `outcome` label of `ballast_notifications_total`. */
export const NOTIFICATION_OUTCOMES = ['delivered', 'retry', 'failed', 'dropped'] as const;

/** One of {@link NOTIFICATION_OUTCOMES}. */
export type NotificationOutcome = (typeof NOTIFICATION_OUTCOMES)[number];

/** The notification metrics; part of `BallastMetrics`. */
export interface NotifyMetrics {
  /**
   * `ballast_notifications_total{sink, event, outcome}`: delivery attempts by sink (config name), event name and
   * outcome: delivered, retry (failed, tried again later), failed (given up after `notify.maxAttempts`), dropped
   * (deleted undelivered to keep the queue within `notify.maxRows`).
   */
  notificationsTotal: Counter<'sink' | 'event' | 'outcome'>;
  /** `ballast_notifications_pending`: deliveries queued and not yet delivered or given up. */
  notificationsPending: Gauge;
}

/** Creates the notification metrics in `registry`. */
export function createNotifyMetrics(registry: Registry): NotifyMetrics {
  const registers = [registry];
  return {
    notificationsTotal: new Counter({
      name: 'ballast_notifications_total',
      help: 'Notification delivery attempts by sink, event and outcome (delivered, retry, failed, dropped).',
      labelNames: ['sink', 'event', 'outcome'],
      registers,
    }),
    notificationsPending: new Gauge({
      name: 'ballast_notifications_pending',
      help: 'Notification deliveries queued and not yet delivered or given up.',
      registers,
    }),
  };
}
