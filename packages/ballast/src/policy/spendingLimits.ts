/**
 * Spending limits: allow or refuse one transfer before anything is signed for it, from the configured limits
 * and the rolling history of what was already signed (store/spendingHistory.ts reads it).
 *
 * Pure: no clock, no I/O (the caller checks the kill-switch file and reads the history). Token amounts are
 * bigint base units; USD values are decimal strings compared as micro-USD bigints, never floating point.
 * Every limit passes at its exact boundary (`used + this transfer <= limit`).
 */
import { formatUnits } from 'viem';
import { BallastError } from '@ballast/protocol/core/errors.ts';
import { DECIMAL_STRING_RE, formatUsdMicros, parseUsdMicros, USD_MICROS_DECIMALS } from '@ballast/protocol/core/units.ts';

/** Where the limits live in the configuration; every refusal detail names its field under it. */
export const SPENDING_LIMITS_CONFIG_PATH = 'policy.limits';

/**
 * Configured limits. Every field is optional; an unset limit is not checked.
 */
export interface SpendingLimits {
  /** Cap on one transfer's USD value (`details.currencyIn.amountUsd`), non-negative decimal string, ≤ 6 decimals. */
  maxTransferUsd?: string;
  /**
   * Rolling 24 h cap on the amount sent per asset, in origin base units (callers convert whole units with the
   * asset's decimals). An asset without an entry has no daily cap.
   */
  dailyNotional?: ReadonlyMap<string, bigint>;
  /**
   * When the notional amounts (caps, history, `amountIn`) are whole units scaled by 10^notionalDecimals (the
   * caller normalised assets whose decimals differ per chain), refusal details show them as whole units.
   * Absent: they are base units and shown as such.
   */
  notionalDecimals?: number;
  /** Rolling 24 h budget for fees in USD, non-negative decimal string, ≤ 6 decimals. */
  dailyFeesUsd?: string;
  /** Cap on the number of transfers signed in the last hour, this one included; a non-negative integer. */
  maxTransfersPerHour?: number;
  /** Operator's kill switch in the configuration: true halts every transfer. */
  killSwitch?: boolean;
  /** Whether the kill-switch file exists (the caller looks); true halts every transfer. */
  killSwitchFilePresent?: boolean;
  /**
   * The only addresses that may receive. `0x` hex addresses (EVM) are compared case-insensitively, every other
   * address (Solana base58, Bitcoin) exactly. An empty set allows no recipient.
   */
  allowedRecipients?: ReadonlySet<string>;
}

/** What was already signed in the rolling windows (see store/spendingHistory.ts for what counts). */
export interface SpendingHistory {
  /** Sum of `amountIn` per asset over the last 24 h, origin base units. Missing asset = 0. */
  notional24h: ReadonlyMap<string, bigint>;
  /** Sum of the fees over the last 24 h, micro-USD (1 USD = 1_000_000). */
  feesUsd24hMicros: bigint;
  /** Number of transfers in the last hour. */
  transfersLastHour: number;
}

/** The transfer about to be signed. */
export interface SpendingTransfer {
  /** Configured asset name (the key of `dailyNotional`), e.g. `USDC`. */
  asset: string;
  /** Amount sent, origin base units. */
  amountIn: bigint;
  /**
   * USD value of the input (`details.currencyIn.amountUsd`), decimal string; null when the quote did not say,
   * which fails `max_transfer_usd` closed when that cap is set.
   */
  amountUsd: string | null;
  /** Total fees of this transfer in USD, decimal string (a negative value counts as 0). */
  feesUsd: string;
  /** Destination address that receives the funds. */
  recipient: string;
}

/** Input of {@link checkSpendingLimits}. */
export interface CheckSpendingLimitsParameters {
  limits: SpendingLimits;
  history: SpendingHistory;
  transfer: SpendingTransfer;
}

/**
 * Why a transfer is refused, in the order the limits are checked. These are stable values for records and
 * metric labels.
 */
export const SPENDING_LIMIT_REASONS = [
  'kill_switch',
  'kill_switch_file',
  'recipient_not_allowed',
  'max_transfer_usd',
  'daily_notional',
  'daily_fees_usd',
  'transfers_per_hour',
] as const;
/** One of {@link SPENDING_LIMIT_REASONS}. */
export type SpendingLimitReason = (typeof SPENDING_LIMIT_REASONS)[number];

