/**
 * The withdrawal calls of the Relay client (docs/relay-contract.md "Withdrawal endpoints"): POST
 * /withdrawals/attest-deposit, POST /withdrawals/request (prepare, then execute) and GET /withdrawals/status.
 *
 * These calls are sent once each, without the client's automatic retries: docs/relay-contract.md "Limits" gives them their
 * own pacing (attest 503 = wait and retry; status about every 5 s and about 15 s after a 429) and execute is not
 * idempotent (a second execute answers 409 `WITHDRAWAL_IN_PROGRESS`). The withdrawal flow (src/withdraw/) decides when
 * to call again. Every body is validated by the schemas of `withdrawalSchemas.ts`.
 */
import { parseWith, RelayApiError, RelayRequestError, requireText } from './errors.ts';
import type { HttpCall } from './http.ts';
import { RelayWithdrawalInProgressError, existingJobIdOf } from './withdrawalErrors.ts';
import {
  AttestResponseSchema,
  ExecuteResponseSchema,
  PrepareResponseSchema,
  WithdrawalStatusSchema,
  type AttestResponse,
  type ExecuteResponse,
  type PrepareResponse,
  type WithdrawalExecuteFields,
  type WithdrawalRequestFields,
  type WithdrawalStatus,
} from './withdrawalSchemas.ts';

/** The withdrawal part of the Relay client. Every method throws the `Relay*Error` families of `errors.ts`. */
export interface RelayWithdrawalApi {
  /**
   * POST /withdrawals/attest-deposit: credits a recoverable deposit to the hub balance (idempotent).
   *
   * @param body `chainId` the numeric chain id of the deposit chain, `transactionId` the deposit transaction
   * @throws RelayApiError 503 (not finalized yet: wait and retry), 400 (terminal for that transaction)
   */
  attestDeposit(body: { chainId: number; transactionId: string }): Promise<AttestResponse>;
  /**
   * POST /withdrawals/request without a signature: the nonce to sign and the amount to withdraw.
   *
   * @throws RelayApiError 400 (Bitcoin/Lighter owner, amount above the hub balance, a bad field)
   */
  prepareWithdrawal(fields: WithdrawalRequestFields): Promise<PrepareResponse>;
  /**
   * POST /withdrawals/request with nonce and signature: starts the withdrawal job.
   *
   * @throws RelayWithdrawalInProgressError on 409 `WITHDRAWAL_IN_PROGRESS` (its `existingJobId` names the job
   *   in flight); RelayApiError 400 for a bad signature or a stale nonce
   */
  executeWithdrawal(fields: WithdrawalExecuteFields): Promise<ExecuteResponse>;
  /**
   * GET /withdrawals/status?id=: the job's status, `reason` on failure, `transaction` when ready.
   *
   * @throws RelayApiError 429 when polled too fast (wait about 15 s)
   */
  withdrawalStatus(jobId: string): Promise<WithdrawalStatus>;
}

/**
 * Builds the withdrawal calls over one send function (the client's rate-limited single exchange).
 *
 * @param sendOnce sends one HTTP exchange and returns the JSON body, or throws a Relay error
 */
export function createWithdrawalApi(sendOnce: (call: HttpCall) => Promise<unknown>): RelayWithdrawalApi {
  return {
    async attestDeposit(body) {
      const endpoint = 'POST /withdrawals/attest-deposit';
      if (!Number.isSafeInteger(body.chainId) || body.chainId <= 0) {
        throw new RelayRequestError(endpoint, 'chainId', `must be the numeric chain id of the deposit chain, got ${body.chainId}`);
      }
      requireText(endpoint, 'transactionId', body.transactionId);
      const raw = await sendOnce({
        method: 'POST',
        endpoint,
        pathAndQuery: '/withdrawals/attest-deposit',
        body: { chainId: body.chainId, transactionId: body.transactionId },
      });
      return parseWith(AttestResponseSchema, endpoint, raw);
    },

    async prepareWithdrawal(fields) {
      const endpoint = 'POST /withdrawals/request';
      const body = requestBody(endpoint, fields);
      const raw = await sendOnce({ method: 'POST', endpoint, pathAndQuery: '/withdrawals/request', body });
      return parseWith(PrepareResponseSchema, endpoint, raw);
    },

    async executeWithdrawal(fields) {
      const endpoint = 'POST /withdrawals/request';
      const body: Record<string, unknown> = requestBody(endpoint, fields);
      requireText(endpoint, 'nonce', fields.nonce);
      if (!/^0x[0-9a-fA-F]+$/.test(fields.signature)) {
        throw new RelayRequestError(endpoint, 'signature', 'must be 0x-prefixed hex (docs/relay-contract.md "Withdrawal endpoints")');
      }
      body.nonce = fields.nonce;
      if (fields.additionalData !== undefined) body.additionalData = fields.additionalData;
      body.signature = fields.signature;
      let raw: unknown;
      try {
        raw = await sendOnce({ method: 'POST', endpoint, pathAndQuery: '/withdrawals/request', body });
      } catch (error) {
        const existing = existingJobIdOf(error);
        if (existing !== undefined && error instanceof RelayApiError) throw new RelayWithdrawalInProgressError(error, existing);
        throw error;
      }
      return parseWith(ExecuteResponseSchema, endpoint, raw);
    },

    async withdrawalStatus(jobId) {
      const endpoint = 'GET /withdrawals/status';
      requireText(endpoint, 'id', jobId);
      const raw = await sendOnce({
        method: 'GET',
        endpoint,
        pathAndQuery: `/withdrawals/status?${new URLSearchParams({ id: jobId }).toString()}`,
      });
      return parseWith(WithdrawalStatusSchema, endpoint, raw);
    },
  };
}

/** The shared body of prepare and execute, each field checked non-empty. */
function requestBody(endpoint: string, f: WithdrawalRequestFields): Record<string, unknown> {
  for (const field of ['chainId', 'currency', 'ownerChainId', 'owner', 'recipient'] as const) requireText(endpoint, field, f[field]);
  if (!/^[0-9]+$/.test(f.amount) || /^0+$/.test(f.amount)) {
    throw new RelayRequestError(endpoint, 'amount', `must be a positive integer string in base units, got ${JSON.stringify(f.amount)}`);
  }
  return {
    chainId: f.chainId,
    currency: f.currency,
    amount: f.amount,
    ownerChainId: f.ownerChainId,
    owner: f.owner,
    recipient: f.recipient,
  };
}
