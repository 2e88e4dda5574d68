/**
 * The Solana adapter's pre-sign check: the message about to be signed is simulated UNSIGNED
 * (`simulateTransaction` with `sigVerify: false` and `replaceRecentBlockhash: true`), so a transaction that would
 * fail is refused before any signature exists and nothing that could land ever leaves the process.
 *
 * Why before signing (Solana JSON-RPC `simulateTransaction`, https://solana.com/docs/rpc/http/simulatetransaction):
 * a signed transaction handed to any node, for a simulation too, is a valid transaction that node (or anyone it
 * passes it to) may forward, and it may land until its blockhash expires. A failed simulation of signed bytes
 * therefore never proves "not sent"; only a simulation of a message that carries no signature does. With
 * `replaceRecentBlockhash` the node runs the message under its own latest blockhash (answered as
 * `replacementBlockhash`), so the answer does not depend on whether that node has seen ours yet; `sigVerify` must
 * then be false (the node refuses the pair), which is what an unsigned message needs anyway.
 *
 * `minContextSlot`: the slot our blockhash and lookup tables were read at. A node whose bank at the requested
 * commitment is behind it answers JSON-RPC error -32016 "Minimum context slot has not been reached"; its
 * simulation would run on state older than what the transaction was built from, so it proves nothing either way.
 * That error, and every other error reaching the node (HTTP, timeout, a malformed answer, an answer from a slot
 * below `minContextSlot` from a node that ignores the parameter), means "could not simulate": an
 * {@link SvmRpcError}, never a refusal. Signing then does NOT go ahead: the sign step fails with nothing signed,
 * the executor records the attempt as failed (nothing was signed or sent, so nothing can land and nothing was
 * paid), and the next cycle quotes and tries again against a node that answers. This is the safe choice: signing
 * without a simulation could send a deposit that fails on chain (its fee paid, counted towards
 * `policy.pauseRouteAfterOriginFailures`) for the sake of one cycle's delay, and a node that cannot simulate
 * is a node we should not rely on to send either.
 */
import {
  VersionedTransaction,
  type RpcResponseAndContext,
  type SimulatedTransactionResponse,
  type VersionedMessage,
} from '@solana/web3.js';
import { SvmRpcError, SvmSimulationFailedError } from './errors.ts';
import type { SvmRpc } from './rpc.ts';

/** Most program log lines kept in the error message (the last ones: where a program says why it failed). */
export const SIMULATION_LOG_LINES = 8;
/** Most characters of one log line kept in the message. */
const MAX_LOG_LINE = 160;
/**
 * Commitment of the simulation: recent state on a block the cluster voted on, at or above any slot read at the
 * adapter's own commitment (`confirmed` or `finalized`).
 */
export const SIMULATION_COMMITMENT = 'confirmed';

/** What {@link simulateBeforeSigning} is told about the message. */
export interface SimulateBeforeSigningParameters {
  /** The item being signed, for messages (e.g. `deposit item 0`). */
  where: string;
  /** Slot the message's blockhash and lookup tables were read at; a simulation below it proves nothing. */
  minContextSlot: number;
}

/**
 * Simulates `message` with no signature; resolves when it would succeed.
 *
 * The message is wrapped in a new transaction whose signatures are all zero bytes, whatever the caller holds:
 * no signature of ours reaches the node.
 *
 * @param message the compiled message about to be signed (its blockhash is replaced by the node's for the run)
 * @throws SvmSimulationFailedError (`SVM_SIMULATION_FAILED`) when the simulation answers an error: the node's
 *   `err` and program logs; nothing is signed or sent
 * @throws SvmRpcError (`SVM_RPC_FAILED`, method `simulateTransaction`) when the node could not simulate: any
 *   error reaching it, -32016 "Minimum context slot has not been reached" from a node behind `minContextSlot`,
 *   or an answer from a slot below it; nothing is signed (see the file comment)
 * @example
 * await simulateBeforeSigning(rpc, tx.message, { where: 'deposit item 0', minContextSlot: latest.context.slot });
 * tx.addSignature(signer.publicKey, await signer.signMessage(tx.message.serialize())); // only now
 */
export async function simulateBeforeSigning(rpc: SvmRpc, message: VersionedMessage, args: SimulateBeforeSigningParameters): Promise<void> {
  const { where, minContextSlot } = args;
  const unsigned = new VersionedTransaction(message); // zero-filled signatures
  const couldNot = (why: string, cause?: unknown) =>
    new SvmRpcError(
      `${why}; could not simulate ${where} on a node at slot ${minContextSlot} or later, so nothing was signed; the next cycle tries again`,
      { method: 'simulateTransaction', ...(cause === undefined ? {} : { cause }) },
    );
  let answer: RpcResponseAndContext<SimulatedTransactionResponse>;
  try {
    answer = await rpc.call('simulateTransaction', (c) =>
      c.simulateTransaction(unsigned, {
        sigVerify: false,
        replaceRecentBlockhash: true,
        commitment: SIMULATION_COMMITMENT,
        minContextSlot,
      }),
    );
  } catch (error) {
    throw couldNot(error instanceof Error ? error.message : String(error), error);
  }
  if (answer.context.slot < minContextSlot) {
    throw couldNot(`${rpc.at}: simulateTransaction was answered at slot ${answer.context.slot}, below ${minContextSlot}`);
  }
  const { err, logs } = answer.value;
  if (err === null) return;
  const lines = (logs ?? []).slice(-SIMULATION_LOG_LINES).map((l) => (l.length > MAX_LOG_LINE ? `${l.slice(0, MAX_LOG_LINE)}…` : l));
  const errText = typeof err === 'string' ? err : JSON.stringify(err);
  throw new SvmSimulationFailedError(
    `${rpc.at}: simulateTransaction of ${where} (unsigned) failed with ${errText}; nothing was signed or sent and no fee was paid` +
      (lines.length > 0 ? `; program logs: ${lines.join(' | ')}` : '; the node gave no program logs'),
    { err, logs: logs ?? [] },
  );
}
