/**
 * The matcher serves deficits from a heap of donors; it must plan exactly what re-sorting every donor before
 * each deficit plans (the straightforward form, kept here as the reference): same transfers, same decisions,
 * same order, on seeded random sides with mixed decimals, equal amounts, a shared holding and tight bounds.
 */
import { describe, expect, it } from 'vitest';
import { formatUnits } from 'viem';
import { matchAsset, type MatchParameters, type MatchSide } from '../../../packages/ballast/src/planner/match.ts';
import { targetKey } from '../../../packages/ballast/src/planner/effective.ts';
import type { PlanDecision, PlannedTransfer, TargetBand } from '../../../packages/ballast/src/planner/types.ts';

/** Reference matcher: every donor sorted again before each deficit. */
function referenceMatch(p: MatchParameters): { transfers: PlannedTransfer[]; decisions: PlanDecision[] } {
  const { asset, scale, minN, maxN } = p;
  const fmt = (n: bigint): string => `${formatUnits(n, scale)} ${asset}`;
  const order = (a: { band: TargetBand; left: bigint }, b: { band: TargetBand; left: bigint }): number => {
    if (a.left !== b.left) return a.left > b.left ? -1 : 1;
    const ka = `${a.band.chain}\u0000${a.band.currency}\u0000${a.band.address}`;
    const kb = `${b.band.chain}\u0000${b.band.currency}\u0000${b.band.address}`;
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  };
  const pow10 = (n: number): bigint => 10n ** BigInt(n);
  const transfers: PlannedTransfer[] = [];
  const decisions: PlanDecision[] = [];
  const donors = p.surpluses.map((s) => ({ ...s, left: s.amountN }));
  const needs = p.deficits.map((d) => ({ ...d, left: d.amountN })).sort(order);
  for (const need of needs) {
    donors.sort(order);
    let capped = false;
    let tooSmall = false;
    const leftTooSmall = (): boolean => {
      if (need.left === 0n || need.left >= minN) return false;
      tooSmall = true;
      decisions.push({
        asset,
        chain: need.band.chain,
        kind: 'below_min_transfer',
        detail: `${need.label}: remaining deficit ${fmt(need.left)} is below minTransfer ${fmt(minN)}; not planned`,
      });
      return true;
    };
    if (leftTooSmall()) continue;
    for (const donor of donors) {
      if (need.left === 0n) break;
      if (donor.left === 0n || targetKey(donor.band) === targetKey(need.band)) continue;
      let want = need.left < donor.left ? need.left : donor.left;
      const capHere = want > maxN;
      if (capHere) want = maxN;
      const unit = pow10(scale - Math.min(donor.band.decimals, need.band.decimals));
      const moved = want - (want % unit);
      if (moved === 0n || moved < minN) {
        decisions.push({
          asset,
          chain: donor.band.chain,
          kind: 'below_min_transfer',
          detail: `${donor.label} → ${need.label}: ${fmt(moved)} is below minTransfer ${fmt(minN)}; skipped`,
        });
        continue;
      }
      transfers.push({
        asset,
        from: donor.band,
        to: need.band,
        amountIn: moved / pow10(scale - donor.band.decimals),
        reason: `${need.why}; ${donor.why}`,
      });
      donor.left -= moved;
      need.left -= moved;
      if (capHere) {
        capped = true;
        decisions.push({
          asset,
          chain: need.band.chain,
          kind: 'capped_max_transfer',
          detail: `${donor.label} → ${need.label}: capped at maxTransfer ${fmt(maxN)}; the rest follows in a later cycle`,
        });
      }
      if (leftTooSmall()) break;
    }
    if (need.left > 0n && !tooSmall) {
      decisions.push({
        asset,
        chain: need.band.chain,
        kind: 'deficit_unmet',
        detail:
          `${need.label}: ${fmt(need.left)} of ${fmt(need.amountN)} not planned this cycle` +
          (capped ? ' (maxTransfer cap or no usable surplus left)' : ' (no usable surplus left)'),
      });
    }
  }
  for (const donor of [...donors].sort(order)) {
    if (donor.left > 0n)
      decisions.push({
        asset,
        chain: donor.band.chain,
        kind: 'surplus_unused',
        detail: `${donor.label}: ${fmt(donor.left)} of ${fmt(donor.amountN)} surplus left unused`,
      });
  }
  return { transfers, decisions };
}

/** mulberry32 (deterministic; a failure reproduces from its seed). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomParameters(seed: number): MatchParameters {
  const r = rng(seed);
  const int = (n: number): number => Math.floor(r() * n);
  const scale = 8;
  // Holdings are unique within each side (the planner refuses repeated holdings), but a deficit sometimes names
  // a donor's holding, in another address case, so the same-holding rule is exercised.
  const side = (i: number, kind: string, shared?: TargetBand): MatchSide => {
    const decimals = [2, 6, 8][int(3)]!;
    const chain = shared?.chain ?? `c${int(6)}`;
    const address = shared
      ? shared.address.toUpperCase().replace('0X', '0x')
      : `0x${(kind === 'd' ? 5000 + i : i).toString(16).padStart(40, '0')}`;
    const band: TargetBand = {
      asset: 'X',
      chain,
      chainId: 1,
      currency: shared?.currency ?? `0x${'c'.repeat(39)}${int(3)}`,
      wallet: `w${kind}${i}`,
      address,
      decimals,
      min: 0n,
      target: 0n,
      max: 0n,
    };
    // Amounts from a small set (ties) or anywhere, at the common scale.
    const amountN = int(3) === 0 ? BigInt(1 + int(3)) * 10n ** 8n : BigInt(1 + int(10 ** 9));
    return { band, label: `${chain}-${kind}${i}`, why: `${kind} ${i}`, amountN };
  };
  const surpluses = Array.from({ length: int(30) }, (_, i) => side(i, 's'));
  const taken = new Set<number>();
  const deficits = Array.from({ length: int(30) }, (_, i) => {
    const j = int(Math.max(1, surpluses.length * 4));
    if (j >= surpluses.length || taken.has(j)) return side(i, 'd');
    taken.add(j);
    return side(i, 'd', surpluses[j]!.band);
  });
  const minN = BigInt(int(3) * int(10 ** 7));
  const maxN = minN + BigInt(1 + int(10 ** 9));
  return { asset: 'X', scale, minN, maxN, deficits, surpluses };
}

describe('matchAsset (heap) against the re-sorting reference', () => {
  it('plans identically on 2,000 seeded random inputs', () => {
    let transfers = 0;
    for (let seed = 1; seed <= 2000; seed++) {
      const p = randomParameters(seed);
      const ours = matchAsset(p);
      expect(ours, `seed ${seed}`).toEqual(referenceMatch(p));
      transfers += ours.transfers.length;
    }
    expect(transfers).toBeGreaterThan(2000); // the inputs exercise matching, not only skips
  });

  it('leaves its input untouched', () => {
    const p = randomParameters(7);
    const before = structuredClone(p);
    matchAsset(p);
    expect(p).toEqual(before);
  });
});
