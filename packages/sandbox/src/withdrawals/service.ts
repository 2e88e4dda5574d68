/**
 * The sandbox's withdrawal endpoints (docs/relay-contract.md "Withdrawal endpoints", "Withdrawal job status", "Errors",
 * "Limits"): attest a deposit into the hub, prepare and execute a signed withdrawal, poll its job, and the
 * admin view of hub balances. State is in memory; time comes from `state.nowMs`; jobs advance lazily when
 * read (status, hub balances, a new request for the same balance), so no timer runs.
 */
import { randomUUID } from 'node:crypto';
import type { Address, Hex } from 'viem';
import { z } from 'zod';
import { withdrawalDigest } from '@ballast/protocol/protocol/withdrawalDigest.ts';
import { sameWallet } from '../api/requestStore.ts';
import type { RouteResult } from '../api/routes.ts';
import type { SandboxState } from '../api/state.ts';
import { randomBytes32 } from '../quote/buildQuote.ts';
import { lower } from '../quote/chainTable.ts';
import { SandboxApiError } from '../quote/errors.ts';
import { findAnyChain, isEvmChain, vmTypeOf } from '../quote/vmChains.ts';
import { depositWithdrawability } from './eligibility.ts';
import { HubLedger, type HubKey } from './hubLedger.ts';
import { FINAL_JOB_STATUSES, jobStatusBody, progressStatus, type JobOutcome, type WithdrawalJob } from './jobs.ts';
import { isLiveNonce, nonceTupleKey, withdrawalNonce, type NonceTuple } from './nonce.ts';
import { verifyOwnerSignature } from './ownerSignature.ts';
import { buildReadyTransaction } from './readyTransaction.ts';
import { BITCOIN_REFUSAL, executeFields, resolveWithdrawalRequest, type ResolvedWithdrawal } from './requestBody.ts';

/** Timing options (sandbox option `withdrawals`), milliseconds. */
export interface WithdrawalOptions {
  /** One job step (processing → initiating → attesting → ready); default 1000. */
  stepMs?: number;
  /** Shortest interval between two status polls of one job id before 429; default 5000. */
  minPollMs?: number;
  /** How long a `ready` transaction stays executable; default 600 000 (10 min). */
  readyTtlMs?: number;
}

/** What the service needs besides the shared state. */
export interface WithdrawalServiceDeps {
  state: SandboxState;
  /** Reads the depository's `callRequests(id)` on an EVM chain: true once the call request was executed. */
  readCallRequest(chainId: number, depository: Address, id: Hex): Promise<boolean>;
  options?: WithdrawalOptions;
}

/** The endpoints; each returns `{status, body}` or throws SandboxApiError (400, 429, 503). */
export interface WithdrawalService {
  /** POST /withdrawals/attest-deposit. */
  attest(body: unknown): Promise<RouteResult>;
  /** POST /withdrawals/request (prepare without `signature`, execute with it). */
  request(body: unknown): Promise<RouteResult>;
  /** GET /withdrawals/status?id=. */
  status(query: URLSearchParams): Promise<RouteResult>;
  /** GET /_sandbox/hub-balances: `{balances: [{chain, owner, currency, amount, locked}]}` (amounts decimal strings). */
  hubBalances(): Promise<RouteResult>;
}

/** Job status entries are kept this long (docs/relay-contract.md "Limits": 24 hours). */
export const JOB_RETENTION_MS = 86_400_000;

const AttestBodySchema = z.object({
  chainId: z.number({ error: 'expected the numeric chain id of the deposit chain' }).int().positive(),
  transactionId: z.string({ error: 'expected the deposit transaction hash' }).min(1, 'expected the deposit transaction hash'),
});

const ok = (body: unknown): RouteResult => ({ status: 200, body });
const bad = (message: string) => new SandboxApiError(400, null, message);

