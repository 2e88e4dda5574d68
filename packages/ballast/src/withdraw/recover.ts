/**
 * One withdrawal pass (docs/withdrawals.md): picks the transfers whose deposit may need recovering
 * (src/withdraw/candidates.ts), resumes withdrawals under way, and for a new one checks that the owner's VM can
 * withdraw, reads the request record (GET /requests/v3), judges eligibility (src/withdraw/eligibility.ts),
 * writes the withdrawal ahead and drives it (src/withdraw/advance.ts). Used by the cycle when
 * `withdrawals.auto` is on (`recoverInCycle`) and by `ballast withdraw`.
 */
import { withdrawalSignerOf } from '../chains/capabilities.ts';
import { killSwitchVerdict } from '../cycle/spendingGate.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import type { CycleContext } from '../cycle/context.ts';
import { depositTxHash } from '../cycle/stalled.ts';
import type { ChainsResponse } from '@ballast/protocol/relay/schemas.ts';
import { listUnresolvedFailures } from '../store/failures.ts';
import { getTransfer, listInFlightTransfers, type TransferRow } from '../store/transfers.ts';
import {
  createRefusedWithdrawal,
  createWithdrawal,
  getWithdrawalOfTransfer,
  listOpenRemainders,
  listOpenWithdrawals,
  openRemainder,
  reopenWithdrawal,
  transferIdOfRequest,
  withdrawalsOfTransfers,
  type WithdrawalRow,
  type WithdrawalState,
} from '../store/withdrawals.ts';
import { depositoryOf, indexChains, type ChainsIndex } from '../verify/chainsIndex.ts';
import { advanceWithdrawal } from './advance.ts';
import { selectCandidates, type Candidate } from './candidates.ts';
import type { WithdrawalCheckpoint, WithdrawalDeps } from './deps.ts';
import { judgeEligibility, type WithdrawalFields } from './eligibility.ts';
import { WITHDRAWAL_REFUSAL_CODES, reasonCode, reasonText } from './errors.ts';

/** How a pass left one transfer. */
export type WithdrawalOutcome = 'executed' | 'failed' | 'refused' | 'pending' | 'not_withdrawable' | 'skipped';

/** One line of a pass report. Amounts are base-unit decimal strings. */
export interface WithdrawalReportItem {
  transferId: number;
  requestId: string | null;
  withdrawalId: number | null;
  outcome: WithdrawalOutcome;
  state: WithdrawalState | null;
  chain: string;
  amount: string;
  /** What executed jobs returned so far (base units; "0" before the first executes). */
  received: string;
  /** What is still open of a deposit that came back only in part (base units; "0" when none is). */
  remainder: string;
  jobId: string | null;
  txHash: string | null;
  /** Why it is not executed (yet), or what the withdrawal's last reason was. */
  reason: string | null;
}

/** Options of a pass. */
export interface RecoverOptions {
  /** GET /chains of this cycle (read again when absent). */
  chainsDoc?: ChainsResponse;
  /** Only this request (`ballast withdraw --request`): its transfer is looked at whatever its age, and a failed withdrawal of it reopened. */
  requestId?: string;
  /** Fault injection for tests (see WithdrawalDeps.checkpoint). */
  checkpoint?: (step: WithdrawalCheckpoint) => void;
}

/**
 * Runs one pass.
 *
 * @returns one report line per transfer looked at
 * @throws Error when `requestId` names no transfer of ours; Relay errors of GET /chains
 */
export async function recoverDeposits(ctx: CycleContext, opts: RecoverOptions = {}): Promise<WithdrawalReportItem[]> {
  const chains = indexChains(opts.chainsDoc ?? (await ctx.relay.getChains()).chains);
  const candidates = opts.requestId !== undefined ? await requested(ctx, opts.requestId) : await automatic(ctx);
  const report: WithdrawalReportItem[] = [];
  for (const c of candidates) {
    if (ctx.signal?.aborted) break;
    try {
      report.push(await recoverOne(ctx, chains, c, opts));
    } catch (error) {
      ctx.logger.error(
        { component: 'withdraw', transferId: c.transfer.id, err: shortErrorMessage(error) },
        'withdrawal pass failed for this transfer',
      );
      report.push(line(c.transfer, await getWithdrawalOfTransfer(ctx.db, c.transfer.id), 'pending', shortErrorMessage(error)));
    }
  }
  ctx.metrics.withdrawalsOpen.set((await listOpenWithdrawals(ctx.db)).length);
  ctx.metrics.withdrawalRemaindersOpen.set((await listOpenRemainders(ctx.db)).length);
  return report;
}

/**
 * The cycle's pass (src/cycle/runCycle.ts, after reconciliation): runs only when `withdrawals.auto` is on and the
 * cycle may sign; never throws (a failure is logged and the cycle goes on).
 */
