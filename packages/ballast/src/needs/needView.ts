/**
 * How a need is shown: the JSON of the HTTP API and `ballast needs … --json` ({@link needJson}), and one line for
 * people ({@link needLine}). Amounts go out twice: whole units of the asset (a decimal string) and base units (a
 * digit string), never as JSON numbers.
 */
import { formatUnits } from 'viem';
import type { NeedRow, NeedStatus } from '../store/needs.ts';
import type { NeedHolding } from './resolveNeed.ts';

/** A need on the wire (docs/needs.openapi.yaml `Need`). */
export interface NeedJson {
  id: number;
  idempotencyKey: string;
  status: NeedStatus;
  asset: string;
  chain: string;
  wallet: string;
  /** Whole units of the asset, a decimal string; null when the holding's decimals are unknown. */
  amount: string | null;
  /** Base units of the holding's token, a digit string. */
  amountBaseUnits: string;
  decimals: number | null;
  /** ISO-8601, UTC. */
  dueAt: string;
  note: string | null;
  createdAt: string;
  createdBy: string;
  closedAt: string | null;
  closedReason: string | null;
}

/** The decimals of a need's holding among `holdings`, or null. */
export function decimalsOfNeed(need: Pick<NeedRow, 'asset' | 'chain' | 'wallet'>, holdings: readonly NeedHolding[]): number | null {
  return holdings.find((h) => h.asset === need.asset && h.chain === need.chain && h.wallet === need.wallet)?.decimals ?? null;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The wire form of a need, with its holding's decimals (null: whole units unknown). */
export function needJson(need: NeedRow, decimals: number | null): NeedJson {
  return {
    id: need.id,
    idempotencyKey: need.idempotencyKey,
    status: need.status,
    asset: need.asset,
    chain: need.chain,
    wallet: need.wallet,
    amount: decimals === null ? null : formatUnits(need.amount, decimals),
    amountBaseUnits: need.amount.toString(),
    decimals,
    dueAt: iso(need.dueAtMs),
    note: need.note,
    createdAt: iso(need.createdAtMs),
    createdBy: need.createdBy,
    closedAt: need.closedAtMs === null ? null : iso(need.closedAtMs),
    closedReason: need.closedReason,
  };
}

/**
 * One line for people: `#3 open 50000 USDC base:treasury due 2026-12-06T09:00:00.000Z key payroll-2026-12 "note"`,
 * with how it closed when it did. Unknown decimals show base units, said as such.
 */
export function needLine(need: NeedRow, decimals: number | null): string {
  const amount =
    decimals === null
      ? `${need.amount} base units of ${need.asset} (decimals unknown)`
      : `${formatUnits(need.amount, decimals)} ${need.asset}`;
  const closed = need.closedAtMs === null ? '' : ` (${need.closedReason ?? need.status} at ${iso(need.closedAtMs)})`;
  const note = need.note === null ? '' : ` ${JSON.stringify(need.note)}`;
  return `#${need.id} ${need.status}${closed} ${amount} ${need.chain}:${need.wallet} due ${iso(need.dueAtMs)} key ${need.idempotencyKey}${note}`;
}
