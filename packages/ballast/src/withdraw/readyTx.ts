/**
 * The `ready` step of a withdrawal job (docs/relay-contract.md "Withdrawal job status": on non-TON chains the owner wallet
 * signs and broadcasts the transaction, paying its own gas): verify the transaction (src/verify/withdrawalTx.ts),
 * sign it through the owner's chain adapter, write it ahead (hash and raw bytes), broadcast, and follow its
 * receipt. A transaction that fails verification is never signed: the reason is recorded and nothing is sent.
 * After a crash, a written transaction is looked up on chain before it is ever sent again, and is sent again
 * only while its call request has not expired.
 */
import type { RecordedTx } from '../chains/adapter.ts';
import { gasMeterOf, withdrawalTxSignerOf } from '../chains/capabilities.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { EvmWithdrawalTxSchema } from '../relay/withdrawalSchemas.ts';
import { dropReadyTx, recordReadyTx, setReadyTxStatus, type WithdrawalRow } from '../store/withdrawals.ts';
import { verifyWithdrawalTx } from '../verify/withdrawalTx.ts';
import type { WithdrawalDeps } from './deps.ts';
import { reasonText } from './errors.ts';
import type { Step } from './step.ts';

/** What is stored as `tx_json` of a withdrawal in `sending`: the job's transaction, our signed request, its expiry. */
interface StoredReadyTx {
  transaction: unknown;
  signed: unknown;
  /** The call request's expiration, unix seconds (decimal string). */
  expirationSec: string;
}

/** Longest single wait for a receipt inside one step, ms (the loop's own deadline still applies). */
const RECEIPT_WAIT_MS = 120_000;

/**
 * Handles a job that reported `ready` with `transaction`.
 *
 * @returns the next step: on to `sending`, or a failure with the recorded reason
 */
export async function onReady(deps: WithdrawalDeps, w: WithdrawalRow, transaction: unknown): Promise<Step> {
  const { adapter } = deps;
  if (w.revertedTx !== null) {
    // Signing again would most likely revert again and spend gas each time: the job must end (expire, fail) first.
    return { next: 'poll', ms: deps.config.pollMs };
  }
  const txSigner = withdrawalTxSignerOf(adapter);
  if (!txSigner) {
    return {
      next: 'fail',
      reason: reasonText(
        'WITHDRAWAL_OWNER_UNSUPPORTED',
        `the ready transaction of job ${w.jobId} is on ${w.chain} (${adapter.vm}); Ballast broadcasts ready transactions on EVM chains only: broadcast it with the owner wallet by hand`,
      ),
      outcome: 'refused',
    };
  }
  const parsed = EvmWithdrawalTxSchema.safeParse(transaction);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      next: 'fail',
      reason: reasonText(
        'WITHDRAWAL_TX_REFUSED',
        `the ready transaction is not an EVM transaction request (transaction.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'})`,
      ),
      outcome: 'refused',
    };
  }
  if (deps.depository === undefined) {
    return {
      next: 'fail',
      reason: reasonText(
        'WITHDRAWAL_TX_REFUSED',
        `GET /chains lists no protocol.v2.depository for chain ${w.chainId}: the ready transaction cannot be checked`,
      ),
      outcome: 'refused',
    };
  }
  const amount = w.preparedAmount ?? w.amount;
  const verdict = verifyWithdrawalTx(
    parsed.data,
    { chainId: w.chainId, depository: deps.depository, currency: w.currency, amount, recipient: w.recipient },
    Math.floor(deps.now() / 1000),
  );
  if (!verdict.ok) {
    deps.logger.error(
      { withdrawalId: w.id, jobId: w.jobId, checks: verdict.checks.filter((c) => !c.ok) },
      'ready withdrawal transaction refused; nothing signed',
    );
    return {
      next: 'fail',
      reason: reasonText('WITHDRAWAL_TX_REFUSED', `ready transaction of job ${w.jobId} refused, nothing signed: ${verdict.reason}`),
      outcome: 'refused',
    };
  }
  let signed;
  try {
    signed = await txSigner.signWithdrawalTransaction(w.wallet, parsed.data);
  } catch (error) {
    // Gas estimation reverts when the request was executed or expired meanwhile: the job status says which.
    return { next: 'transient', why: `signing the ready transaction failed: ${shortErrorMessage(error)}` };
  }
  const stored: StoredReadyTx = { transaction, signed: signed.request, expirationSec: verdict.expirationSec.toString() };
  await recordReadyTx(deps.db, w.id, { tx: stored, txHash: signed.txHash, rawTx: signed.rawTx, nowMs: deps.now() });
  deps.checkpoint?.('tx-written');
  return { next: 'now' };
}