export async function recoverInCycle(
  ctx: CycleContext,
  chainsDoc: ChainsResponse,
  mode: 'once' | 'daemon' | 'plan',
): Promise<WithdrawalReportItem[]> {
  if (mode === 'plan' || !ctx.config.withdrawals.auto) return [];
  const halted = killSwitchVerdict(ctx);
  if (halted) {
    // The kill switch halts every signature Ballast would make on its own; `ballast withdraw` stays available.
    ctx.logger.warn({ component: 'withdraw', reason: halted.reason }, `automatic withdrawals paused: ${halted.detail}`);
    return [];
  }
  try {
    return await recoverDeposits(ctx, { chainsDoc });
  } catch (error) {
    ctx.logger.error({ component: 'withdraw', err: shortErrorMessage(error) }, 'withdrawal pass failed; tried again next cycle');
    return [];
  }
}

async function automatic(ctx: CycleContext): Promise<Candidate[]> {
  const transfers = [...(await listInFlightTransfers(ctx.db)), ...(await listUnresolvedFailures(ctx.db))];
  const open = await listOpenWithdrawals(ctx.db);
  // A withdrawal under way is resumed even if its transfer is no longer in flight or unresolved.
  for (const w of open) if (!transfers.some((t) => t.id === w.transferId)) transfers.push((await getTransfer(ctx.db, w.transferId))!); // FK: the transfer exists
  const withdrawals = await withdrawalsOfTransfers(
    ctx.db,
    transfers.map((t) => t.id),
  );
  return selectCandidates(transfers, withdrawals, ctx.now(), ctx.config.withdrawals.unfilledAfterSec);
}

async function requested(ctx: CycleContext, requestId: string): Promise<Candidate[]> {
  const id = await transferIdOfRequest(ctx.db, requestId);
  const transfer = id === undefined ? undefined : await getTransfer(ctx.db, id);
  if (!transfer) throw new Error(`no transfer of ours has request id ${requestId}; see \`ballast history\``);
  return [{ transfer, withdrawal: await getWithdrawalOfTransfer(ctx.db, transfer.id), why: 'resume' }];
}

async function recoverOne(ctx: CycleContext, chains: ChainsIndex, c: Candidate, opts: RecoverOptions): Promise<WithdrawalReportItem> {
  const t = c.transfer;
  let w = c.withdrawal;
  const reopen = opts.requestId !== undefined && w?.state === 'failed';
  if (w && w.state === 'executed') return line(t, w, 'executed', null);
  if (w && reopen && !refusedBeforeAttest(w)) {
    // Past the eligibility check once: the record now says the deposit is hub balance (isWithdrawable false), and
    // attesting again is idempotent, so the withdrawal simply starts over.
    await reopenWithdrawal(ctx.db, w.id, ctx.now());
    w = (await getWithdrawalOfTransfer(ctx.db, t.id))!; // updated just above
  } else if (!w || reopen) {
    if (!w && t.status !== 'deposited' && !(t.status === 'failure' && t.resolvedAtMs === null)) {
      return line(
        t,
        w,
        'skipped',
        `transfer is ${t.status}${t.resolvedAtMs !== null ? ' (resolved)' : ''}: only a deposited or an unresolved failed transfer has a deposit to withdraw`,
      );
    }
    const started = await start(ctx, chains, t, w, opts);
    if ('outcome' in started) return started;
    w = started.withdrawal;
  }
  if (w.state === 'failed') return line(t, w, reasonOutcome(w), w.reason);
  const result = await advanceWithdrawal(depsFor(ctx, chains, w, opts), w.id);
  const end = result.withdrawal;
  if (end.state === 'executed') return line(t, end, 'executed', null);
  if (end.state === 'failed') return line(t, end, reasonOutcome(end), end.reason);
  return line(t, end, 'pending', result.pausedBecause ?? null);
}

