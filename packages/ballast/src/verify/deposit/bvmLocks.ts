/**
 * The Bitcoin deposit's nSequence and nLockTime rules (Ballast's own; docs/errors.md):
 * - `rbf-signal`: every input signals BIP-125 opt-in replaceability (nSequence ≤ 0xfffffffd), so that an unwanted
 *   deposit can still be replaced by a spend of ours after its order deadline;
 * - `locktime`: the transaction is final in the next block (Bitcoin Core `IsFinalTx` at tip + 1, consensus
 *   BIP-65/BIP-113 rules): nLockTime 0, a block height ≤ the tip, or not enforced because every nSequence is
 *   0xffffffff; time-based nLockTime (≥ 500,000,000) is refused; and no input carries a BIP-68 relative lock
 *   (version ≥ 2, nSequence bit 31 clear, a non-zero lock value), which would hold the deposit back for blocks
 *   or hours after its parent confirms.
 * Pure.
 */
import { outcome, pass } from '../ruleResult.ts';
import type { RuleResult } from '../types.ts';
import type { ParsedBvmPsbt } from './bvmPsbt.ts';

/** Highest nSequence that signals BIP-125 replaceability. */
export const MAX_BIP125_SEQUENCE = 0xfffffffd;
/** nSequence of a final input (disables nLockTime when every input has it). */
export const SEQUENCE_FINAL = 0xffffffff;
/** nLockTime values from here on are unix times, below are block heights (Bitcoin Core `LOCKTIME_THRESHOLD`). */
export const LOCKTIME_THRESHOLD = 500_000_000;
/** BIP-68: when set in nSequence, the input has no relative lock. */
const SEQUENCE_LOCKTIME_DISABLE_FLAG = 0x80000000;
/** BIP-68: when set, the relative lock counts units of 512 seconds instead of blocks. */
const SEQUENCE_LOCKTIME_TYPE_FLAG = 0x00400000;
/** BIP-68: the relative lock value. */
const SEQUENCE_LOCKTIME_MASK = 0x0000ffff;

const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;

/**
 * `rbf-signal`: every input's nSequence ≤ {@link MAX_BIP125_SEQUENCE} (BIP-125). Passes, saying so, when
 * `requireReplaceable` is false (an operator whose nodes run full-RBF).
 */
export function checkBvmRbfSignal(psbt: ParsedBvmPsbt, requireReplaceable: boolean): RuleResult {
  if (!requireReplaceable) {
    return pass('rbf-signal', 'not required: requireReplaceable is false for this chain (its nodes replace any transaction, full-RBF)');
  }
  const problems = psbt.inputs
    .filter((i) => i.sequence > MAX_BIP125_SEQUENCE)
    .map((i) => `input ${i.index} nSequence ${hex(i.sequence)} does not signal BIP-125 replaceability (must be at most 0xfffffffd)`);
  return outcome(
    'rbf-signal',
    problems,
    `every input (${psbt.inputs.length}) signals BIP-125 replaceability (nSequence at most 0xfffffffd)`,
  );
}

/** Why an input's BIP-68 relative lock may hold the deposit back, or null. */
function relativeLockProblem(psbt: ParsedBvmPsbt, input: ParsedBvmPsbt['inputs'][number]): string | null {
  if (psbt.version < 2 || (input.sequence & SEQUENCE_LOCKTIME_DISABLE_FLAG) !== 0) return null;
  const value = input.sequence & SEQUENCE_LOCKTIME_MASK;
  if (value === 0) return null;
  const what = (input.sequence & SEQUENCE_LOCKTIME_TYPE_FLAG) !== 0 ? `${value * 512} seconds` : `${value} block(s)`;
  return `input ${input.index} nSequence ${hex(input.sequence)} is a BIP-68 relative lock of ${what}; the deposit could not confirm before then`;
}

/**
 * `locktime`: the deposit can be mined in the next block. nLockTime is 0; or a block height ≤ `tipHeight`;
 * or not enforced because every input's nSequence is 0xffffffff. A time-based nLockTime is refused (Ballast
 * does not read the tip's median time past). No input carries a BIP-68 relative lock.
 *
 * @param tipHeight the chain tip's height read from the node; undefined when not read (a height lock is then refused)
 */
export function checkBvmLocktime(psbt: ParsedBvmPsbt, tipHeight: bigint | undefined): RuleResult {
  const problems: string[] = [];
  const lock = psbt.locktime;
  let lockText = 'nLockTime 0';
  if (lock !== 0) {
    if (psbt.inputs.length > 0 && psbt.inputs.every((i) => i.sequence === SEQUENCE_FINAL)) {
      lockText = `nLockTime ${lock} not enforced (every nSequence is 0xffffffff)`;
    } else if (lock >= LOCKTIME_THRESHOLD) {
      problems.push(
        `nLockTime ${lock} is a unix time (at least ${LOCKTIME_THRESHOLD}); only 0 or a block height not above the tip is accepted`,
      );
    } else if (tipHeight === undefined) {
      problems.push(
        `nLockTime ${lock} is a block height, but the tip height was not read (origin.tipHeight absent); cannot tell whether it is final`,
      );
    } else if (BigInt(lock) > tipHeight) {
      problems.push(
        `nLockTime ${lock} is above the tip height ${tipHeight}: not final, the node would refuse the deposit for ${BigInt(lock) - tipHeight} more block(s)`,
      );
    } else {
      lockText = `nLockTime ${lock}, not above the tip height ${tipHeight}`;
    }
  }
  for (const input of psbt.inputs) {
    const problem = relativeLockProblem(psbt, input);
    if (problem) problems.push(problem);
  }
  return outcome('locktime', problems, `${lockText}; no relative lock: final in the next block`);
}
