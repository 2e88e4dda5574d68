/**
 * The Bitcoin fee market as an Esplora node estimates it (`GET /fee-estimates`: confirmation target in blocks →
 * sat/vB, github.com/Blockstream/esplora API.md), and the two rates Ballast takes from it:
 * - the floor under a deposit: the estimate for the number of blocks its order's deadline leaves (time left ÷
 *   the block interval, at least 1), so a deposit that cannot be mined in time is refused before signing;
 * - the price of a cancel: the estimate for the next one to two blocks, so the transaction ending an unwanted
 *   deposit is mined before that deposit can come back.
 * Targets are sparse (Esplora answers 1–25, 144, 504, 1008): a number of blocks with no target of its own takes
 * the largest target at or below it (a higher rate: the safe side), else the smallest target there is.
 */
import type { BitcoinFeeEstimate } from '../../verify/deposit/types.ts';
import type { EsploraClient } from './esploraClient.ts';
import { FeeEstimatesSchema } from './esploraSchemas.ts';

/** Bitcoin's target block interval, seconds (ten minutes). */
export const BITCOIN_BLOCK_INTERVAL_SEC = 600;
/** The confirmation target a cancel is priced for, blocks ("the next one to two blocks"). */
export const CANCEL_TARGET_BLOCKS = 2;

/** Confirmation target (blocks) → sat/vB, as `GET /fee-estimates` answers it. */
export type FeeEstimates = Readonly<Record<string, number>>;

/** Reads the node's estimates. @throws BvmEsploraError when they cannot be read */
export function readFeeEstimates(esplora: EsploraClient): Promise<FeeEstimates> {
  return esplora.getJson('/fee-estimates', FeeEstimatesSchema);
}

/**
 * Blocks left before an order's deadline: ⌊(deadline − now) ÷ interval⌋, at least 1. Pure.
 *
 * @param deadlineSec the order's `output.deadline`, unix seconds
 * @param nowSec unix seconds
 * @param blockIntervalSec seconds per block (Bitcoin: {@link BITCOIN_BLOCK_INTERVAL_SEC})
 */
export function blocksBeforeDeadline(deadlineSec: number, nowSec: number, blockIntervalSec: number): number {
  const left = Math.floor((deadlineSec - nowSec) / blockIntervalSec);
  return Number.isFinite(left) && left > 1 ? left : 1;
}

/**
 * The estimate for confirming within `blocks`: the rate of the largest target at or below it, else of the
 * smallest target. Pure.
 *
 * @returns `{ targetBlocks, satPerVb }`, or `{ problem }` when the table is empty
 */
export function estimateWithin(estimates: FeeEstimates, blocks: number): BitcoinFeeEstimate {
  const targets = Object.keys(estimates)
    .map(Number)
    .filter((t) => Number.isSafeInteger(t) && t > 0)
    .sort((a, b) => a - b);
  if (targets.length === 0) return { problem: 'the node answered GET /fee-estimates with no estimate' };
  const atOrBelow = targets.filter((t) => t <= blocks);
  const target = atOrBelow.length > 0 ? atOrBelow[atOrBelow.length - 1]! : targets[0]!; // non-empty: checked above
  return { targetBlocks: target, satPerVb: estimates[String(target)]! };
}

/**
 * The floor under a deposit whose order's deadline is `deadlineSec`: the node's estimate for the blocks the
 * deadline leaves. Never throws: a failed read is `{ problem }` (the verifier then falls back to the configured
 * floor and says so).
 *
 * @param deadlineSec the order's deadline (unix seconds), or null when the quote names none (1 block is assumed)
 */
export async function readDeadlineFeeEstimate(
  esplora: EsploraClient,
  deadlineSec: number | null,
  nowSec: number,
  blockIntervalSec: number,
): Promise<BitcoinFeeEstimate> {
  const blocks = deadlineSec === null ? 1 : blocksBeforeDeadline(deadlineSec, nowSec, blockIntervalSec);
  try {
    const estimate = estimateWithin(await readFeeEstimates(esplora), blocks);
    return 'problem' in estimate ? { problem: `${esplora.at}: ${estimate.problem}` } : { ...estimate, blocksLeft: blocks };
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}