/** Checks a transfer and writes its withdrawal ahead (or records why not); returns the row or a report line. */
async function start(
  ctx: CycleContext,
  chains: ChainsIndex,
  t: TransferRow,
  existing: WithdrawalRow | undefined,
  opts: RecoverOptions,
): Promise<{ withdrawal: WithdrawalRow } | WithdrawalReportItem> {
  const log = ctx.logger.child({ component: 'withdraw', transferId: t.id, requestId: t.requestId });
  const adapter = ctx.chains.get(t.originChain);
  if (!adapter) return line(t, existing, 'skipped', `chain ${t.originChain} is not configured any more`);
  const listed = chains.byId(t.originChainId);
  const slug = listed?.protocol?.v2?.chainId ?? '';
  const depositTx = depositTxHash(t) ?? '';
  const key = (v: string) => adapter.currencyKey(v);
  const wallet = [...ctx.wallets.values()].find((x) => x.vm === adapter.vm && key(x.address) === key(t.user))?.name ?? '';
  const described: WithdrawalFields = {
    chain: t.originChain,
    chainId: t.originChainId,
    chainSlug: slug,
    wallet,
    owner: t.user,
    recipient: t.user,
    currency: t.originCurrency,
    amount: t.amountIn,
    depositTx,
  };
  const refuse = async (reason: string): Promise<WithdrawalReportItem> => {
    log.error({ reason }, 'deposit not withdrawn');
    ctx.metrics.withdrawalsTotal.inc({ outcome: 'refused' });
    if (existing) return line(t, existing, 'refused', reason);
    const id = await createRefusedWithdrawal(ctx.db, {
      ...described,
      transferId: t.id,
      requestId: t.requestId ?? '',
      reason,
      nowMs: ctx.now(),
    });
    return line(t, (await getWithdrawalOfTransfer(ctx.db, t.id)) ?? null, 'refused', reason, id);
  };
  // Before any API call: an owner whose VM cannot sign a withdrawal (docs/relay-contract.md "Withdrawal endpoints": Bitcoin
  // and Lighter owners are rejected).
  if (!withdrawalSignerOf(adapter)) {
    const family = listed?.vmType ?? adapter.vm;
    return refuse(
      reasonText(
        'WITHDRAWAL_OWNER_UNSUPPORTED',
        `the deposit's owner ${t.user} is on ${t.originChain} (vmType ${family}): the Relay API rejects withdrawals by Bitcoin and Lighter owners (docs/relay-contract.md "Withdrawal endpoints"); recover this deposit with the service's support`,
      ),
    );
  }
  if (wallet === '')
    return refuse(
      reasonText('WITHDRAWAL_NOT_ELIGIBLE', `no configured ${adapter.vm} wallet has the address ${t.user} that made the deposit`),
    );
  if (slug === '')
    return line(t, existing, 'skipped', `GET /chains lists no protocol.v2.chainId for chain ${t.originChainId}; the withdrawal needs it`);
  if (depositTx === '' || t.requestId === null)
    return line(t, existing, 'skipped', 'the transfer records no deposit transaction or request id');
  let records;
  try {
    records = (await ctx.relay.getRequests({ id: t.requestId })).requests;
  } catch (error) {
    return line(t, existing, 'pending', `GET /requests/v3 failed: ${shortErrorMessage(error)}`);
  }
  const verdict = judgeEligibility(t, depositTx, records, { chain: t.originChain, wallet, chainSlug: slug, key });
  if (verdict.kind === 'not_withdrawable') {
    log.info({ why: verdict.why }, 'deposit not withdrawable (yet)');
    return line(t, existing, 'not_withdrawable', verdict.why);
  }
  if (verdict.kind === 'mismatch') return refuse(reasonText('WITHDRAWAL_NOT_ELIGIBLE', verdict.why));
  const nowMs = ctx.now();
  if (existing) await reopenWithdrawal(ctx.db, existing.id, nowMs, verdict.fields);
  else await createWithdrawal(ctx.db, { ...verdict.fields, transferId: t.id, requestId: t.requestId, nowMs });
  opts.checkpoint?.('created');
  log.warn({ amount: String(verdict.fields.amount), depositTx }, 'unfilled deposit is withdrawable; withdrawing it back to the treasury');
  return { withdrawal: (await getWithdrawalOfTransfer(ctx.db, t.id))! }; // written just above
}

function depsFor(ctx: CycleContext, chains: ChainsIndex, w: WithdrawalRow, opts: RecoverOptions): WithdrawalDeps {
  const adapter = ctx.chains.get(w.chain);
  if (!adapter) throw new Error(`withdrawal ${w.id} is on chain ${w.chain}, which is not configured any more`);
  const listed = chains.byId(w.chainId);
  return {
    db: ctx.db,
    relay: ctx.relay,
    adapter,
    depository: listed ? depositoryOf(listed) : undefined,
    config: ctx.config.withdrawals,
    now: ctx.now,
    sleep: ctx.sleep,
    logger: ctx.logger.child({ component: 'withdraw' }),
    metrics: ctx.metrics,
    notifyConfig: ctx.config.notify,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    ...(opts.checkpoint ? { checkpoint: opts.checkpoint } : {}),
  };
}

/** Whether a failed withdrawal was refused before anything was asked of the service (eligibility is checked again). */
function refusedBeforeAttest(w: WithdrawalRow): boolean {
  const code = reasonCode(w.reason);
  return w.attempts === 0 && (code === 'WITHDRAWAL_NOT_ELIGIBLE' || code === 'WITHDRAWAL_OWNER_UNSUPPORTED');
}

function reasonOutcome(w: WithdrawalRow): WithdrawalOutcome {
  const code = reasonCode(w.reason);
  return code !== undefined && WITHDRAWAL_REFUSAL_CODES.includes(code) ? 'refused' : 'failed';
}

function line(
  t: TransferRow,
  w: WithdrawalRow | undefined | null,
  outcome: WithdrawalOutcome,
  reason: string | null,
  id?: number,
): WithdrawalReportItem {
  return {
    transferId: t.id,
    requestId: t.requestId,
    withdrawalId: w?.id ?? id ?? null,
    outcome,
    state: w?.state ?? null,
    chain: t.originChain,
    amount: (w?.preparedAmount ?? w?.amount ?? t.amountIn).toString(),
    received: (w?.receivedAmount ?? 0n).toString(),
    remainder: (w ? openRemainder(w) : 0n).toString(),
    jobId: w?.jobId ?? null,
    txHash: w?.txHash ?? null,
    reason,
  };
}
