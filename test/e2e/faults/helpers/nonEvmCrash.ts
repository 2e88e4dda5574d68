/**
 * SIGKILL cases for Bitcoin- and Solana-origin transfers (BTC bitcoin → WBTC alpha, USDC solana → USDC alpha):
 * `ballast run --once` (the real CLI in a child process) killed by `BALLAST_CRASH_AT` at a money-path boundary,
 * then plain `run --once` runs as cron would (Bitcoin: one block mined by the test before each and, but for
 * `cancel:written`, one whenever the mempool holds a transaction while a run runs, as a chain would) until nothing
 * is in flight and the need is paid. Judged on the chains, never on what Ballast reports: the depository payments
 * (`listPayments`) or depository deposits (`listDeposits`) made since the case started, the treasury's balance on
 * the origin chain, and the store's transfers.
 *
 * `cancel:written` (Bitcoin only) is reached as it happens in production: the deposit's broadcast is lost (the
 * node answers and keeps nothing), its order deadline passes in real time (a short `bitcoinQuoteDeadlineSec` with
 * `chains.bitcoin.minDeadlineLeadSec` lowered to match), and the next run writes a replacement ahead and dies.
 */
import { vi } from 'vitest';
import { DEFAULT_BVM_REORG_DEPTH } from '../../../../packages/ballast/src/config/chainSchema.ts';
import { sandboxEnv } from '../../../../packages/ballast/src/cli/sandboxEnv.ts';
import { ABSENCE_RECHECK_MS } from '../../../../packages/ballast/src/cycle/reconcile.ts';
import type { Sandbox } from '../../../../packages/sandbox/src/startSandbox.ts';
import type { StoreDb } from '../../../../packages/ballast/src/store/db.ts';
import { listInFlightTransfers, listRecentTransfers, type TransferRow } from '../../../../packages/ballast/src/store/transfers.ts';
import { NON_EVM_CONFIG, oneTransferTreasury } from '../../nonEvm/treasury.ts';
import { recoverUntil } from './caseAudit.ts';
import { runOnce, runOnceInProcess, type ChildExit } from './cliChild.ts';
import { storeState, type RecoveryRuns, type StoreState } from './crashCase.ts';

/** The origin chain of a case. */
export type NonEvmOrigin = 'bitcoin' | 'solana';

/** Amount of one case's need, base units: 0.1 BTC (satoshis) or 1 000 USDC (6 decimals). */
export const NEED_OF: Record<NonEvmOrigin, bigint> = { bitcoin: 10_000_000n, solana: 1_000_000_000n };

/** Satoshis the Bitcoin adapter keeps for miner fees (NON_EVM_CONFIG's `minerFeeReserveSats`). */
const BITCOIN_RESERVE_SATS = 100_000n;

/** The sandbox's default Bitcoin-origin quote deadline, seconds (restored after the short one of `cancel:written`). */
export const BITCOIN_DEADLINE_SEC = 3_600;
/** Deadline of the deposit `cancel:written` lets lapse, seconds: long enough to quote, verify and sign with the lowered lead. */
export const SHORT_DEADLINE_SEC = 8;
/** `chains.bitcoin.minDeadlineLeadSec` of every Bitcoin case, seconds (the sandbox mines on demand). */
const BITCOIN_LEAD_SEC = 2;

/**
 * The kill targets per origin: the deposit's `tx:*` boundaries (a non-EVM transfer has one item, the deposit)
 * and, for Bitcoin, the replacement of an unwanted deposit written ahead.
 */
export const NON_EVM_TARGETS: Record<NonEvmOrigin, readonly string[]> = {
  bitcoin: ['tx:signed#1', 'tx:written#1', 'tx:sent#1', 'tx:recorded-sent#1', 'cancel:written'],
  solana: ['tx:signed#1', 'tx:written#1', 'tx:sent#1', 'tx:recorded-sent#1'],
};

/** The store right after the kill, with the replacements recorded (`cancels`). */
export interface NonEvmStoreState extends StoreState {
  cancels: string[];
}

/** The store right after a kill at each target. */
export const NON_EVM_STATE_AT_KILL: Record<string, NonEvmStoreState> = {
  'tx:signed#1': { transfer: null, txs: [], cancels: [] },
  'tx:written#1': { transfer: 'prepared', txs: ['signed'], cancels: [] },
  'tx:sent#1': { transfer: 'prepared', txs: ['signed'], cancels: [] },
  'tx:recorded-sent#1': { transfer: 'broadcast', txs: ['sent'], cancels: [] },
  // The deposit was sent (and lost by the node); its replacement is written ahead, not broadcast.
  'cancel:written': { transfer: 'broadcast', txs: ['sent'], cancels: ['signed'] },
};

/** One payment of the treasury into the origin chain's depository. */
export interface OriginPayment {
  /** Bitcoin txid or Solana signature. */
  txId: string;
  /** Satoshis or USDC base units. */
  amount: bigint;
}

