/**
 * The `request.status.updated` payload the sandbox posts for a request record (docs/relay-contract.md "Events" → "Webhooks",
 * payload table): the status record of GET /intents/status/v3 plus `depositAddress` (null: the sandbox serves
 * depository deposits only), `requestId`, `referrer` (the quote request's, or null) and `details` (null).
 */
import { REQUEST_STATUS_UPDATED, type WebhookDelivery } from '../api/wire/webhook.ts';
import { statusJson } from '../api/records.ts';
import type { RequestRecord } from '../api/requestStore.ts';

/** `data` of a delivery, captured when the status changed (the record keeps moving afterwards). */
export type WebhookData = Omit<ReturnType<typeof statusJson>, 'status'> & {
  /** The record's status, or the `unknownStatus` fault's value. */
  status: string;
  depositAddress: null;
  referrer: string | null;
};

/**
 * Snapshot of a record's status as an event's `data`.
 *
 * @param unknownStatus the `unknownStatus` fault: reported instead of `pending` / `delayed`, as the status
 *   endpoint does
 */
export function webhookData(record: RequestRecord, unknownStatus: string | null): WebhookData {
  const base = statusJson(record);
  const waitingForFill = record.status === 'pending' || record.status === 'delayed';
  return {
    ...base,
    inTxHashes: [...base.inTxHashes],
    txHashes: [...base.txHashes],
    status: unknownStatus && waitingForFill ? unknownStatus : base.status,
    depositAddress: null,
    referrer: record.order?.referrer ?? null,
  };
}

/**
 * The JSON text of one delivery.
 *
 * @param sentAtMs `timestamp`: when it is sent, ms
 */
export function webhookBody(data: WebhookData, sentAtMs: number): string {
  const delivery: WebhookDelivery<WebhookData> = { event: REQUEST_STATUS_UPDATED, timestamp: sentAtMs, data };
  return JSON.stringify(delivery);
}
