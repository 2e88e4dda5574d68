/**
 * The mempool policy of the model's Bitcoin node, as Bitcoin Core 28 applies it with full-RBF (its default):
 * - admission: the mempool minimum fee (`mempool min fee not met, <fee> < <min fee>` while the node's rolling
 *   minimum is above the relay minimum) and the minimum relay fee (`min relay fee not met, …`), then, for a
 *   transaction spending outputs a mempool transaction already spends, the BIP-125 replacement rules 2–6
 *   through the sandbox's implementation (packages/sandbox/src/bvm/replacement.ts: `checkSpendsNoConflict`,
 *   `checkReplacement`, with Core's reject reasons): a higher rate than each direct conflict, at most 100
 *   evictions, no new unconfirmed input, a fee covering every transaction replaced — descendants included —
 *   plus the incremental relay fee for its own size;
 * - trimming: when the minimum fee rises, the transaction with the lowest descendant score (the larger of its
 *   own rate and its rate with its mempool descendants, Core's `CompareTxMemPoolEntryByDescendantScore`) goes
 *   first, with its descendants, until none is below the minimum;
 * - block assembly: a transaction is mined when its package (itself and its unmined mempool ancestors) pays
 *   at least the block's clearing rate (CPFP), its whole package then being mined in parent-first order.
 * Pure: reads the chain through {@link PoolView}. Amounts in satoshis, sizes in vbytes, rates in sat/vB.
 */
import { checkReplacement, checkSpendsNoConflict, type FeeEntry } from '../../../packages/sandbox/src/bvm/replacement.ts';
import { BitcoinTxRejectedError } from '../../../packages/sandbox/src/bvm/errors.ts';

/** Incremental relay fee and minimum relay fee, sat/vB (Core's defaults). */
export const INCREMENTAL_RELAY_SAT_PER_VB = 1n;

/** What the policy reads of a transaction. */
export interface PoolTx {
  txid: string;
  inputs: readonly { txid: string; vout: number }[];
  vsize: number;
}

/** What the policy reads of the chain and the mempool. */
export interface PoolView {
  tx(txid: string): PoolTx | undefined;
  /** Fee in satoshis; every mempool transaction's prevouts are known. */
  feeOf(txid: string): bigint;
  inMempool(txid: string): boolean;
  mined(txid: string): boolean;
  mempoolIds(): readonly string[];
}

/**
 * A broadcast the node refused, with bitcoind's reason text. `feeTooLow`: refused only for its fee (below the
 * mempool or relay minimum): a node with a lower minimum takes it, and ours may later.
 */
export class BtcRejectError extends Error {
  constructor(
    message: string,
    readonly feeTooLow = false,
  ) {
    super(message);
  }
}

/** Mempool transactions spending an output of `txid`, recursively (its descendants), added to `into`. */
export function descendantsOf(view: PoolView, txid: string, into = new Set<string>()): Set<string> {
  for (const id of view.mempoolIds()) {
    if (!into.has(id) && view.tx(id)!.inputs.some((i) => i.txid === txid)) {
      into.add(id);
      descendantsOf(view, id, into);
    }
  }
  return into;
}

/**
 * The unmined ancestors of a transaction among `pool` (txids not in `done`), parents first, or null when one
 * of its inputs spends a transaction neither mined, in `done`, nor in the pool.
 */
export function unminedAncestors(view: PoolView, tx: PoolTx, done: ReadonlySet<string>): string[] | null {
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = (t: PoolTx): boolean => {
    for (const i of t.inputs) {
      if (view.mined(i.txid) || done.has(i.txid) || seen.has(i.txid)) continue;
      if (!view.inMempool(i.txid)) return false;
      seen.add(i.txid);
      if (!visit(view.tx(i.txid)!)) return false;
      order.push(i.txid);
    }
    return true;
  };
  return visit(tx) ? order : null;
}

/**
 * Checks a transaction against the mempool minimum fee and the minimum relay fee, then, when it spends
 * outputs that the mempool transactions `conflicts` already spend, against the replacement rules.
 *
 * @param fee its fee, satoshis
 * @param minFee the node's mempool minimum fee, sat/vB (1: only the relay minimum applies)
 * @returns every mempool transaction it replaces: the conflicts and their descendants
 * @throws BtcRejectError with Core's reason: `mempool min fee not met`, `min relay fee not met`,
 *   `bad-txns-spends-conflicting-tx`, `insufficient fee` (rules 3, 4, 6), `too many potential replacements`,
 *   `replacement-adds-unconfirmed`
 */
