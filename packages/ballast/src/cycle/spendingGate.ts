/**
 * The spending-limit gate of the pipeline: reads what the pure check needs — the
 * kill-switch file, the rolling history of signed transfers, the asset decimals of each origin chain — and asks
 * src/policy/spendingLimits.ts whether a transfer may be signed. Only configured wallets may ever receive
 * (`policy.limits.allowedRecipients` narrows that to a subset).
 *
 * Notional caps are whole units summed over every origin chain of an asset. The decimals of an asset can differ
 * per chain, so amounts are normalised to whole units × 10^18 before they are added (exact for up to 18
 * decimals; above that the normalised amount is rounded up, so a cap is never under-counted).
 */
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parseUnits } from 'viem';
import type { PlannedTransfer } from '../planner/types.ts';
import { checkSpendingLimits, type SpendingLimits, type SpendingLimitsReturnType } from '../policy/spendingLimits.ts';
import { readSpendingHistory } from '../store/spendingHistory.ts';
import type { CycleContext } from './context.ts';

/** Decimal places of the normalised notional amounts (whole units × 10^18). */
export const NOTIONAL_DECIMALS = 18;

/** Decimals of `asset` on configured chain `chain`, or undefined when unknown. */
export type DecimalsOf = (asset: string, chain: string) => number | undefined;

/**
 * An amount of base units with `decimals` decimals as whole units × 10^{@link NOTIONAL_DECIMALS}; rounded up
 * when `decimals` is above 18.
 */
export function normaliseNotional(amount: bigint, decimals: number): bigint {
  if (decimals <= NOTIONAL_DECIMALS) return amount * 10n ** BigInt(NOTIONAL_DECIMALS - decimals);
  const divisor = 10n ** BigInt(decimals - NOTIONAL_DECIMALS);
  return (amount + divisor - 1n) / divisor;
}

/** The kill-switch file of the config (relative paths are relative to the config file), or undefined. */
export function killSwitchPath(ctx: Pick<CycleContext, 'config'>): string | undefined {
  const file = ctx.config.policy.limits?.killSwitchFile;
  if (file === undefined) return undefined;
  return isAbsolute(file) ? file : resolve(ctx.config.configDir, file);
}

/**
 * Whether execution is halted by the kill switch (config flag or file), checked at the start of a cycle so a
 * halted daemon does not even quote. The file is looked for on every call: removing it resumes without a
 * restart.
 *
 * @returns the refusal, or null when execution may go on
 */
export function killSwitchVerdict(
  ctx: Pick<CycleContext, 'config'>,
): { reason: 'kill_switch' | 'kill_switch_file'; detail: string } | null {
  const verdict = checkSpendingLimits({
    limits: { killSwitch: ctx.config.policy.limits?.killSwitch, killSwitchFilePresent: killSwitchFilePresent(ctx) },
    history: { notional24h: new Map(), feesUsd24hMicros: 0n, transfersLastHour: 0 },
    transfer: { asset: '', amountIn: 0n, amountUsd: null, feesUsd: '0', recipient: '' },
  });
  if (verdict.ok || (verdict.reason !== 'kill_switch' && verdict.reason !== 'kill_switch_file')) return null;
  return { reason: verdict.reason, detail: withPath(ctx, verdict.detail) };
}

function killSwitchFilePresent(ctx: Pick<CycleContext, 'config'>): boolean {
  const path = killSwitchPath(ctx);
  return path !== undefined && existsSync(path);
}

function withPath(ctx: Pick<CycleContext, 'config'>, detail: string): string {
  const path = killSwitchPath(ctx);
  return path === undefined ? detail : detail.replace('(policy.limits.killSwitchFile)', `(policy.limits.killSwitchFile: ${path})`);
}

/**
 * Checks one transfer against every spending limit, just before anything is signed for it.
 *
 * @param input.planned the planned transfer (asset, amountIn in origin base units, recipient)
 * @param input.amountUsd the quote's `details.currencyIn.amountUsd` (USD decimal string) or null
 * @param input.feesUsd the transfer's total fees, USD decimal string
 * @param input.decimalsOf decimals of an asset per configured chain (this cycle's resolved targets)
 * @returns a Promise of `{ok: true}` or of the first limit hit with a detail naming the config field
 * @throws StoreValueError when the stored history is malformed
 */
export async function spendingVerdict(
  ctx: Pick<CycleContext, 'config' | 'db' | 'now' | 'wallets'>,
  input: { planned: PlannedTransfer; amountUsd: string | null; feesUsd: string; decimalsOf: DecimalsOf },
): Promise<SpendingLimitsReturnType> {
  const cfg = ctx.config.policy.limits;
  const { planned } = input;
  const history = await readSpendingHistory(ctx.db, { nowMs: ctx.now() });
  const notional24h = new Map<string, bigint>();
  for (const [asset, chains] of history.notional24hByOrigin) {
    let sum = 0n;
    for (const [chain, amount] of chains) {
      const decimals = asset === planned.asset && chain === planned.from.chain ? planned.from.decimals : input.decimalsOf(asset, chain);
      if (decimals === undefined) {
        if (cfg?.dailyNotional?.[asset] === undefined) continue;
        return {
          ok: false,
          reason: 'daily_notional',
          detail: `policy.limits.dailyNotional.${asset}: ${amount} base units were spent from chain ${chain} in 24 h and its decimals are unknown this cycle, so the cap cannot be checked; it fails closed until they age out of the window`,
        };
      }
      sum += normaliseNotional(amount, decimals);
    }
    notional24h.set(asset, sum);
  }
  const dailyNotional = new Map(
    Object.entries(cfg?.dailyNotional ?? {}).map(([asset, whole]) => [asset, parseUnits(whole, NOTIONAL_DECIMALS)] as const),
  );
  const recipients = cfg?.allowedRecipients ?? [...ctx.wallets.keys()];
  const limits: SpendingLimits = {
    killSwitch: cfg?.killSwitch,
    killSwitchFilePresent: killSwitchFilePresent(ctx),
    allowedRecipients: new Set(recipients.flatMap((name) => ctx.wallets.get(name)?.address ?? [])),
    ...(cfg?.maxTransferUsd !== undefined ? { maxTransferUsd: cfg.maxTransferUsd } : {}),
    ...(cfg?.dailyFeesUsd !== undefined ? { dailyFeesUsd: cfg.dailyFeesUsd } : {}),
    ...(cfg?.maxTransfersPerHour !== undefined ? { maxTransfersPerHour: cfg.maxTransfersPerHour } : {}),
    dailyNotional,
    notionalDecimals: NOTIONAL_DECIMALS,
  };
  const verdict = checkSpendingLimits({
    limits,
    history: { notional24h, feesUsd24hMicros: history.feesUsd24hMicros, transfersLastHour: history.transfersLastHour },
    transfer: {
      asset: planned.asset,
      amountIn: normaliseNotional(planned.amountIn, planned.from.decimals),
      amountUsd: input.amountUsd,
      feesUsd: input.feesUsd,
      recipient: planned.to.address,
    },
  });
  return verdict.ok ? verdict : { ...verdict, detail: withPath(ctx, verdict.detail) };
}
