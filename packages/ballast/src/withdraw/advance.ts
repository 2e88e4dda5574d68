/**
 * Drives one withdrawal from its stored state as far as it can go in one pass (docs/relay-contract.md "Withdrawal
 * endpoints", "Withdrawal job status"; states in src/store/withdrawals.ts):
 *
 * 1. `attesting`: POST /withdrawals/attest-deposit; 503 = not finalized yet, wait and retry; 400 = terminal.
 * 2. `attested`: POST /withdrawals/request (prepare) → nonce and amount; sign the digest
 *    (src/protocol/withdrawalDigest.ts) through the owner's chain adapter; write nonce and signature ahead.
 * 3. `executing`: POST /withdrawals/request (execute) → job id. A 409 `WITHDRAWAL_IN_PROGRESS` names the job
 *    already in flight for this owner and currency: it is adopted (after a crash it is the job our own execute
 *    started) unless another of our withdrawals holds it. A 400 (stale nonce, bad signature) starts again from
 *    prepare.
 * 4. `processing`: GET /withdrawals/status about every `pollMs`, `rateLimitedPollMs` after a 429; `ready` →
 *    src/withdraw/readyTx.ts; `executed` → done; `expired`/`failed` → again from prepare, at most `maxAttempts`
 *    jobs in all, then give up with the reason.
 * 5. `sending`: the verified ready transaction is on its way (src/withdraw/readyTx.ts).
 *
 * Prepare is asked for what is still open of the deposit (`amount - receivedAmount`) and may offer less. A job
 * that executed for less than that leaves the rest in the hub: what it paid is recorded, the remainder is logged at
 * error level and withdrawn by a new attempt from prepare (src/store/withdrawals.ts `recordPartialReturn`); the
 * withdrawal is `executed`, and its transfer `withdrawn`, only once the whole deposit is back. While part came back,
 * a prepare that offers nothing or refuses (400) leaves the remainder open for the next pass instead of failing.
 *
 * The pass ends when the withdrawal is `executed` or `failed`, when `maxWaitSec` has passed, after
 * `transientRetries` transient errors in a row, or on the abort signal; an unfinished withdrawal is resumed from
 * its stored state by the next pass (a cycle or `ballast withdraw`).
 */
import { withdrawalSignerOf } from '../chains/capabilities.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { withdrawalDigest } from '@ballast/protocol/protocol/withdrawalDigest.ts';
import { RelayApiError } from '../relay/errors.ts';
import { existingJobIdOf } from '../relay/withdrawalErrors.ts';
import { remainingToWithdraw, settleJob } from '../store/withdrawalAmounts.ts';
import {
  completeWithdrawal,
  failWithdrawal,
  getWithdrawal,
  getWithdrawalByJob,
  markAttested,
  recordJob,
  recordPartialReturn,
  recordSigned,
  restartWithdrawal,
  setJobStatus,
  type WithdrawalRow,
} from '../store/withdrawals.ts';
import type { WithdrawalDeps } from './deps.ts';
import { notify } from '../notify/notify.ts';
import { withdrawalEvent } from '../notify/eventOf.ts';
import { reasonText } from './errors.ts';
import { onReady, onSending } from './readyTx.ts';
import type { Step } from './step.ts';

/** How one pass over a withdrawal ended. */
export interface AdvanceResult {
  withdrawal: WithdrawalRow;
  /** Why the pass stopped before a final state (absent when final). */
  pausedBecause?: string;
}

/**
 * Advances the withdrawal `id` until it is final or the pass must end (see the module doc).
 *
 * @returns a Promise of the withdrawal as stored at the end
 * @throws store errors (a guarded transition found another writer) and programming errors; Relay and chain errors
 *   are handled as described
 */
