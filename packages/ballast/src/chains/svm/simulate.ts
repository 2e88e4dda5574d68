/**
 * The Solana adapter's preflight: simulates the exact signed transaction (`simulateTransaction`, signatures
 * verified, its own blockhash kept) before it is sent, so a transaction that would fail on chain is never sent
 * and never pays its fee. The send itself then skips the node's own preflight (it would run the same simulation
 * a second time, and on a load-balanced endpoint could reach a backend that lags and refuse the transaction with
 * "Blockhash not found" after this one passed).
 */
import type { VersionedTransaction } from '@solana/web3.js';
import { SvmSimulationFailedError } from './errors.ts';
import type { SvmRpc } from './rpc.ts';

/** Most program log lines kept in the error message (the last ones: where a program says why it failed). */
export const SIMULATION_LOG_LINES = 8;
/** Most characters of one log line kept in the message. */
const MAX_LOG_LINE = 160;

/**
 * Simulates `tx` at `commitment`; resolves when it would succeed.
 *
 * @param signature the transaction's id (first signature, base58), for the message
 * @throws SvmSimulationFailedError (`SVM_SIMULATION_FAILED`, nothing sent) when the simulation answers an error,
 *   with the node's `err` and the program logs
 * @throws SvmRpcError when the node cannot be asked (nothing sent; not a refusal: the caller treats it as any
 *   other broadcast error, and reconciliation sends the recorded bytes again later)
 */
export async function simulateBeforeSend(
  rpc: SvmRpc,
  tx: VersionedTransaction,
  signature: string,
  commitment: 'processed' | 'confirmed' | 'finalized',
): Promise<void> {
  const answer = await rpc.call('simulateTransaction', (c) =>
    c.simulateTransaction(tx, { sigVerify: true, replaceRecentBlockhash: false, commitment }),
  );
  const { err, logs } = answer.value;
  if (err === null) return;
  const lines = (logs ?? []).slice(-SIMULATION_LOG_LINES).map((l) => (l.length > MAX_LOG_LINE ? `${l.slice(0, MAX_LOG_LINE)}…` : l));
  const errText = typeof err === 'string' ? err : JSON.stringify(err);
  throw new SvmSimulationFailedError(
    `${rpc.at}: simulateTransaction of ${signature} failed with ${errText}; the transaction was not sent and no fee was paid` +
      (lines.length > 0 ? `; program logs: ${lines.join(' | ')}` : '; the node gave no program logs'),
    { err, logs: logs ?? [] },
  );
}