/**
 * Drives a withdrawal in `sending`: looks the written transaction up on chain, sends it (again) when the node
 * does not know it and its call request has not expired, waits for the receipt and records it.
 *
 * @param remainingMs time left in this pass
 */
export async function onSending(deps: WithdrawalDeps, w: WithdrawalRow, remainingMs: number): Promise<Step> {
  const { adapter, db } = deps;
  const stored = w.tx as StoredReadyTx | null; // written by onReady in this shape
  const rec: RecordedTx = { txHash: w.txHash!, rawTx: w.rawTx!, request: stored?.signed ?? null }; // CHECK: sending has both
  let found;
  try {
    found = await adapter.lookup(rec, w.owner);
  } catch (error) {
    return { next: 'transient', why: `looking up ready transaction ${w.txHash} failed: ${shortErrorMessage(error)}` };
  }
  if (found.state === 'mined') {
    if (w.txStatus !== found.status) await setReadyTxStatus(db, w.id, found.status, deps.now());
    const readyTxFee = await readyTxFeeOf(deps, w);
    if (found.status === 'confirmed')
      return { next: 'complete', detail: `job ${w.jobId}, transaction ${w.txHash} in block ${found.blockNumber}`, readyTxFee };
    await dropReadyTx(db, w.id, {
      why: `ready transaction ${w.txHash} of job ${w.jobId} reverted in block ${found.blockNumber}`,
      revertedTx: w.txHash!,
      readyTxFee,
      nowMs: deps.now(),
    });
    return { next: 'now' };
  }
  if (found.state === 'dropped') {
    await dropReadyTx(db, w.id, {
      why: `ready transaction ${w.txHash} can never land (its nonce was used by another transaction)`,
      nowMs: deps.now(),
    });
    return { next: 'now' };
  }
  if (found.state === 'unknown') {
    const expiration = BigInt(stored?.expirationSec ?? '0');
    if (expiration <= BigInt(Math.floor(deps.now() / 1000))) {
      await dropReadyTx(db, w.id, {
        why: `ready transaction ${w.txHash} is not on chain and its call request expired at ${expiration}`,
        nowMs: deps.now(),
      });
      return { next: 'now' };
    }
    try {
      await adapter.broadcast(w.rawTx!); // written ahead exactly as signed
    } catch (error) {
      deps.logger.warn(
        { withdrawalId: w.id, txHash: w.txHash, err: shortErrorMessage(error) },
        'broadcasting the ready transaction failed; outcome unknown, looked up again',
      );
    }
    if (w.txStatus === 'signed') await setReadyTxStatus(db, w.id, 'sent', deps.now());
    deps.checkpoint?.('tx-sent');
  }
  try {
    await adapter.waitForInclusion(rec, Math.max(1, Math.min(RECEIPT_WAIT_MS, remainingMs)));
  } catch (error) {
    return { next: 'transient', why: `no receipt yet for ready transaction ${w.txHash}: ${shortErrorMessage(error)}` };
  }
  return { next: 'now' };
}

/**
 * The network fee the mined ready transaction of `w` paid, native base units (EVM `gasUsed × effectiveGasPrice`),
 * read through the adapter's gas meter; null when it cannot be read (logged: the withdrawal goes on, its fee is
 * recorded as unknown, never guessed).
 */
async function readyTxFeeOf(deps: WithdrawalDeps, w: WithdrawalRow): Promise<bigint | null> {
  const meter = gasMeterOf(deps.adapter);
  let fee: bigint | null = null;
  try {
    fee = meter ? await meter.gasPaid(w.txHash!) : null; // CHECK: sending has a transaction hash
  } catch (error) {
    deps.logger.warn(
      { withdrawalId: w.id, txHash: w.txHash, err: shortErrorMessage(error) },
      'network fee of the ready transaction unreadable',
    );
    return null;
  }
  if (fee === null) deps.logger.warn({ withdrawalId: w.id, txHash: w.txHash }, 'network fee of the ready transaction not available');
  return fee;
}