/** Every payment of the treasury into the depository of `origin` so far, oldest first. */
export function originPayments(s: Sandbox, origin: NonEvmOrigin): OriginPayment[] {
  if (origin === 'bitcoin') return s.bitcoin!.node.listPayments(s.bitcoin!.depository).map((p) => ({ txId: p.txid, amount: p.value }));
  const sol = s.solana!;
  return sol.node
    .listDeposits()
    .filter((d) => d.sender === sol.treasury.address)
    .map((d) => ({ txId: d.signature, amount: d.event.amount }));
}

/** Everything a non-EVM crash case saw. */
export interface NonEvmCaseResult {
  /** The runs before the kill that were meant to complete (`cancel:written`: the run whose deposit is lost). */
  setup: ChildExit[];
  kill: ChildExit;
  stateAtKill: NonEvmStoreState;
  recoveries: ChildExit[];
  /** Depository payments by the treasury made during the case. */
  payments: OriginPayment[];
  transfers: TransferRow[];
  inFlight: TransferRow[];
  /** The origin holding's balance before the case and now (satoshis, or USDC base units). */
  fromBefore: bigint;
  fromAfter: bigint;
  /** The destination (alpha) holding's balance before the case and now. */
  toBefore: bigint;
  toAfter: bigint;
  /** Solana only: the treasury's lamports before and now. */
  lamportsBefore: bigint | null;
  lamportsAfter: bigint | null;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Runs one case on a sandbox shared by the file (started with `{ solana: true, bitcoin: true, bitcoinBlockMs: 0 }`),
 * with a fresh config and store wired by `oneTransferTreasury` (bands set so exactly one transfer of
 * {@link NEED_OF} is needed from `origin` to alpha).
 *
 * @param target a `BALLAST_CRASH_AT` value from {@link NON_EVM_TARGETS}
 * @param budgetMs how long the recovery runs may take from the kill
 * @param recovery how the recovery runs are made (child processes by default; `RecoveryRuns`, crashCase.ts); the
 *   setup run and the killed run are always child processes
 */
export async function crashNonEvm(
  s: Sandbox,
  dir: string,
  origin: NonEvmOrigin,
  target: string,
  budgetMs: number,
  recovery: RecoveryRuns = 'process',
): Promise<NonEvmCaseResult> {
  const btc = origin === 'bitcoin' ? s.bitcoin!.node : null;
  if (btc && btc.mempoolTxids().length > 0) btc.mine(1); // a previous case's leftovers never count in this one
  s.setFaults({ bitcoinQuoteDeadlineSec: BITCOIN_DEADLINE_SEC });
  const chains = NON_EVM_CONFIG.chains as Record<string, Record<string, unknown>>;
  const t = await oneTransferTreasury(s, dir, {
    asset: origin === 'bitcoin' ? 'BTC' : 'USDC',
    from: origin,
    to: 'alpha',
    amount: NEED_OF[origin],
    ...(origin === 'bitcoin' ? { reserve: BITCOIN_RESERVE_SATS } : {}),
    chains: { ...chains, bitcoin: { ...chains.bitcoin, inclusionWaitSec: 1, minDeadlineLeadSec: BITCOIN_LEAD_SEC } },
    tracking: { pollMs: 200, timeoutSec: 10 },
  });
  const lamports = () => (origin === 'solana' ? s.solana!.node.balance(s.solana!.treasury.address) : null);
  const lamportsBefore = lamports();
  const paidBefore = new Set(originPayments(s, origin).map((p) => p.txId));
  const env = sandboxEnv(s, t.store);
  try {
    const setup: ChildExit[] = [];
    if (target === 'cancel:written') {
      // The deposit is sent and lost, then its short deadline passes with it unknown to the node.
      s.setFaults({ bitcoinQuoteDeadlineSec: SHORT_DEADLINE_SEC });
      btc!.dropNextBroadcasts(1);
      setup.push(await runOnce(t.configFile, env));
      const quotedBy = setup[0]!.exitedAtMs; // the lapsing quote was asked for before this run ended
      s.setFaults({ bitcoinQuoteDeadlineSec: BITCOIN_DEADLINE_SEC }); // the need is quoted again at the usual deadline
      await sleep(Math.max(0, quotedBy + (SHORT_DEADLINE_SEC + 1) * 1000 - Date.now())); // past its deadline
    }
    const kill = await runOnce(t.configFile, { ...env, BALLAST_CRASH_AT: target });
    const newest = (await listRecentTransfers(t.ballast.db, 1))[0];
    const stateAtKill: NonEvmStoreState = {
      ...(await storeState(t.ballast.db)),
      cancels: newest ? newest.cancels.map((c) => c.status) : [],
    };

    const recoveries: ChildExit[] = [];
    // Recovery runs in this process share its clock: the wait for the second proof of absence (`cancel:written`)
    // moves this process's Date ahead (faked from then on, still advancing) instead of sleeping ABSENCE_RECHECK_MS.
    // Child runs wait in real time.
    let faked = false;
    const waitRecheck = async (ms: number): Promise<void> => {
      if (recovery === 'process') return sleep(ms); // a child has its own clock
      if (!faked) vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
      faked = true;
      vi.setSystemTime(Date.now() + ms);
    };
    try {
      await recoverUntil({
        faultAtMs: kill.exitedAtMs,
        budgetMs,
        step: async () => {
          await untilRecheckDue(t.ballast.db, waitRecheck);
          // Whatever the last run sent gets its block; a replacement is proven only at the reorg depth, so the
          // `cancel:written` case mines that many at once rather than spend one run per block.
          btc?.mine(target === 'cancel:written' ? DEFAULT_BVM_REORG_DEPTH : 1);
          // A deposit sent by this run is mined while it waits for it, so the run can track it to the end.
          const miner = btc && target !== 'cancel:written' ? setInterval(() => btc.mempoolTxids().length > 0 && btc.mine(1), 250) : null;
          try {
            recoveries.push(await (recovery === 'process' ? runOnce : runOnceInProcess)(t.configFile, env));
          } finally {
            if (miner) clearInterval(miner);
          }
        },
        done: async () => {
          if ((await listInFlightTransfers(t.ballast.db)).length > 0) return false;
          return (await listRecentTransfers(t.ballast.db, 1))[0]?.status === 'success';
        },
      });
    } finally {
      if (faked) vi.useRealTimers();
    }
    const transfers = await listRecentTransfers(t.ballast.db, 100);
    return {
      setup,
      kill,
      stateAtKill,
      recoveries,
      payments: originPayments(s, origin).filter((p) => !paidBefore.has(p.txId)),
      transfers,
      inFlight: await listInFlightTransfers(t.ballast.db),
      fromBefore: t.fromBefore,
      fromAfter: await t.from.balance(),
      toBefore: t.toBefore,
      toAfter: await t.to.balance(),
      lamportsBefore,
      lamportsAfter: lamports(),
    };
  } finally {
    await t.ballast.close();
  }
}

/**
 * Waits, through `wait` (a sleep, or the clock moved ahead), until the first proof of absence of every transfer in
 * flight is ABSENCE_RECHECK_MS old (the `cancel:written` case): a run before then only repeats it, so the runs are not
 * spent on waiting (the run after the wait checks again).
 */
async function untilRecheckDue(db: StoreDb, wait: (ms: number) => Promise<void>): Promise<void> {
  const proofs = (await listInFlightTransfers(db)).flatMap((t) => (t.absenceProof ? [t.absenceProof.atMs] : []));
  const waitMs = proofs.length > 0 ? Math.max(...proofs) + ABSENCE_RECHECK_MS - Date.now() : 0;
  if (waitMs > 0) await wait(waitMs);
}

/** Miner fee a Bitcoin transaction record carries (`request.fee`, satoshis, written by the adapter when it signed). */
export function minerFeeSats(tx: { request: unknown }): bigint {
  const fee = (tx.request as { fee?: unknown } | null)?.fee; // bvmTxRecord writes fee as a decimal string
  if (typeof fee !== 'string') throw new Error(`the Bitcoin transaction record has no fee: ${JSON.stringify(tx.request)}`);
  return BigInt(fee);
}

/**
 * Lamports the Solana transaction `signature` took from its fee payer (`getTransaction` → `meta.preBalances[0]`
 * less `meta.postBalances[0]`): the fee, priority fee included, plus the rent of any account it created.
 *
 * @param payer the expected fee payer (base58)
 * @throws Error when the node does not know the transaction, or its fee payer is not `payer`
 */
export async function solanaPaidLamports(s: Sandbox, signature: string, payer: string): Promise<bigint> {
  const res = await fetch(s.solana!.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'getTransaction',
      params: [signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }],
    }),
  });
  type Landed = { meta: { preBalances: number[]; postBalances: number[] }; transaction: { message: { accountKeys: string[] } } };
  const body = (await res.json()) as { result: Landed | null };
  if (!body.result) throw new Error(`the Solana node does not know transaction ${signature}`);
  const { meta, transaction } = body.result;
  if (transaction.message.accountKeys[0] !== payer)
    throw new Error(`transaction ${signature} is paid by ${transaction.message.accountKeys[0]}, not ${payer}`);
  return BigInt(meta.preBalances[0]!) - BigInt(meta.postBalances[0]!);
}

/** How long the `cancel:written` case needs at least: the lapsed deadline, the reorg depth in blocks, two absence proofs. */
export const CANCEL_CASE_MIN_MS = (SHORT_DEADLINE_SEC + 1) * 1000 + ABSENCE_RECHECK_MS;
