/**
 * `no-unexpected-steps` for Bitcoin: the quote is one fresh PSBT to sign and nothing else, and that PSBT asks
 * only for signatures that commit to the whole transaction. relay-kit's Bitcoin adapter signs every input
 * with SIGHASH_ALL (docs/design.md "Bitcoin step data"); SIGHASH_NONE, SIGHASH_SINGLE or ANYONECANPAY would let
 * whoever holds the signed transaction change its outputs or inputs afterwards.
 */
import { Transaction } from 'bitcoinjs-lib';
import { sameAddress } from '../addresses.ts';
import { outcome } from '../ruleResult.ts';
import type { RuleResult } from '../types.ts';
import type { BvmItem, BvmSteps } from './bvmItems.ts';
import type { BvmPsbtInput, ParsedBvmPsbt } from './bvmPsbt.ts';

/** Human name of a sighash type byte, e.g. `0x82` → "NONE|ANYONECANPAY". */
export function sighashName(type: number): string {
  const base = ['DEFAULT', 'ALL', 'NONE', 'SINGLE'][type & 0x1f] ?? `unknown 0x${(type & 0x1f).toString(16)}`;
  return type & Transaction.SIGHASH_ANYONECANPAY ? `${base}|ANYONECANPAY` : base;
}

/** True when the input's requested sighash commits to every input and output: ALL, or DEFAULT on taproot. */
function sighashCoversAll(input: BvmPsbtInput): boolean {
  const type = input.sighashType;
  if (type === null || type === Transaction.SIGHASH_ALL) return true;
  return type === Transaction.SIGHASH_DEFAULT && input.kind === 'p2tr';
}

function psbtProblems(item: BvmItem, psbt: ParsedBvmPsbt): string[] {
  const problems: string[] = [];
  for (const input of psbt.inputs) {
    const at = `${item.path} input ${input.index}`;
    if (input.sighashType !== null && !sighashCoversAll(input)) {
      problems.push(
        `${at} requests sighash 0x${input.sighashType.toString(16)} (${sighashName(input.sighashType)}); only ALL (or DEFAULT on taproot) commits to the whole transaction`,
      );
    }
    if (input.signedFields.length > 0) {
      problems.push(`${at} already carries ${input.signedFields.join(', ')}; a PSBT to sign arrives unsigned`);
    }
    if (input.scriptFields.length > 0) {
      problems.push(`${at} carries ${input.scriptFields.join(', ')}; our wallet spends by key only`);
    }
  }
  return problems;
}

/**
 * `no-unexpected-steps`: exactly one step item, in a `transaction` step (no signature or deposit-address
 * steps, one requestId), with status `incomplete` and a `data.psbt`; `data.from`, when given, is our wallet;
 * every input's requested sighash is ALL (or taproot DEFAULT); no input carries signatures, final scripts or
 * script-path data already.
 *
 * @param steps the quote's steps as {@link collectBvmSteps} read them
 * @param psbt the deposit item's parsed PSBT, or null when it did not parse (`deposit-call` says why)
 * @param user our wallet (`expect.user`)
 */
export function checkBvmNoUnexpectedSteps(steps: BvmSteps, psbt: ParsedBvmPsbt | null, user: string): RuleResult {
  const problems = [...steps.stepProblems];
  const { items } = steps;
  if (items.length !== 1) {
    problems.push(`${items.length} transaction items (${items.map((i) => i.path).join(', ') || 'none'}); a Bitcoin deposit is exactly one`);
  }
  for (const item of items) {
    if (item.status !== 'incomplete') {
      problems.push(`${item.path}.status is "${item.status}"; a fresh quote's items are all "incomplete"`);
    }
    if (item.psbtHex === undefined) problems.push(`${item.path} has no data.psbt`);
    const from = item.data['from'];
    if (from !== undefined && (typeof from !== 'string' || !sameAddress(from, user, 'bvm'))) {
      problems.push(`${item.path}.data.from is ${JSON.stringify(from)}, expected our wallet ${user}`);
    }
  }
  const depositItem = items.find((i) => i.psbtHex !== undefined);
  if (depositItem && psbt) problems.push(...psbtProblems(depositItem, psbt));
  else if (depositItem) problems.push(`${depositItem.path}.data.psbt could not be read (see deposit-call)`);
  return outcome('no-unexpected-steps', problems, 'one fresh PSBT from our wallet, unsigned, every input signed with SIGHASH_ALL');
}