/** Outcome of {@link checkSpendingLimits}: allowed, or refused with the first limit hit and a human detail. */
export type SpendingLimitsReturnType = { ok: true } | { ok: false; reason: SpendingLimitReason; detail: string };

/** Raised when configured limits are malformed (a configuration error). Code `SPENDING_LIMITS_INVALID`. */
export class SpendingLimitsConfigError extends BallastError {
  readonly code = 'SPENDING_LIMITS_INVALID';
}

const USD_LIMIT_RE = new RegExp(`^[0-9]+(\\.[0-9]{1,${USD_MICROS_DECIMALS}})?$`);
const EVM_HEX_RE = /^0x[0-9a-fA-F]+$/;

function field(name: string): string {
  return `${SPENDING_LIMITS_CONFIG_PATH}.${name}`;
}

function usdLimitMicros(value: string | undefined, name: string): bigint | undefined {
  if (value === undefined) return undefined;
  if (!USD_LIMIT_RE.test(value)) {
    throw new SpendingLimitsConfigError(
      `${field(name)} must be a non-negative USD decimal string with at most ${USD_MICROS_DECIMALS} decimals such as "50" or "0.5", got ${JSON.stringify(value)}`,
    );
  }
  return parseUsdMicros(value);
}

/** Validates every configured limit, so a malformed one is reported whichever transfer comes first. */
function validateLimits(limits: SpendingLimits): { maxTransferMicros?: bigint; dailyFeesMicros?: bigint } {
  const maxTransferMicros = usdLimitMicros(limits.maxTransferUsd, 'maxTransferUsd');
  const dailyFeesMicros = usdLimitMicros(limits.dailyFeesUsd, 'dailyFeesUsd');
  const perHour = limits.maxTransfersPerHour;
  if (perHour !== undefined && (!Number.isSafeInteger(perHour) || perHour < 0)) {
    throw new SpendingLimitsConfigError(`${field('maxTransfersPerHour')} must be a non-negative integer, got ${perHour}`);
  }
  for (const [asset, cap] of limits.dailyNotional ?? []) {
    if (typeof cap !== 'bigint' || cap < 0n) {
      throw new SpendingLimitsConfigError(
        `${field(`dailyNotional.${asset}`)} must be a non-negative amount in base units, got ${String(cap)}`,
      );
    }
  }
  return { maxTransferMicros, dailyFeesMicros };
}

/** An address as compared: 0x hex lower-cased (EVM addresses are case-insensitive), anything else unchanged. */
function recipientKey(address: string): string {
  return EVM_HEX_RE.test(address) ? address.toLowerCase() : address;
}

function isAllowedRecipient(allowed: ReadonlySet<string>, recipient: string): boolean {
  const key = recipientKey(recipient);
  for (const a of allowed) if (recipientKey(a) === key) return true;
  return false;
}

function usdMicrosOf(value: string, name: string): bigint {
  if (!DECIMAL_STRING_RE.test(value)) throw new TypeError(`transfer.${name}: expected a USD decimal string, got ${JSON.stringify(value)}`);
  return parseUsdMicros(value);
}

function refuse(reason: SpendingLimitReason, detail: string): SpendingLimitsReturnType {
  return { ok: false, reason, detail };
}

/**
 * Decides whether a transfer may be signed under the spending limits. Limits are checked in the order of
 * {@link SPENDING_LIMIT_REASONS} and the first one hit is returned:
 *
 * 1. `kill_switch`: `killSwitch` is true.
 * 2. `kill_switch_file`: `killSwitchFilePresent` is true.
 * 3. `recipient_not_allowed`: `allowedRecipients` is set and does not hold `recipient`.
 * 4. `max_transfer_usd`: `amountUsd` > `maxTransferUsd`, or `amountUsd` is null while that cap is set.
 * 5. `daily_notional`: `notional24h[asset]` + `amountIn` > `dailyNotional[asset]` (base units).
 * 6. `daily_fees_usd`: `feesUsd24hMicros` + `feesUsd` > `dailyFeesUsd` (micro-USD).
 * 7. `transfers_per_hour`: `transfersLastHour` + 1 > `maxTransfersPerHour`.
 *
 * A sum exactly at its limit passes. `detail` names the config field, the limit, what was used and what this
 * transfer adds, e.g. `policy.limits.dailyFeesUsd 50 USD: 48.2 used in 24 h + 2.5 for this transfer`.
 *
 * @param params limits, rolling history and the transfer (amounts in base units, USD as decimal strings)
 * @returns `{ ok: true }` or `{ ok: false, reason, detail }`
 * @throws SpendingLimitsConfigError when a configured limit is malformed (negative, not a decimal string,
 *   more than 6 USD decimals, fractional transfer count)
 * @throws TypeError when the transfer itself is malformed (negative `amountIn`, non-decimal USD strings)
 * @example
 * const verdict = checkSpendingLimits({ limits, history: readSpendingHistory(db, { nowMs }), transfer });
 * if (!verdict.ok) log.warn({ reason: verdict.reason }, verdict.detail);
 */
