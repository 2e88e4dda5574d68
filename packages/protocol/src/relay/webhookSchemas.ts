/**
 * zod schemas of Relay webhook deliveries (docs/relay-contract.md "Events" → "Webhooks", payload table). A delivery stays
 * `unknown` until its signature is verified (src/relay/webhookSignature.ts) and one of these schemas parses it.
 *
 * The envelope is read first: an `event` kind other than `request.status.updated` is acknowledged and ignored,
 * not refused (the service may add kinds). For `request.status.updated` the fields Ballast acts on are
 * required (`data.status`, `data.requestId`, `data.inTxHashes`, `data.txHashes`) along with the table's
 * numbers; the descriptive ones (`depositAddress`, `referrer`, `details`, `failReason`, `refundFailReason`) are
 * type-checked when present, so a payload that leaves one out is still applied. Objects are loose: unknown
 * fields are kept.
 */
import { z } from 'zod';
import { IntentStatusSchema, type IntentStatus } from './schemas.ts';

/** The one event kind docs/relay-contract.md names: emitted on each status change of a request. */
export const REQUEST_STATUS_UPDATED = 'request.status.updated';

/** Any delivery: only `event` is read, to route it. */
export const WebhookEnvelopeSchema = z.looseObject({ event: z.string().min(1) });

/**
 * `data.depositAddress` (docs/relay-contract.md "Webhooks": address, depositAddressType `open` | `strict`, depositor,
 * depositTxHash — the origin-chain hash of the depositor's transfer into the deposit address).
 */
export const WebhookDepositAddressSchema = z.looseObject({
  address: z.string().min(1),
  depositAddressType: z.enum(['open', 'strict']),
  depositor: z.string().nullable(),
  depositTxHash: z.string().nullable(),
});

/**
 * `request.status.updated` payload. Times are milliseconds (`timestamp`: when the event was sent;
 * `data.updatedAt`: when the status changed). `data.status` is any non-empty string: values outside
 * docs/relay-contract.md "Request status" are kept and treated as not final, as on the status endpoint.
 */
export const RequestStatusUpdatedSchema = z.looseObject({
  event: z.literal(REQUEST_STATUS_UPDATED),
  timestamp: z.number().int().nonnegative(),
  data: z.looseObject({
    status: z.string().min(1),
    inTxHashes: z.array(z.string()),
    txHashes: z.array(z.string()),
    updatedAt: z.number().int().nonnegative(),
    originChainId: z.number().int(),
    destinationChainId: z.number().int(),
    depositAddress: WebhookDepositAddressSchema.nullable().optional(),
    requestId: z.string().min(1),
    referrer: z.string().nullable().optional(),
    details: z.looseObject({}).nullable().optional(),
    failReason: z.string().optional(),
    refundFailReason: z.string().optional(),
  }),
});
/** A parsed `request.status.updated` delivery. */
export type RequestStatusUpdated = z.infer<typeof RequestStatusUpdatedSchema>;

/**
 * The event's `data` as a status record (docs/relay-contract.md "Webhooks": `details`, `failReason`, `refundFailReason`
 * "mirror those of GET /intents/status/v3"), so an event goes through the same ownership check and store path as a
 * polled status.
 *
 * @param event a parsed delivery
 * @returns the status record (parsed again by {@link IntentStatusSchema}, unknown fields kept)
 */
export function statusFromEvent(event: RequestStatusUpdated): IntentStatus {
  return IntentStatusSchema.parse(event.data);
}
