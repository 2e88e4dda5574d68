/**
 * Needs held by the planner (docs/needs.md): known outflows of a holding, due within the horizon the caller chose.
 * Pure.
 */
import { locationKey } from './effective.ts';
import type { PlanNeed } from './types.ts';

/** The needs of one holding, in due order, and their sum (base units of the holding). */
export interface HeldNeeds {
  total: bigint;
  needs: PlanNeed[];
}

/** Needs by holding ({@link locationKey}). */
export type NeedIndex = ReadonlyMap<string, HeldNeeds>;

/** Indexes `needs` by holding, each holding's in due order (then id). */
export function indexNeeds(needs: readonly PlanNeed[] | undefined): NeedIndex {
  const index = new Map<string, HeldNeeds>();
  for (const n of needs ?? []) {
    const key = locationKey(n.chain, n.currency, n.address);
    const entry = index.get(key) ?? { total: 0n, needs: [] };
    entry.total += n.amount;
    entry.needs.push(n);
    index.set(key, entry);
  }
  for (const entry of index.values()) entry.needs.sort((a, b) => a.dueAtMs - b.dueAtMs || a.id - b.id);
  return index;
}

/**
 * What a holding holds, in words: `holds 50000 USDC for need #3 due 2026-12-06T09:00:00.000Z`.
 *
 * @param fmt formats base units of the holding as whole units
 */
export function needsNote(held: HeldNeeds, fmt: (n: bigint) => string, asset: string): string {
  const list = held.needs.map((n) => `#${n.id} (${fmt(n.amount)} due ${new Date(n.dueAtMs).toISOString()})`).join(', ');
  return `holds ${fmt(held.total)} ${asset} for ${held.needs.length === 1 ? 'need' : 'needs'} ${list}`;
}
