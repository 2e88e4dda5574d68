/**
 * Request statuses the sandbox reports (docs/relay-contract.md "Request status", from
 * https://docs.relay.link/references/api/get-intents-status-v3), in the order a request moves through them.
 * Only `success`, `failure` and `refund` are terminal.
 */

/** Every status the sandbox may give a request record; also the values GET /requests/v3 accepts as `status`. */
export const SANDBOX_REQUEST_STATUSES = [
  'waiting',
  'depositing',
  'pending',
  'submitted',
  'delayed',
  'success',
  'failure',
  'refund',
] as const;

/** One of {@link SANDBOX_REQUEST_STATUSES}. */
export type SandboxRequestStatus = (typeof SANDBOX_REQUEST_STATUSES)[number];

/** True when `value` is one of {@link SANDBOX_REQUEST_STATUSES}. */
export function isSandboxRequestStatus(value: string): value is SandboxRequestStatus {
  return (SANDBOX_REQUEST_STATUSES as readonly string[]).includes(value);
}