export function checkSpendingLimits({ limits, history, transfer }: CheckSpendingLimitsParameters): SpendingLimitsReturnType {
  const { maxTransferMicros, dailyFeesMicros } = validateLimits(limits);
  if (transfer.amountIn < 0n) throw new TypeError(`transfer.amountIn must not be negative, got ${transfer.amountIn}`);
  const feesMicros = usdMicrosOf(transfer.feesUsd, 'feesUsd');
  const thisFees = feesMicros > 0n ? feesMicros : 0n; // a rebate does not extend the budget
  const amountMicros = transfer.amountUsd === null ? null : usdMicrosOf(transfer.amountUsd, 'amountUsd');

  if (limits.killSwitch === true) {
    return refuse('kill_switch', `${field('killSwitch')} is true: every transfer is halted until it is turned off`);
  }
  if (limits.killSwitchFilePresent === true) {
    return refuse(
      'kill_switch_file',
      `the kill-switch file is present (${field('killSwitchFile')}): every transfer is halted until it is removed`,
    );
  }
  const allowed = limits.allowedRecipients;
  if (allowed !== undefined && !isAllowedRecipient(allowed, transfer.recipient)) {
    return refuse(
      'recipient_not_allowed',
      `${field('allowedRecipients')} (${allowed.size} address${allowed.size === 1 ? '' : 'es'}) does not include recipient ${transfer.recipient}`,
    );
  }
  if (maxTransferMicros !== undefined) {
    if (amountMicros === null) {
      return refuse(
        'max_transfer_usd',
        `${field('maxTransferUsd')} ${formatUsdMicros(maxTransferMicros)} USD: the quote gives no USD value for this transfer (details.currencyIn.amountUsd)`,
      );
    }
    if (amountMicros > maxTransferMicros) {
      return refuse(
        'max_transfer_usd',
        `${field('maxTransferUsd')} ${formatUsdMicros(maxTransferMicros)} USD: this transfer is ${formatUsdMicros(amountMicros)} USD`,
      );
    }
  }
  const notionalCap = limits.dailyNotional?.get(transfer.asset);
  if (notionalCap !== undefined) {
    const used = history.notional24h.get(transfer.asset) ?? 0n;
    if (used + transfer.amountIn > notionalCap) {
      const d = limits.notionalDecimals;
      const show = (v: bigint) => (d === undefined ? String(v) : formatUnits(v, d));
      return refuse(
        'daily_notional',
        `${field(`dailyNotional.${transfer.asset}`)} ${show(notionalCap)} ${d === undefined ? 'base units' : transfer.asset}: ${show(used)} used in 24 h + ${show(transfer.amountIn)} for this transfer`,
      );
    }
  }
  if (dailyFeesMicros !== undefined && history.feesUsd24hMicros + thisFees > dailyFeesMicros) {
    return refuse(
      'daily_fees_usd',
      `${field('dailyFeesUsd')} ${formatUsdMicros(dailyFeesMicros)} USD: ${formatUsdMicros(history.feesUsd24hMicros)} used in 24 h + ${formatUsdMicros(thisFees)} for this transfer`,
    );
  }
  const perHour = limits.maxTransfersPerHour;
  if (perHour !== undefined && history.transfersLastHour + 1 > perHour) {
    return refuse(
      'transfers_per_hour',
      `${field('maxTransfersPerHour')} ${perHour}: ${history.transfersLastHour} used in 1 h + 1 for this transfer`,
    );
  }
  return { ok: true };
}