export async function advanceWithdrawal(deps: WithdrawalDeps, id: number): Promise<AdvanceResult> {
  const deadlineMs = deps.now() + deps.config.maxWaitSec * 1000;
  let transientInARow = 0;
  for (;;) {
    const w = await getWithdrawal(deps.db, id);
    if (!w) throw new Error(`withdrawal ${id} vanished from the store`);
    if (w.state === 'executed' || w.state === 'failed') return { withdrawal: w };
    if (deps.signal?.aborted) return { withdrawal: w, pausedBecause: 'shutdown requested' };
    const remainingMs = deadlineMs - deps.now();
    if (remainingMs <= 0)
      return { withdrawal: w, pausedBecause: `still ${w.state} after withdrawals.maxWaitSec (${deps.config.maxWaitSec} s)` };
    const log = deps.logger.child({ withdrawalId: w.id, transferId: w.transferId, requestId: w.requestId, jobId: w.jobId ?? undefined });
    const step = await stepOf(deps, w, remainingMs);
    switch (step.next) {
      case 'now':
        transientInARow = 0;
        continue;
      case 'poll':
        transientInARow = 0;
        if (step.ms >= remainingMs) return { withdrawal: w, pausedBecause: `still ${w.state}; polled again by the next pass` };
        await deps.sleep(step.ms);
        continue;
      case 'transient':
        transientInARow += 1;
        log.warn({ state: w.state, attempt: transientInARow, why: step.why }, 'withdrawal step failed; waiting before trying again');
        if (transientInARow > deps.config.transientRetries || deps.config.pollMs >= remainingMs) {
          return { withdrawal: w, pausedBecause: `${step.why}; tried again by the next pass` };
        }
        await deps.sleep(deps.config.pollMs);
        continue;
      case 'stop':
        log.info({ state: w.state, why: step.why }, 'withdrawal waits for the next pass');
        return { withdrawal: w, pausedBecause: step.why };
      case 'fail':
        await failWithdrawal(deps.db, w.id, { reason: step.reason, nowMs: deps.now() });
        deps.metrics?.withdrawalsTotal.inc({ outcome: step.outcome });
        log.error({ reason: step.reason }, 'withdrawal gave up; the deposit needs an operator');
        await notify({ ...deps, config: { notify: deps.notifyConfig } }, withdrawalEvent(w, 'failed', step.reason));
        continue;
      case 'complete': {
        const settled = settleJob(w.amount, w.receivedAmount, w.preparedAmount);
        if (settled.remainder > 0n) {
          await recordPartialReturn(deps.db, w.id, { detail: step.detail, readyTxFee: step.readyTxFee, nowMs: deps.now() });
          deps.metrics?.withdrawalRestartsTotal.inc({ reason: 'short' });
          log.error(
            {
              detail: step.detail,
              deposit: String(w.amount),
              paid: String(w.preparedAmount),
              received: String(settled.received),
              remainder: String(settled.remainder),
            },
            'withdrawal job returned less than the deposit; the remainder is still open in the hub and is withdrawn next',
          );
          continue;
        }
        const transfer = await completeWithdrawal(deps.db, w.id, { detail: step.detail, readyTxFee: step.readyTxFee, nowMs: deps.now() });
        deps.checkpoint?.('completed');
        deps.metrics?.withdrawalsTotal.inc({ outcome: 'executed' });
        if (transfer === 'untouched')
          log.error({ detail: step.detail }, 'deposit withdrawn, but its transfer was neither deposited nor an unresolved failure');
        else log.info({ detail: step.detail, transfer }, 'deposit withdrawn back to the treasury');
        await notify({ ...deps, config: { notify: deps.notifyConfig } }, withdrawalEvent(w, 'executed', step.detail));
        continue;
      }
    }
  }
}

/** One step from the stored state. */
async function stepOf(deps: WithdrawalDeps, w: WithdrawalRow, remainingMs: number): Promise<Step> {
  switch (w.state) {
    case 'attesting':
      return attest(deps, w);
    case 'attested':
      return prepareAndSign(deps, w);
    case 'executing':
      return execute(deps, w);
    case 'processing':
      return poll(deps, w);
    case 'sending':
      return onSending(deps, w, remainingMs);
    default:
      return { next: 'stop', why: `${w.state} is final` };
  }
}

async function attest(deps: WithdrawalDeps, w: WithdrawalRow): Promise<Step> {
  try {
    const answer = await deps.relay.attestDeposit({ chainId: w.chainId, transactionId: w.depositTx });
    if (!answer.success) return { next: 'transient', why: 'attest-deposit answered success: false' };
  } catch (error) {
    if (error instanceof RelayApiError && error.httpStatus === 400) {
      return {
        next: 'fail',
        reason: reasonText(
          'WITHDRAWAL_ATTEST_REFUSED',
          `attest-deposit refused deposit ${w.depositTx}: ${error.apiMessage ?? error.message}`,
        ),
        outcome: 'failed',
      };
    }
    return { next: 'transient', why: `attest-deposit: ${shortErrorMessage(error)}` };
  }
  await markAttested(deps.db, w.id, deps.now());
  deps.checkpoint?.('attested');
  return { next: 'now' };
}

