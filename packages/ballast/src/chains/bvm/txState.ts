/**
 * Where a recorded Bitcoin transaction stands, read from Esplora (`/tx/:id/status`, `/tx/:prev/outspend/:vout`,
 * `/block-height/:h`): mined, in the mempool, provably unable to land, or unknown; re-checked against reorgs
 * under the confirmations policy; waited for until mined. Bitcoin transactions do not revert, so a mined one is
 * always `confirmed`.
 *
 * Proof that a transaction can never land (the money-path contract in src/chains/adapter.ts): the node does
 * not know it, and one of the outputs it spends (or one its unconfirmed ancestors spend) is spent by another
 * transaction in a block at least `reorgDepth` deep (default 6), so no plausible reorg can bring it back. Segwit txids do not change with
 * signatures, so another txid is another transaction. A conflicting spend still in the mempool proves nothing
 * yet (it may be replaced or evicted), so that answer is `unknown`; one mined less deep is `pending` (wait for
 * depth). A passed order deadline proves nothing: a Bitcoin transaction never expires. Every HTTP failure
 * other than a 404 throws: an error proves nothing.
 */
import type { Inclusion, Recheck, RecordedTx, TxLookup } from '../adapter.ts';
import type { EsploraClient } from './esploraClient.ts';
import { HashTextSchema, HeightTextSchema, OutspendSchema, TxStatusSchema, type EsploraTxStatus } from './esploraSchemas.ts';
import { BvmInclusionTimeoutError } from './errors.ts';
import { recordedAncestors, recordedInputs, type Outpoint } from './txRecord.ts';

/** Confirmations policy: blocks (the including one counted) after which a transaction is final. */
export interface BvmFinalityPolicy {
  confirmations: number;
  /** Used instead when the transfer's amount is at least `highValueSats`. */
  highValueConfirmations: number;
  /** Threshold of a high-value transfer, satoshis. */
  highValueSats: bigint;
  /**
   * Blocks (the including one counted) a mined transaction is re-checked for reorgs, whatever the confirmations
   * the fill waits for, and the depth a conflicting spend must reach before it proves our transaction dead.
   */
  reorgDepth: number;
}

/** Default {@link BvmFinalityPolicy.reorgDepth}: six blocks, the customary depth beyond which Bitcoin reorgs are not expected. */
export const DEFAULT_BVM_REORG_DEPTH = 6;

/** Blocks a transfer of `amountSats` needs (unknown amount: the stricter high-value count). */
export function requiredConfirmations(policy: BvmFinalityPolicy, amountSats: bigint | undefined): number {
  return amountSats === undefined || amountSats >= policy.highValueSats ? policy.highValueConfirmations : policy.confirmations;
}

const txPath = (txid: string): string => `/tx/${encodeURIComponent(txid)}`;

/** `/tx/:id/status`, or null when the node does not know the transaction (404). */
export function readTxStatus(esplora: EsploraClient, txid: string): Promise<EsploraTxStatus | null> {
  return esplora.getJsonOrNull(`${txPath(txid)}/status`, TxStatusSchema);
}

/** What a spend of one of `inputs` by another transaction proves: dead (mined at depth), pending (mined shallow), or nothing. */
async function conflictOf(
  esplora: EsploraClient,
  txid: string,
  inputs: readonly Outpoint[],
  reorgDepth: number,
): Promise<{ dead: string } | { shallow: string } | null> {
  const ours = txid.toLowerCase();
  let shallow: string | null = null;
  for (const input of inputs) {
    const spend = await esplora.getJsonOrNull(`${txPath(input.txid)}/outspend/${input.vout}`, OutspendSchema);
    if (!spend?.spent || spend.txid === ours || !spend.status?.confirmed) continue;
    const tip = await esplora.getText('/blocks/tip/height', HeightTextSchema);
    const depth = tip - BigInt(spend.status.block_height) + 1n;
    if (depth >= BigInt(reorgDepth)) return { dead: spend.txid };
    shallow = `input ${input.txid}:${input.vout} of ${ours} is spent by ${spend.txid}, mined ${depth} block(s) deep (proof at ${reorgDepth})`;
  }
  return shallow === null ? null : { shallow };
}

/**
 * What the chain says of a recorded transaction: mined (block and hash); pending (in the mempool, or an input
 * spent by another transaction mined less than `reorgDepth` deep); dropped (an input spent by another
 * transaction mined at least `reorgDepth` deep, so ours can never land; `by` names that transaction); or
 * unknown (the node does not know it and nothing proves it dead: it may still be mined from another node's
 * mempool). A transaction that spends unconfirmed change records its unconfirmed ancestors
 * (src/chains/bvm/ancestors.ts): an ancestor the node does not have that is proven dead the same way proves
 * every descendant dead too.
 *
 * @param reorgDepth depth, in blocks counting the including one, at which a conflicting spend is proof
 * @throws BvmEsploraError on any failure other than a 404
 */
