/**
 * Where a recorded Solana transaction stands: mined (at least `confirmed`), pending (only `processed`),
 * provably unable to land, or unknown; re-checked against forks; waited for until it reaches the configured
 * commitment. There is no replacement on Solana: a signature names one message.
 *
 * Proof that a transaction can never land (the money-path contract in src/chains/adapter.ts): a transaction
 * lands only in a block whose height is at most its blockhash's `lastValidBlockHeight` (recorded when it was
 * signed). So: the node does not know the signature; at the configured commitment its block height is above
 * that height (every block that could still become canonical descends from that one) and it no longer
 * accepts the blockhash; and a second status read, answered at a slot no lower than the one the height was
 * read at, still does not know the signature (it could have landed between the first read and the height
 * read). Every node error throws: an error proves nothing.
 */
import type { Inclusion, Mined, Recheck, RecordedTx, TxLookup } from '../adapter.ts';
import { SvmBlockhashExpiredError, SvmInclusionTimeoutError } from './errors.ts';
import type { SvmFinality, SvmRpc } from './rpc.ts';
import { reaches, readSignatureStatus, svmBlockRef, type SvmTxStatus } from './signatureStatus.ts';
import { parseSvmTxRecord, type SvmTxRecord } from './txRecord.ts';

/** A landed transaction as the seam reports it. Pure. */
export function minedOf(s: SvmTxStatus): Mined {
  return { status: s.failed ? 'reverted' : 'confirmed', blockNumber: s.slot, blockHash: svmBlockRef(s.slot) };
}

function lookupOf(s: SvmTxStatus): TxLookup {
  return s.level === 'processed' ? { state: 'pending' } : { state: 'mined', ...minedOf(s) };
}

/** The outcome of an expiry check: expired as seen at `slot`, or not (yet) provable. */
type Expiry = { expired: true; slot: bigint } | { expired: false };

/**
 * Whether `record`'s blockhash can no longer be used: block height at `commitment` above its last valid
 * height, and the node (at that slot or later) no longer accepts it.
 *
 * @throws SvmRpcError on any node error
 */
export async function blockhashExpired(rpc: SvmRpc, record: SvmTxRecord, commitment: SvmFinality): Promise<Expiry> {
  const epoch = await rpc.call('getEpochInfo', (c) => c.getEpochInfo({ commitment }));
  const minContextSlot = epoch.absoluteSlot;
  const height = epoch.blockHeight ?? (await rpc.call('getBlockHeight', (c) => c.getBlockHeight({ commitment, minContextSlot })));
  if (height <= record.lastValidBlockHeight) return { expired: false };
  const valid = await rpc.call('isBlockhashValid', (c) => c.isBlockhashValid(record.blockhash, { commitment, minContextSlot }));
  return valid.value ? { expired: false } : { expired: true, slot: BigInt(minContextSlot) };
}

/**
 * What the chain says of a recorded transaction.
 *
 * @returns `mined` (confirmed or finalized; a failed one is `reverted`), `pending` (only processed),
 *   `dropped` (proven unable to land, see the file comment) or `unknown` (it may still land, or the record
 *   holds no blockhash to prove otherwise)
 * @throws SvmRpcError on any node error
 */
export async function lookupSvmTx(rpc: SvmRpc, tx: RecordedTx, commitment: SvmFinality): Promise<TxLookup> {
  const first = await readSignatureStatus(rpc, tx.txHash);
  if (first.status) return lookupOf(first.status);
  const record = parseSvmTxRecord(tx.request);
  if (!record) return { state: 'unknown' };
  const expiry = await blockhashExpired(rpc, record, commitment);
  if (!expiry.expired) return { state: 'unknown' };
  const again = await readSignatureStatus(rpc, tx.txHash);
  if (again.status) return lookupOf(again.status);
  return again.contextSlot >= expiry.slot ? { state: 'dropped' } : { state: 'unknown' };
}