/** Creates the service. */
export function createWithdrawalService(deps: WithdrawalServiceDeps): WithdrawalService {
  const { state } = deps;
  const stepMs = deps.options?.stepMs ?? 1000;
  const minPollMs = deps.options?.minPollMs ?? 5000;
  const readyTtlMs = deps.options?.readyTtlMs ?? 600_000;
  const log = state.logger.child({ component: 'sandbox-withdrawals' });
  const ledger = new HubLedger();
  const secret = randomBytes32();
  const jobs = new Map<string, WithdrawalJob>();
  const generations = new Map<string, number>();
  const lastPoll = new Map<string, number>();
  const refreshing = new Map<string, Promise<void>>();
  const vmChains = () => state.vm?.chains ?? [];

  /** Ends a job before execution: the locked amount goes back to the hub. */
  function giveBack(job: WithdrawalJob, status: 'expired' | 'failed', reason?: string): void {
    ledger.unlock(job.key, job.amount);
    job.status = status;
    if (reason !== undefined) job.reason = reason;
    log.info({ jobId: job.id, status, reason }, 'withdrawal job ended; amount back in the hub');
  }

  async function advance(job: WithdrawalJob): Promise<void> {
    if (FINAL_JOB_STATUSES.has(job.status)) return;
    const nowMs = state.nowMs(); // read before the chain: a later block has a later timestamp than this
    if (job.status !== 'ready') {
      const progress = progressStatus(job.createdAtMs, nowMs, stepMs);
      if (progress !== 'due') {
        job.status = progress;
        return;
      }
      if (job.outcome === 'fail') return giveBack(job, 'failed', 'withdrawal failed in the sandbox (fault withdrawalFail)');
      if (job.outcome === 'expire') return giveBack(job, 'expired');
      if (job.evm === null) return giveBack(job, 'failed', 'the sandbox builds EVM withdrawal transactions only');
      const expirationSec = BigInt(Math.floor((nowMs + readyTtlMs) / 1000));
      const built = await buildReadyTransaction({
        allocator: state.solver,
        ...job.evm,
        amount: job.amount,
        expirationSec,
        nonce: randomBytes32(),
      });
      job.ready = { ...built, expirationSec };
      job.status = 'ready';
      log.info({ jobId: job.id, callRequestId: built.callRequestId }, 'withdrawal job ready');
      return;
    }
    const ready = job.ready;
    if (!ready || job.evm === null) return; // `ready` is only reached with both set
    if (await deps.readCallRequest(job.evm.chainId, job.evm.depository, ready.callRequestId)) {
      ledger.consume(job.key, job.amount);
      job.status = 'executed';
      log.info({ jobId: job.id }, 'withdrawal executed by its owner');
      return;
    }
    if (BigInt(Math.floor(nowMs / 1000)) > ready.expirationSec) giveBack(job, 'expired');
  }

  /** Advances a job, one refresh at a time per job. */
  function refresh(job: WithdrawalJob): Promise<void> {
    let p = refreshing.get(job.id);
    if (!p) {
      p = advance(job).finally(() => refreshing.delete(job.id));
      refreshing.set(job.id, p);
    }
    return p;
  }

  const sameKey = (a: HubKey, b: HubKey) => a.chain === b.chain && a.owner === b.owner && a.currency === b.currency;
  const jobsOf = (key: HubKey) => [...jobs.values()].filter((j) => sameKey(j.key, key));

  /** Drops finished jobs older than the retention, and poll times as old. */
  async function sweep(nowMs: number): Promise<void> {
    for (const job of [...jobs.values()]) {
      if (nowMs - job.createdAtMs < JOB_RETENTION_MS) continue;
      await refresh(job);
      if (FINAL_JOB_STATUSES.has(job.status)) jobs.delete(job.id);
    }
    for (const [id, at] of lastPoll) if (nowMs - at >= JOB_RETENTION_MS) lastPoll.delete(id);
  }

  function checkAmount(w: ResolvedWithdrawal, key: HubKey): void {
    const available = ledger.available(key);
    if (w.amount > available) {
      throw bad(
        `amount ${w.amount} is above the available hub balance ${available} of ${w.owner} in ${w.currency} on ${w.chain.slug}; ` +
          'attest the deposit first (POST /withdrawals/attest-deposit) or ask for less',
      );
    }
  }

  /** The job in flight for `key` (after bringing its jobs up to date), if any. */
  async function jobInFlight(key: HubKey): Promise<WithdrawalJob | undefined> {
    await Promise.all(jobsOf(key).map(refresh));
    return jobsOf(key).find((j) => !FINAL_JOB_STATUSES.has(j.status));
  }

  function inProgress(w: ResolvedWithdrawal, busy: WithdrawalJob): RouteResult {
    return {
      status: 409,
      body: {
        message: `a withdrawal of ${w.currency} for ${w.owner} on ${w.chain.slug} is in flight; poll job ${busy.id}`,
        errorCode: 'WITHDRAWAL_IN_PROGRESS',
        existingJobId: busy.id,
      },
    };
  }

  async function execute(w: ResolvedWithdrawal, key: HubKey, tuple: NonceTuple): Promise<RouteResult> {
    const { nonce, signature } = executeFields(w.body);
    // A second request while a job is in flight is a 409 whatever it carries (docs/relay-contract.md "Withdrawal
    // endpoints"): a client that re-sends its execute after a crash learns the job it already started.
    const inFlightFirst = await jobInFlight(key);
    if (inFlightFirst) return inProgress(w, inFlightFirst);
    const generation = generations.get(nonceTupleKey(tuple)) ?? 0;
    if (!isLiveNonce(secret, tuple, generation, state.nowMs(), nonce)) {
      throw bad('nonce: stale, already used or not issued for this chain, owner, currency and recipient; call prepare again');
    }
    const b = w.body;
    const digest = withdrawalDigest({
      chainId: b.chainId,
      currency: b.currency,
      amount: b.amount,
      ownerChainId: b.ownerChainId,
      owner: b.owner,
      recipient: b.recipient,
      nonce,
    });
    if (!(await verifyOwnerSignature({ family: w.ownerVm, owner: b.owner, digest, signature }))) {
      const how =
        w.ownerVm === 'evm' ? 'an EIP-191 personal message over the raw 32 digest bytes' : 'ed25519 over the UTF-8 hex digest text';
      throw bad(`signature: not ${b.owner}'s signature of withdrawal digest ${digest} (expected ${how}); sign exactly the fields sent`);
    }
    const busy = await jobInFlight(key);
    // from here to the job's creation nothing awaits: the in-flight check and the lock are atomic
    if (busy) return inProgress(w, busy);
    if (generation !== (generations.get(nonceTupleKey(tuple)) ?? 0)) throw bad('nonce: already used; call prepare again');
    checkAmount(w, key);
    ledger.lock(key, w.amount);
    generations.set(nonceTupleKey(tuple), generation + 1);
    const job: WithdrawalJob = {
      id: randomUUID(),
      key,
      amount: w.amount,
      evm: isEvmChain(w.chain)
        ? { chainId: w.chain.chainId, depository: w.chain.depository, currency: w.currency as Address, recipient: w.recipient as Address } // EVM-normalised by resolveWithdrawalRequest
        : null,
      createdAtMs: state.nowMs(),
      outcome: takeOutcome(),
      status: 'processing',
    };
    jobs.set(job.id, job);
    log.info(
      { jobId: job.id, chain: key.chain, owner: key.owner, currency: key.currency, amount: w.amount.toString(), outcome: job.outcome },
      'withdrawal job created',
    );
    return ok({ jobId: job.id, status: 'processing' });
  }

  /** Consumes one `withdrawalFail`, else one `withdrawalExpire` fault. */
  function takeOutcome(): JobOutcome {
    const f = state.faults.get();
    if ((f.withdrawalFail ?? 0) > 0) {
      state.faults.set({ withdrawalFail: (f.withdrawalFail ?? 0) - 1 });
      return 'fail';
    }
    if ((f.withdrawalExpire ?? 0) > 0) {
      state.faults.set({ withdrawalExpire: (f.withdrawalExpire ?? 0) - 1 });
      return 'expire';
    }
    return 'normal';
  }

  return {
    async attest(raw) {
      const parsed = AttestBodySchema.safeParse(raw);
      if (!parsed.success) {
        const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`);
        throw bad(`Invalid body: ${issues.join('; ')}; send {chainId: number, transactionId: string}`);
      }
      const { chainId, transactionId } = parsed.data;
      const faults = state.faults.get();
      if ((faults.attestUnavailable ?? 0) > 0) {
        state.faults.set({ attestUnavailable: (faults.attestUnavailable ?? 0) - 1 });
        throw new SandboxApiError(503, null, `deposit ${transactionId} is not yet finalized; retry shortly`);
      }
      const chain = findAnyChain(state.chains, vmChains(), chainId);
      if (!chain) throw bad(`chainId ${chainId} is not a sandbox chain; see GET /chains`);
      if (vmTypeOf(chain) === 'bvm') throw bad(BITCOIN_REFUSAL);
      const records = state.requests.all().filter((r) => r.deposit?.chainId === chainId && sameWallet(r.deposit.txHash, transactionId));
      if (records.length === 0) {
        throw bad(`transaction ${transactionId} on chain ${chainId} holds no depository deposit the sandbox indexed; check the hash`);
      }
      const nowMs = state.nowMs();
      const reasons: string[] = [];
      let attested = 0;
      for (const r of records) {
        const deposit = r.deposit;
        if (deposit === null) continue; // filtered above
        if (r.depositClaim === 'withdrawal') {
          attested++; // idempotent: credited once already
          continue;
        }
        const verdict = depositWithdrawability(r, nowMs, faults.unfilledWithdrawableAfterMs ?? null);
        if (!verdict.withdrawable) reasons.push(verdict.reason);
        else if (deposit.amount === 0n) reasons.push('the deposit is of 0 base units');
        else {
          state.requests.claimDeposit(r, 'withdrawal');
          const evm = isEvmChain(chain);
          const key = {
            chain: chain.slug,
            owner: evm ? lower(deposit.from) : deposit.from,
            currency: evm ? lower(deposit.currency) : deposit.currency,
          };
          ledger.credit(key, deposit.amount);
          attested++;
          log.info(
            { requestId: r.requestId, chainId, txHash: deposit.txHash, amount: deposit.amount.toString() },
            'deposit attested; credited to the hub',
          );
        }
      }
      if (attested === 0) throw bad(`deposit ${transactionId} on chain ${chainId} is not withdrawable: ${reasons.join('; ')}`);
      return ok({ success: true });
    },

    async request(raw) {
      const w = resolveWithdrawalRequest(raw, { table: state.chains, vm: vmChains() });
      const key: HubKey = { chain: w.chain.slug, owner: w.owner, currency: w.currency };
      const tuple: NonceTuple = { ...key, recipient: w.recipient };
      if (w.body.signature !== undefined || w.body.nonce !== undefined) return execute(w, key, tuple);
      await Promise.all(jobsOf(key).map(refresh));
      checkAmount(w, key);
      const nonce = withdrawalNonce(secret, tuple, generations.get(nonceTupleKey(tuple)) ?? 0, state.nowMs());
      return ok({ nonce, amount: offeredAmount(w.amount, state.faults.get().withdrawalShortfall ?? null).toString() });
    },

    async status(query) {
      const id = query.get('id');
      if (!id) throw bad('id query parameter is required: the jobId execute returned');
      const nowMs = state.nowMs();
      const last = lastPoll.get(id);
      if (last !== undefined && nowMs - last < minPollMs) {
        throw new SandboxApiError(
          429,
          null,
          `job ${id} polled again after ${nowMs - last} ms; poll at most every ${minPollMs} ms (about 15 s after a 429)`,
        );
      }
      lastPoll.set(id, nowMs);
      await sweep(nowMs);
      const job = jobs.get(id);
      if (!job) return ok({ status: 'processing' }); // unknown or evicted ids read as processing (docs/relay-contract.md)
      await refresh(job);
      return ok(jobStatusBody(job));
    },

    async hubBalances() {
      await Promise.all([...jobs.values()].map(refresh));
      const balances = ledger
        .list()
        .map((b) => ({ chain: b.chain, owner: b.owner, currency: b.currency, amount: b.amount.toString(), locked: b.locked.toString() }));
      return ok({ balances });
    },
  };
}

/**
 * What prepare offers for `asked` base units: all of it, or `shortfall` less (fault `withdrawalShortfall`,
 * floored at 0).
 */
export function offeredAmount(asked: bigint, shortfall: string | null): bigint {
  if (shortfall === null) return asked;
  const short = BigInt(shortfall);
  return asked > short ? asked - short : 0n;
}