async function prepareAndSign(deps: WithdrawalDeps, w: WithdrawalRow): Promise<Step> {
  if (w.attempts >= deps.config.maxAttempts) {
    return {
      next: 'fail',
      reason: reasonText(
        'WITHDRAWAL_GAVE_UP',
        `${w.attempts} withdrawal job(s) did not complete (withdrawals.maxAttempts ${deps.config.maxAttempts}); last: ${w.reason ?? 'unknown'}`,
      ),
      outcome: 'failed',
    };
  }
  const signer = withdrawalSignerOf(deps.adapter);
  if (!signer) {
    return {
      next: 'fail',
      reason: reasonText('WITHDRAWAL_OWNER_UNSUPPORTED', `owners on ${w.chain} (${deps.adapter.vm}) cannot sign a withdrawal`),
      outcome: 'refused',
    };
  }
  const open = remainingToWithdraw(w.amount, w.receivedAmount);
  const fields = {
    chainId: w.chainSlug,
    currency: w.currency,
    amount: open.toString(),
    ownerChainId: w.chainSlug,
    owner: w.owner,
    recipient: w.recipient,
  };
  let prepared;
  try {
    prepared = await deps.relay.prepareWithdrawal(fields);
  } catch (error) {
    if (error instanceof RelayApiError && error.httpStatus === 400) return prepareRefused(deps, w, error.apiMessage ?? error.message);
    return { next: 'transient', why: `prepare: ${shortErrorMessage(error)}` };
  }
  const amount = BigInt(prepared.amount);
  if (amount > open) {
    return {
      next: 'fail',
      reason: reasonText(
        'WITHDRAWAL_PREPARE_REFUSED',
        `prepare offers ${amount}, expected at most the ${open} still open of the deposit's ${w.amount}`,
      ),
      outcome: 'failed',
    };
  }
  if (amount === 0n) {
    if (w.receivedAmount > 0n) return remainderWaits(deps, w, open, 'prepare offers 0');
    return {
      next: 'fail',
      reason: reasonText('WITHDRAWAL_PREPARE_REFUSED', `prepare offers 0, expected more than 0 and at most the deposit's ${w.amount}`),
      outcome: 'failed',
    };
  }
  if (amount < open)
    deps.logger.warn(
      { withdrawalId: w.id, deposit: String(w.amount), open: String(open), prepared: String(amount) },
      'prepare offers less than is still open; withdrawing what it offers, the rest stays open',
    );
  const digest = withdrawalDigest({
    ...fields,
    amount: prepared.amount,
    nonce: prepared.nonce,
    ...(prepared.additionalData !== undefined ? { additionalData: prepared.additionalData } : {}),
  });
  let signature: string;
  try {
    signature = await signer.signWithdrawalDigest(w.wallet, digest);
  } catch (error) {
    return {
      next: 'fail',
      reason: reasonText('WITHDRAWAL_OWNER_UNSUPPORTED', `wallet ${w.wallet} could not sign the withdrawal: ${shortErrorMessage(error)}`),
      outcome: 'refused',
    };
  }
  await recordSigned(deps.db, w.id, {
    nonce: prepared.nonce,
    preparedAmount: amount,
    additionalData: prepared.additionalData ?? null,
    signature,
    nowMs: deps.now(),
  });
  deps.checkpoint?.('signed');
  return { next: 'now' };
}

/**
 * A 400 from prepare. Before any execute of ours it is terminal. After one, the balance may be locked by a job
 * that execute started although its answer was lost (a crash, a timeout; the service may answer the re-sent
 * execute "nonce already used" rather than 409): that job ends on its own (executed, or expired since nobody
 * broadcasts its transaction) and unlocks the balance, so prepare is asked again by later passes, until the
 * service's records of such a job are gone (docs/relay-contract.md "Limits": 24 hours).
 */
function prepareRefused(deps: WithdrawalDeps, w: WithdrawalRow, message: string): Step {
  if (w.receivedAmount > 0n)
    return remainderWaits(deps, w, remainingToWithdraw(w.amount, w.receivedAmount), `prepare refused (${message})`);
  if (w.attempts > 0 && deps.now() - w.updatedAtMs < JOB_RECORDS_KEPT_MS) {
    return {
      next: 'stop',
      why: `prepare refused (${message}); a job an earlier execute started may hold the balance until it ends: asked again by the next pass`,
    };
  }
  return { next: 'fail', reason: reasonText('WITHDRAWAL_PREPARE_REFUSED', `prepare refused: ${message}`), outcome: 'failed' };
}

/**
 * Part of the deposit came back but the service offers nothing more now: the remainder stays open (state
 * `attested`, logged at error level) and prepare is asked again by the next pass; it is never given up on its own.
 */
