/**
 * The 409 answer of POST /withdrawals/request when a job is already in flight for the same (chain, owner,
 * currency) (docs/relay-contract.md "Errors": `WITHDRAWAL_IN_PROGRESS`, body includes `existingJobId`), surfaced as its own
 * type so a caller can resume that job instead of starting another.
 */
import { RelayApiError } from './errors.ts';
import { WithdrawalInProgressBodySchema } from './withdrawalSchemas.ts';

/** A 409 `WITHDRAWAL_IN_PROGRESS`; `code` stays `RELAY_HTTP_409`, `existingJobId` names the job in flight. */
export class RelayWithdrawalInProgressError extends RelayApiError {
  readonly existingJobId: string;

  constructor(original: RelayApiError, existingJobId: string) {
    super({
      endpoint: original.endpoint,
      httpStatus: original.httpStatus,
      body: original.body,
      bodyText: '',
      retryAfterMs: original.retryAfterMs,
    });
    this.existingJobId = existingJobId;
  }
}

/**
 * The job id a 409 `WITHDRAWAL_IN_PROGRESS` names, or undefined for any other error.
 *
 * @param error anything a Relay call threw
 */
export function existingJobIdOf(error: unknown): string | undefined {
  if (error instanceof RelayWithdrawalInProgressError) return error.existingJobId;
  if (!(error instanceof RelayApiError) || error.httpStatus !== 409) return undefined;
  const parsed = WithdrawalInProgressBodySchema.safeParse(error.body);
  return parsed.success ? parsed.data.existingJobId : undefined;
}
