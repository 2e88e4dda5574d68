/**
 * Turns a need as a person or a payment system writes it (docs/needs.md: asset, chain, optional wallet, an amount
 * in whole units, a due time, a key, an optional note) into the need the store records: the configured holding it
 * comes from, the amount in that holding's base units, the due time in ms. Pure: the holdings (with their token
 * decimals) and the clock are given.
 *
 * Every refusal is a {@link NeedInputError} (`NEED_INVALID`) naming the field and the fix, or a
 * {@link NeedDecimalsError} (`NEED_DECIMALS_UNKNOWN`) when the holding's decimals could not be learnt.
 */
import { parseUnits } from 'viem';
import { BallastError } from '@ballast/protocol/core/errors.ts';
import type { NewNeed } from '../store/needs.ts';

/** A configured holding a need may come from, with its token's decimals when known. */
export interface NeedHolding {
  asset: string;
  chain: string;
  wallet: string;
  /** Decimals of the holding's token; null when unknown (then `decimalsError` says why). */
  decimals: number | null;
  decimalsError?: string;
}

/** A need as given (CLI flags, the API's body with its Idempotency-Key header). */
export interface NeedRequest {
  asset: string;
  chain: string;
  /** Wallet name; may be left out when the asset has one holding on the chain. */
  wallet?: string | undefined;
  /** Whole units of the asset, a decimal string: "50000", "0.25". */
  amount: string;
  /** ISO-8601 date and time with `Z` or an offset (`2026-12-06T09:00:00Z`), or ms since the epoch. */
  dueAt: string | number;
  idempotencyKey: string;
  note?: string | undefined;
}