function remainderWaits(deps: WithdrawalDeps, w: WithdrawalRow, open: bigint, why: string): Step {
  deps.logger.error(
    {
      withdrawalId: w.id,
      transferId: w.transferId,
      deposit: String(w.amount),
      received: String(w.receivedAmount),
      remainder: String(open),
      why,
    },
    'withdrawal remainder still open: the service offers no more of the deposit now; asked again by the next pass',
  );
  return {
    next: 'stop',
    why: `${why}: ${open} of the deposit's ${w.amount} is still open (${w.receivedAmount} back); asked again by the next pass`,
  };
}

/** How long the service keeps withdrawal jobs (docs/relay-contract.md "Limits": status retention 24 hours), ms. */
const JOB_RECORDS_KEPT_MS = 86_400_000;

async function execute(deps: WithdrawalDeps, w: WithdrawalRow): Promise<Step> {
  try {
    const job = await deps.relay.executeWithdrawal({
      chainId: w.chainSlug,
      currency: w.currency,
      amount: w.preparedAmount!.toString(), // CHECK: executing has prepared_amount, nonce and signature
      ownerChainId: w.chainSlug,
      owner: w.owner,
      recipient: w.recipient,
      nonce: w.nonce!,
      signature: w.signature!,
      ...(w.additionalData !== null ? { additionalData: w.additionalData } : {}),
    });
    await recordJob(deps.db, w.id, { jobId: job.jobId, jobStatus: job.status, adopted: false, nowMs: deps.now() });
  } catch (error) {
    const existing = existingJobIdOf(error);
    if (existing !== undefined) return adopt(deps, w, existing);
    if (error instanceof RelayApiError && error.httpStatus === 400) {
      deps.metrics?.withdrawalRestartsTotal.inc({ reason: 'rejected' });
      await restartWithdrawal(deps.db, w.id, {
        from: ['executing'],
        reason: `execute refused: ${error.apiMessage ?? error.message}`,
        nowMs: deps.now(),
      });
      return { next: 'now' };
    }
    return { next: 'transient', why: `execute: ${shortErrorMessage(error)}` };
  }
  deps.checkpoint?.('job');
  return { next: 'now' };
}

/**
 * Adopts the job a 409 named, unless another of our withdrawals holds it (then this one waits its turn). The
 * holder is looked up and the job recorded in one transaction, so no other writer records the job in between.
 */
async function adopt(deps: WithdrawalDeps, w: WithdrawalRow, jobId: string): Promise<Step> {
  const { db } = deps;
  const holder = await db.transaction(async () => {
    const found = await getWithdrawalByJob(db, jobId);
    if (found && found.id !== w.id) return found;
    await recordJob(db, w.id, { jobId, jobStatus: 'processing', adopted: true, nowMs: deps.now() });
    return undefined;
  });
  if (holder) {
    return {
      next: 'stop',
      why: `job ${jobId} of withdrawal ${holder.id} is in flight for the same owner and currency; this one waits for it`,
    };
  }
  deps.checkpoint?.('job');
  return { next: 'now' };
}

async function poll(deps: WithdrawalDeps, w: WithdrawalRow): Promise<Step> {
  const jobId = w.jobId!; // CHECK: processing has a job id
  let status;
  try {
    status = await deps.relay.withdrawalStatus(jobId);
  } catch (error) {
    if (error instanceof RelayApiError && error.httpStatus === 429) return { next: 'poll', ms: deps.config.rateLimitedPollMs };
    return { next: 'transient', why: `withdrawal status: ${shortErrorMessage(error)}` };
  }
  if (status.status !== w.jobStatus) await setJobStatus(deps.db, w.id, status.status, deps.now());
  switch (status.status) {
    case 'executed':
      return { next: 'complete', detail: `job ${jobId} executed` };
    case 'expired':
    case 'failed': {
      const why = `job ${jobId} ${status.status}${status.reason ? `: ${status.reason}` : ''}`;
      if (w.attempts >= deps.config.maxAttempts) {
        return {
          next: 'fail',
          reason: reasonText(
            'WITHDRAWAL_GAVE_UP',
            `${why}; ${w.attempts} job(s) started (withdrawals.maxAttempts ${deps.config.maxAttempts})`,
          ),
          outcome: 'failed',
        };
      }
      deps.metrics?.withdrawalRestartsTotal.inc({ reason: status.status });
      await restartWithdrawal(deps.db, w.id, { from: ['processing'], reason: why, nowMs: deps.now() });
      return { next: 'now' };
    }
    case 'ready':
      return onReady(deps, w, status.transaction);
    default:
      return { next: 'poll', ms: deps.config.pollMs };
  }
}
