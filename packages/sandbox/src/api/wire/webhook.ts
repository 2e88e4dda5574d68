/**
 * Webhook event kinds the sandbox sends (docs/relay-contract.md "Events" → "Webhooks";
 * https://docs.relay.link/references/api/api_guides/webhooks).
 */

/** The event posted on every status change of a request. */
export const REQUEST_STATUS_UPDATED = 'request.status.updated';

/** One delivery: `timestamp` is when it is sent (ms); `data` the request's status record at the change. */
export type WebhookDelivery<D> = {
  event: typeof REQUEST_STATUS_UPDATED;
  timestamp: number;
  data: D;
};