/** A need request that cannot be recorded as given (code `NEED_INVALID`); `field` names the input at fault. */
export class NeedInputError extends BallastError {
  readonly code = 'NEED_INVALID' as const;
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

/**
 * The decimals of the need's holding are unknown (not in the config, GET /chains or the token contract, or they
 * disagree), so its amount cannot be converted now (code `NEED_DECIMALS_UNKNOWN`). Setting
 * `assets.<asset>[i].decimals` fixes it for good; a node or API that was down may answer on a retry.
 */
export class NeedDecimalsError extends BallastError {
  readonly code = 'NEED_DECIMALS_UNKNOWN' as const;
}

/** Longest idempotency key, characters (also a CHECK of the `needs` table). */
export const MAX_NEED_KEY_CHARS = 200;
/** Longest note, characters. */
export const MAX_NEED_NOTE_CHARS = 500;

/** Printable ASCII without spaces: what an idempotency key may hold. */
const KEY_RE = /^[\x21-\x7e]{1,200}$/;
const WHOLE_RE = /^[0-9]+(\.[0-9]+)?$/;
const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.(\d{1,3}))?)?(Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

/**
 * Checks an idempotency key: 1–200 printable ASCII characters, no spaces.
 *
 * @param field the input it came from, for the message (`idempotencyKey`, `Idempotency-Key`, `--key`)
 * @throws NeedInputError
 */
export function checkNeedKey(key: string, field = 'idempotencyKey'): string {
  if (!KEY_RE.test(key)) {
    throw new NeedInputError(
      field,
      `must be 1–${MAX_NEED_KEY_CHARS} printable ASCII characters without spaces (e.g. payroll-2026-12), got ${JSON.stringify(key.slice(0, 40))}`,
    );
  }
  return key;
}

/**
 * Parses a due time: an ISO-8601 date and time with `Z` or an offset, or ms since the epoch (a number or digits).
 *
 * @returns ms since the epoch
 * @throws NeedInputError (`dueAt`) for anything else, an impossible date, or a time zone left out
 */
export function parseDueAt(dueAt: string | number, field = 'dueAt'): number {
  if (typeof dueAt === 'number' || /^[0-9]{1,16}$/.test(dueAt)) {
    const ms = Number(dueAt);
    if (!Number.isSafeInteger(ms) || ms <= 0)
      throw new NeedInputError(field, `expected ms since the epoch as a positive integer, got ${dueAt}`);
    return ms;
  }
  const m = ISO_RE.exec(dueAt);
  const ms = m ? Date.parse(dueAt) : NaN;
  const day = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : null;
  const real =
    day !== null && day.getUTCFullYear() === Number(m![1]) && day.getUTCMonth() + 1 === Number(m![2]) && day.getUTCDate() === Number(m![3]);
  if (!m || !real || Number.isNaN(ms)) {
    throw new NeedInputError(
      field,
      `expected an ISO-8601 date and time with Z or an offset (e.g. 2026-12-06T09:00:00Z) or ms since the epoch, got ${JSON.stringify(dueAt.slice(0, 40))}`,
    );
  }
  return ms;
}

/**
 * Finds the holding a need comes from.
 *
 * @throws NeedInputError naming `asset`, `chain` or `wallet` with the configured choices
 */
export function findNeedHolding(holdings: readonly NeedHolding[], asset: string, chain: string, wallet?: string): NeedHolding {
  const ofAsset = holdings.filter((h) => h.asset === asset);
  if (ofAsset.length === 0) {
    const assets = [...new Set(holdings.map((h) => h.asset))].sort().join(', ');
    throw new NeedInputError('asset', `no asset ${JSON.stringify(asset)} under assets: in the config; configured: ${assets || 'none'}`);
  }
  const onChain = ofAsset.filter((h) => h.chain === chain);
  if (onChain.length === 0) {
    const chains = [...new Set(ofAsset.map((h) => h.chain))].sort().join(', ');
    throw new NeedInputError('chain', `${asset} is not held on chain ${JSON.stringify(chain)}; its holdings are on ${chains}`);
  }
  const wallets = onChain.map((h) => h.wallet).sort();
  if (wallet === undefined) {
    if (onChain.length === 1) return onChain[0]!; // length checked
    throw new NeedInputError(
      'wallet',
      `${asset} has ${onChain.length} holdings on ${chain}: name the wallet, one of ${wallets.join(', ')}`,
    );
  }
  const hit = onChain.find((h) => h.wallet === wallet);
  if (!hit)
    throw new NeedInputError(
      'wallet',
      `${asset} on ${chain} is not held by wallet ${JSON.stringify(wallet)}; held by ${wallets.join(', ')}`,
    );
  return hit;
}

/**
 * Converts a whole-unit decimal string to base units of a token with `decimals` decimals.
 *
 * @throws NeedInputError (`amount`) when it is not a decimal string, has more decimals than the token, or is not
 *   above zero
 */
export function needAmountToBaseUnits(amount: string, decimals: number, what: string, field = 'amount'): bigint {
  if (!WHOLE_RE.test(amount)) {
    throw new NeedInputError(
      field,
      `expected whole units of ${what} as a decimal string, e.g. "50000" or "0.25", got ${JSON.stringify(amount.slice(0, 40))}`,
    );
  }
  const fraction = amount.split('.')[1] ?? '';
  if (fraction.length > decimals) {
    throw new NeedInputError(
      field,
      `${amount} has ${fraction.length} decimals but ${what} has ${decimals}; round it to at most ${decimals}`,
    );
  }
  const base = parseUnits(amount, decimals); // exact: no more decimals than the token's
  if (base <= 0n) throw new NeedInputError(field, `must be above 0, got ${amount}`);
  return base;
}

/** Options of {@link resolveNeed}. */
export interface ResolveNeedOptions {
  /** Now, ms: the due time must be later. */
  nowMs: number;
  /** Who records it (`<user>@<host>`, `api`). */
  createdBy: string;
  /**
   * The need already recorded under the request's key, if any: a retry of it may repeat its due time even once that
   * has passed (the store then answers with the recorded need), so the answer does not change with the clock.
   */
  recorded?: Pick<NewNeed, 'dueAtMs'> | null;
}

/**
 * Resolves a need request against the configured holdings.
 *
 * @param holdings the configured holdings with their decimals (src/needs/holdings.ts)
 * @returns the need to record (amount in base units of the holding); the note trimmed, an empty one null
 * @throws NeedInputError (`NEED_INVALID`) naming the field and the fix: a key that is not 1–200 printable
 *   characters, no such asset, chain or wallet (or a wallet left out where the asset has several holdings on the
 *   chain), an amount that is not a decimal, has more decimals than the token or is not above 0, a due time that
 *   is malformed or not in the future, a note over 500 characters; NeedDecimalsError when the holding's decimals
 *   are unknown
 */
export function resolveNeed(req: NeedRequest, holdings: readonly NeedHolding[], opts: ResolveNeedOptions): NewNeed {
  const idempotencyKey = checkNeedKey(req.idempotencyKey);
  const holding = findNeedHolding(holdings, req.asset, req.chain, req.wallet);
  const where = `${holding.asset} on ${holding.chain}:${holding.wallet}`;
  if (holding.decimals === null) {
    throw new NeedDecimalsError(
      `the decimals of ${where} are unknown${holding.decimalsError ? ` (${holding.decimalsError})` : ''}; set decimals on that holding under assets.${holding.asset} in the config, or retry`,
    );
  }
  const amount = needAmountToBaseUnits(req.amount, holding.decimals, where);
  const dueAtMs = parseDueAt(req.dueAt);
  if (dueAtMs <= opts.nowMs && opts.recorded?.dueAtMs !== dueAtMs) {
    throw new NeedInputError(
      'dueAt',
      `${new Date(dueAtMs).toISOString()} is not in the future (now ${new Date(opts.nowMs).toISOString()}); a need is a payment still to come`,
    );
  }
  const note = req.note?.trim() ?? '';
  if (note.length > MAX_NEED_NOTE_CHARS) throw new NeedInputError('note', `at most ${MAX_NEED_NOTE_CHARS} characters, got ${note.length}`);
  return {
    idempotencyKey,
    asset: holding.asset,
    chain: holding.chain,
    wallet: holding.wallet,
    amount,
    dueAtMs,
    note: note === '' ? null : note,
    createdBy: opts.createdBy,
  };
}
