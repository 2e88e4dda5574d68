/**
 * The miner fee of a cancel: the transaction that ends an unwanted deposit of ours by spending its inputs back to
 * our wallet (src/chains/bvm/cancelTx.ts). Pure; amounts in satoshis, sizes in vbytes (BIP-141).
 *
 * A cancel must, in any mempool holding the deposit or an earlier cancel of it (each a "predecessor"):
 * - replace it by BIP-125 (https://github.com/bitcoin/bips/blob/master/bip-0125.mediawiki) as Bitcoin Core
 *   applies it (`policy/rbf.cpp`): pay at least the fees of everything it evicts, the predecessor and its
 *   descendants (rule 3), plus the incremental relay fee (1 sat/vB) × its own vsize (rule 4), at a fee rate
 *   above the predecessor's (rule 6);
 * - be mined soon: the original is usually stuck because its rate fell under the market, so a cancel priced
 *   at the BIP-125 minimum (about twice a stuck rate) is often stuck too. It pays at least the node's
 *   estimate for the next one to two blocks × its vsize;
 * - when it re-prices an earlier cancel that stayed unmined or was refused, pay at least 1.5 × that one, so a
 *   cancel stuck under a market that the estimate misjudges climbs to the cap in a bounded number of steps.
 * It never pays more than its caps (`maxCancelFeeSats` and `maxFeeRateSatPerVb` × vsize). When the market asks
 * for more, the cancel pays the cap if that still replaces every predecessor (`capped`: an operator is told);
 * when even the BIP-125 minimum is above the cap, no cancel can be signed (`atCap`).
 */

/** BIP-125 rule 4 / Bitcoin Core's default `-incrementalrelayfee`: 1 sat/vB. */
export const INCREMENTAL_RELAY_FEE_SAT_PER_VB = 1n;

/** A transaction a cancel replaces: its fee and vsize, and the mempool descendants it would evict with it. */
export interface Predecessor {
  feeSat: bigint;
  vsize: number;
  /** Mempool transactions spending its outputs, transitively (each fee and vsize). */
  descendants: readonly { feeSat: bigint; vsize: number }[];
}

/** What {@link priceCancel} needs. */
export interface CancelPriceInput {
  /** The cancel's estimated signed vsize, vB: the worst case (largest signatures), for what BIP-125 asks. */
  vsize: number;
  /**
   * The smallest the signed cancel can be, vB, for the rate cap: a signature may be a few bytes shorter than the
   * worst case, and the rate is judged on the real size (default `vsize`).
   */
  minVsize?: number;
  /** The deposit and every cancel signed before this one. */
  predecessors: readonly Predecessor[];
  /** The node's estimate for the next one to two blocks, sat/vB, or null when it could not be read. */
  marketSatPerVb: number | null;
  /** Fee of the last cancel signed, when this one re-prices it. */
  lastCancelFeeSat: bigint | null;
  /** `maxCancelFeeSats`. */
  maxFeeSat: bigint;
  /** `maxFeeRateSatPerVb`. */
  maxRateSatPerVb: number;
}

/** The fee to sign (`capped` when the market asked for more than the caps allow), or why none can be signed. */
export type CancelPrice = { feeSat: bigint; capped: boolean; minimumSat: bigint; wantedSat: bigint } | { atCap: string };

/**
 * Smallest fee a transaction of `vsize` vbytes must pay to replace `p` (BIP-125 rules 3, 4 and 6): the fees of
 * `p` and its descendants plus 1 sat/vB × `vsize`, and a rate strictly above `p`'s.
 */
export function bip125MinimumSat(p: Predecessor, vsize: number): bigint {
  const evicted = p.descendants.reduce((sum, d) => sum + d.feeSat, p.feeSat);
  const rule4 = evicted + INCREMENTAL_RELAY_FEE_SAT_PER_VB * BigInt(vsize);
  const higherRate = (p.feeSat * BigInt(vsize)) / BigInt(p.vsize) + 1n; // ⌊fee × vsize ÷ vsize_p⌋ + 1
  return rule4 > higherRate ? rule4 : higherRate;
}

/** ⌈rate × vsize⌉ for a rate in sat/vB (to the milli-sat), as satoshis. */
function atRate(satPerVb: number, vsize: number, round: 'up' | 'down'): bigint {
  const milli = BigInt(round === 'up' ? Math.ceil(satPerVb * 1000) : Math.floor(satPerVb * 1000)) * BigInt(vsize);
  return round === 'up' ? (milli + 999n) / 1000n : milli / 1000n;
}

/** Prices a cancel (see the module doc). */
export function priceCancel(input: CancelPriceInput): CancelPrice {
  const { vsize } = input;
  const minimumSat = input.predecessors.reduce((max, p) => {
    const m = bip125MinimumSat(p, vsize);
    return m > max ? m : max;
  }, 0n);
  const market = input.marketSatPerVb === null ? 0n : atRate(input.marketSatPerVb, vsize, 'up');
  const escalated = input.lastCancelFeeSat === null ? 0n : (input.lastCancelFeeSat * 3n + 1n) / 2n;
  const wantedSat = [minimumSat, market, escalated].reduce((a, b) => (a > b ? a : b));
  const rateCap = atRate(input.maxRateSatPerVb, input.minVsize ?? vsize, 'down');
  const capSat = input.maxFeeSat < rateCap ? input.maxFeeSat : rateCap;
  if (wantedSat <= capSat) return { feeSat: wantedSat, capped: false, minimumSat, wantedSat };
  if (minimumSat <= capSat) return { feeSat: capSat, capped: true, minimumSat, wantedSat };
  return {
    atCap: `a cancel must pay at least ${minimumSat} sat (BIP-125) over ~${vsize} vB, above its caps of ${capSat} sat (maxCancelFeeSats ${input.maxFeeSat}, maxFeeRateSatPerVb ${input.maxRateSatPerVb})`,
  };
}