export async function lookupBvmTx(esplora: EsploraClient, tx: RecordedTx, reorgDepth: number): Promise<TxLookup> {
  const status = await readTxStatus(esplora, tx.txHash);
  if (status?.confirmed)
    return { state: 'mined', status: 'confirmed', blockNumber: BigInt(status.block_height), blockHash: status.block_hash };
  if (status) return { state: 'pending' };
  const inputs = recordedInputs(tx);
  if (!inputs) return { state: 'unknown' };
  const own = await conflictOf(esplora, tx.txHash, inputs, reorgDepth);
  if (own && 'dead' in own) return { state: 'dropped', by: own.dead };
  let shallow = own?.shallow ?? null;
  for (const ancestor of recordedAncestors(tx)) {
    if ((await readTxStatus(esplora, ancestor.txid))?.confirmed) continue; // mined: its outputs exist, ours decides
    const proof = await conflictOf(esplora, ancestor.txid, ancestor.inputs, reorgDepth);
    if (proof && 'dead' in proof) return { state: 'dropped', by: proof.dead };
    shallow ??= proof?.shallow ?? null;
  }
  return shallow === null ? { state: 'unknown' } : { state: 'pending', detail: shallow };
}

/**
 * Re-checks a mined transaction recorded in block `blockNumber` (hash `blockHash`) against the chain at `head`.
 *
 * @returns `same` (final when `head` is at least the larger of the required confirmations and `policy.reorgDepth`
 *   deep), `moved` (in another block), `removed`
 *   (no longer in a block and the block at its height has another hash), or `unknown` (the node lags)
 * @throws BvmEsploraError on any failure other than a 404
 */
export async function recheckBvmTx(
  esplora: EsploraClient,
  tx: RecordedTx & { blockNumber: bigint; blockHash: string | null; amountIn?: bigint },
  head: bigint,
  policy: BvmFinalityPolicy,
): Promise<Recheck> {
  const status = await readTxStatus(esplora, tx.txHash);
  if (status?.confirmed) {
    const height = BigInt(status.block_height);
    if (height === tx.blockNumber && (tx.blockHash === null || status.block_hash === tx.blockHash.toLowerCase())) {
      // Final only once no reorg is expected: the fill may wait for fewer confirmations, the re-checks do not.
      const depth = Math.max(requiredConfirmations(policy, tx.amountIn), policy.reorgDepth);
      return { kind: 'same', final: head - height + 1n >= BigInt(depth) };
    }
    return { kind: 'moved', status: 'confirmed', blockNumber: height, blockHash: status.block_hash };
  }
  if (head < tx.blockNumber) return { kind: 'unknown', why: `the node's tip ${head} is below the recorded block ${tx.blockNumber}` };
  const hash = await esplora.getTextOrNull(`/block-height/${tx.blockNumber}`, HashTextSchema);
  if (hash === null) return { kind: 'unknown', why: `the node does not have block ${tx.blockNumber} yet` };
  if (tx.blockHash !== null && hash === tx.blockHash.toLowerCase()) {
    return {
      kind: 'unknown',
      why: `block ${tx.blockNumber} is still canonical, but the node does not place the transaction in it; the node lags`,
    };
  }
  return { kind: 'removed' };
}

/** Options of {@link waitForBvmInclusion}. */
export interface WaitOptions {
  /** Time between status reads, ms. */
  pollIntervalMs: number;
  /** Clock, ms (default Date.now). */
  nowMs?: () => number;
}

/**
 * Polls `/tx/:id/status` until the transaction is in a block. A 404 (not relayed yet) keeps waiting.
 *
 * @returns `{ kind: 'mined', status: 'confirmed', blockNumber, blockHash }`
 * @throws BvmInclusionTimeoutError when it is not mined within `timeoutMs`
 * @throws BvmEsploraError on any failure other than a 404
 */
export async function waitForBvmInclusion(esplora: EsploraClient, txid: string, timeoutMs: number, opts: WaitOptions): Promise<Inclusion> {
  const now = opts.nowMs ?? Date.now;
  const deadline = now() + timeoutMs;
  let last = 'unknown to the node';
  for (;;) {
    const status = await readTxStatus(esplora, txid);
    if (status?.confirmed)
      return { kind: 'mined', status: 'confirmed', blockNumber: BigInt(status.block_height), blockHash: status.block_hash };
    if (status) last = 'in the mempool';
    const left = deadline - now();
    if (left <= 0) break;
    await new Promise((resolve) => setTimeout(resolve, Math.min(opts.pollIntervalMs, left)));
  }
  throw new BvmInclusionTimeoutError(`${esplora.at}: transaction ${txid} was not mined within ${timeoutMs} ms (last seen ${last})`);
}