/**
 * Re-checks a mined transaction recorded at slot `tx.blockNumber` against the chain at `head` (a slot read at
 * the configured commitment).
 *
 * @returns `same` (final once its status reaches `commitment`), `moved` (at another slot), `removed` (unknown
 *   to a node whose state and head are past the recorded slot: its fork was abandoned), or `unknown` (only
 *   processed, or the node has not reached the slot)
 * @throws SvmRpcError on any node error
 */
export async function recheckSvmTx(
  rpc: SvmRpc,
  tx: RecordedTx & { status: 'confirmed' | 'reverted'; blockNumber: bigint },
  head: bigint,
  commitment: SvmFinality,
): Promise<Recheck> {
  const { status, contextSlot } = await readSignatureStatus(rpc, tx.txHash);
  if (status && status.level !== 'processed') {
    const now = minedOf(status);
    if (now.blockNumber === tx.blockNumber && now.status === tx.status) return { kind: 'same', final: reaches(status.level, commitment) };
    return { kind: 'moved', ...now };
  }
  if (status) return { kind: 'unknown', why: `the node holds the transaction only as processed at slot ${status.slot}` };
  if (head < tx.blockNumber) return { kind: 'unknown', why: `the head slot ${head} is below the recorded slot ${tx.blockNumber}` };
  if (contextSlot < tx.blockNumber)
    return { kind: 'unknown', why: `the node answered at slot ${contextSlot}, below the recorded slot ${tx.blockNumber}` };
  return { kind: 'removed' };
}

/** Options of {@link waitForSvmInclusion}. */
export interface SvmWaitOptions {
  commitment: SvmFinality;
  /** Time between status reads, ms. */
  pollIntervalMs: number;
  /** Least time between two expiry checks while the signature is unknown, ms. */
  expiryCheckMs: number;
  /** Clock, ms (default Date.now). */
  nowMs?: () => number;
}

/**
 * Polls the signature's status until it reaches `opts.commitment`.
 *
 * @returns `{ kind: 'mined', status, blockNumber: slot, blockHash: 'slot:<slot>' }` (`reverted` when it failed)
 * @throws SvmBlockhashExpiredError when its blockhash expired with the signature unknown (it can never land)
 * @throws SvmInclusionTimeoutError when it did not reach the commitment within `timeoutMs`
 * @throws SvmRpcError on any node error
 */
export async function waitForSvmInclusion(rpc: SvmRpc, tx: RecordedTx, timeoutMs: number, opts: SvmWaitOptions): Promise<Inclusion> {
  const now = opts.nowMs ?? Date.now;
  const deadline = now() + timeoutMs;
  const record = parseSvmTxRecord(tx.request);
  let nextExpiryCheck = now();
  let last = 'unknown to the node';
  for (;;) {
    const { status } = await readSignatureStatus(rpc, tx.txHash);
    if (status && reaches(status.level, opts.commitment)) return { kind: 'mined', ...minedOf(status) };
    if (status) last = `${status.level} at slot ${status.slot}`;
    if (!status && record && now() >= nextExpiryCheck) {
      nextExpiryCheck = now() + opts.expiryCheckMs;
      const expiry = await blockhashExpired(rpc, record, opts.commitment);
      const again = expiry.expired ? await readSignatureStatus(rpc, tx.txHash) : null;
      if (expiry.expired && again && again.status === null && again.contextSlot >= expiry.slot) {
        throw new SvmBlockhashExpiredError(
          `${rpc.at}: transaction ${tx.txHash} never landed; its blockhash ${record.blockhash} expired after block height ${record.lastValidBlockHeight}`,
        );
      }
    }
    const left = deadline - now();
    if (left <= 0) break;
    await new Promise((resolve) => setTimeout(resolve, Math.min(opts.pollIntervalMs, left)));
  }
  throw new SvmInclusionTimeoutError(
    `${rpc.at}: transaction ${tx.txHash} did not reach ${opts.commitment} within ${timeoutMs} ms (last seen ${last})`,
  );
}