export function admit(view: PoolView, tx: PoolTx, fee: bigint, conflicts: ReadonlySet<string>, minFee: bigint): Set<string> {
  const vsize = BigInt(tx.vsize);
  if (minFee > INCREMENTAL_RELAY_SAT_PER_VB && fee < minFee * vsize)
    throw new BtcRejectError(`mempool min fee not met, ${fee} < ${minFee * vsize}`, true);
  if (fee < INCREMENTAL_RELAY_SAT_PER_VB * vsize)
    throw new BtcRejectError(`min relay fee not met, ${fee} < ${INCREMENTAL_RELAY_SAT_PER_VB * vsize}`, true);
  const all = new Set<string>();
  for (const c of conflicts) {
    all.add(c);
    descendantsOf(view, c, all);
  }
  if (conflicts.size === 0) return all;
  const entry = (id: string): FeeEntry => ({ txid: id, fee: view.feeOf(id), vsize: view.tx(id)!.vsize });
  const ancestors = new Set(unminedAncestors(view, tx, new Set()) ?? []);
  const directParents = new Set<string>();
  for (const c of conflicts) for (const i of view.tx(c)!.inputs) directParents.add(i.txid);
  try {
    checkSpendsNoConflict(tx.txid, ancestors, [...all].map(entry));
    checkReplacement({
      replacement: { txid: tx.txid, fee, vsize: tx.vsize },
      direct: [...conflicts].map(entry),
      all: [...all].map(entry),
      inputParents: tx.inputs.map((i) => i.txid),
      directConflictParents: directParents,
      inMempool: (id) => view.inMempool(id),
      incrementalRelayFeeSatPerVb: INCREMENTAL_RELAY_SAT_PER_VB,
    });
  } catch (error) {
    if (error instanceof BitcoinTxRejectedError) throw new BtcRejectError(error.reason);
    throw error;
  }
  return all;
}

/** Fee and vsize of `txid` with all its mempool descendants. */
function withDescendants(view: PoolView, txid: string): { fee: bigint; vsize: bigint } {
  let fee = view.feeOf(txid);
  let vsize = BigInt(view.tx(txid)!.vsize);
  for (const d of descendantsOf(view, txid)) {
    fee += view.feeOf(d);
    vsize += BigInt(view.tx(d)!.vsize);
  }
  return { fee, vsize };
}

/**
 * The next transaction to trim at minimum fee `minFee` (sat/vB): the mempool transaction with the lowest
 * descendant score, when that score is below the minimum; undefined when none is.
 */
export function nextToTrim(view: PoolView, minFee: bigint): string | undefined {
  let worst: { id: string; fee: bigint; vsize: bigint } | undefined;
  for (const id of view.mempoolIds()) {
    const own = { fee: view.feeOf(id), vsize: BigInt(view.tx(id)!.vsize) };
    const pkg = withDescendants(view, id);
    const score = own.fee * pkg.vsize >= pkg.fee * own.vsize ? own : pkg; // the higher of the two rates
    if (score.fee >= minFee * score.vsize) continue;
    if (!worst || score.fee * worst.vsize < worst.fee * score.vsize) worst = { id, ...score };
  }
  return worst?.id;
}

/**
 * The transactions a block at clearing rate `clearing` (sat/vB) mines, parents first: each due mempool
 * transaction whose package with its unmined ancestors (all due) pays at least `clearing`, repeated until none
 * is added.
 *
 * @param due whether a mempool transaction may be mined in this block (the schedule's `stuck` faults)
 */
export function assembleBlock(view: PoolView, clearing: bigint, due: (txid: string) => boolean): string[] {
  const picked: string[] = [];
  const inBlock = new Set<string>();
  for (let progress = true; progress;) {
    progress = false;
    for (const id of view.mempoolIds()) {
      if (inBlock.has(id) || !due(id)) continue;
      const ancestors = unminedAncestors(view, view.tx(id)!, inBlock);
      if (ancestors === null || !ancestors.every(due)) continue;
      const pkg = [...ancestors, id];
      const fee = pkg.reduce((s, t) => s + view.feeOf(t), 0n);
      const vsize = pkg.reduce((s, t) => s + BigInt(view.tx(t)!.vsize), 0n);
      if (fee < clearing * vsize) continue;
      for (const t of pkg) {
        inBlock.add(t);
        picked.push(t);
      }
      progress = true;
    }
  }
  return picked;
}
