/**
 * What the Bitcoin deposit transaction spends and where the rest goes (Ballast's bvm rules, docs/errors.md):
 * every input is one of our own unspent outputs at its true value, confirmed (or, where
 * `allowOwnUnconfirmedInputs` is set, our own unconfirmed change of a transaction Ballast still tracks), and not
 * already spent by an in-flight deposit of ours (`origin-inputs`), the transaction is within the
 * standard weight limit (`tx-size`), and every output other than the deposit and the order-id OP_RETURN
 * returns change to our own address (`change`). The fee rules are in bvmFees.ts. Amounts in satoshis.
 */
import { p2trKeyPathScript, sameScript } from '@ballast/protocol/protocol/bitcoinDeposit.ts';
import { fail, outcome } from '../ruleResult.ts';
import type { RuleResult } from '../types.ts';
import { outpointKey as outpoint } from './bvmFees.ts';
import type { BitcoinUtxo } from './types.ts';
import type { BvmWallet } from './bvmItems.ts';
import type { BvmPsbtInput, ParsedBvmPsbt } from './bvmPsbt.ts';

/** Bitcoin Core's relay policy limit on a transaction's weight (`MAX_STANDARD_TX_WEIGHT`), weight units. */
export const MAX_STANDARD_TX_WEIGHT = 400_000;

const KIND_NAMES = { p2wpkh: 'a P2WPKH script', p2tr: 'a P2TR script', other: 'a script neither P2WPKH nor P2TR' } as const;

/** Our unspent outputs by `txid:vout` (txid lower-case). */
function utxoIndex(utxos: readonly BitcoinUtxo[]): Map<string, BitcoinUtxo> {
  return new Map(utxos.map((u) => [outpoint(u.txid, u.vout), u]));
}

/** Why spending the unconfirmed output `utxo` is refused, or null when it may be spent. */
function unconfirmedRefusal(at: string, utxo: BitcoinUtxo, allowOwnUnconfirmed: boolean): string | null {
  if (utxo.confirmed) return null;
  if (!allowOwnUnconfirmed) {
    return `${at} spends an unconfirmed output of ${utxo.txid}; deposits spend confirmed outputs only (chains.<name>.allowOwnUnconfirmedInputs is off), so no deposit hangs on another transaction's fate`;
  }
  if (utxo.parentOurs === false)
    return `${at} spends an unconfirmed output of a transaction that is not ours (an input of ${utxo.txid} spends another script); a stranger would decide when our deposit confirms`;
  if (utxo.parentOurs !== true)
    return `${at} spends an unconfirmed output whose parent transaction ${utxo.txid} was not read; only confirmed outputs or our own unconfirmed change are spent`;
  if (utxo.parentTracked !== true)
    return `${at} spends unconfirmed change of ${utxo.txid}, which is no deposit or cancel of ours in flight; nothing of ours would end it, so a deposit on it could hang for ever`;
  return null;
}

function inputProblems(
  input: BvmPsbtInput,
  wallet: BvmWallet | string,
  ours: Map<string, BitcoinUtxo> | null,
  allowOwnUnconfirmed: boolean,
): string[] {
  const at = `input ${input.index} (${input.txid}:${input.vout})`;
  const problems: string[] = [];
  if (ours) {
    const utxo = ours.get(outpoint(input.txid, input.vout));
    if (!utxo) problems.push(`${at} is not one of our ${ours.size} unspent output(s)`);
    else if (input.witnessUtxo && input.witnessUtxo.value !== utxo.value) {
      problems.push(`${at} witnessUtxo says ${input.witnessUtxo.value} sat, but our unspent output holds ${utxo.value} sat`);
    }
    const unconfirmed = utxo ? unconfirmedRefusal(at, utxo, allowOwnUnconfirmed) : null;
    if (unconfirmed !== null) problems.push(unconfirmed);
  }
  if (!input.witnessUtxo) {
    problems.push(`${at} has no witnessUtxo; non-witness inputs are refused`);
  } else if (typeof wallet !== 'string' && !sameScript(input.witnessUtxo.script, wallet.script)) {
    problems.push(`${at} spends ${KIND_NAMES[input.kind ?? 'other']} that is not our address ${wallet.address}`);
  }
  if (input.nonWitnessUtxoProblem) problems.push(`${at}: ${input.nonWitnessUtxoProblem}`);
  if (input.tapInternalKey && typeof wallet !== 'string') {
    let committed = false;
    try {
      committed = sameScript(p2trKeyPathScript(input.tapInternalKey), wallet.script);
    } catch {
      committed = false; // not a valid x-only key, so it cannot commit to our address either
    }
    if (!committed) problems.push(`${at} tapInternalKey does not tweak to our address ${wallet.address} (key path, no script tree)`);
  }
  return problems;
}

/**
 * `origin-inputs`: `utxos` (our wallet's unspent outputs, read from the chain) are given; the PSBT has at
 * least one input and no outpoint twice; every input spends one of `utxos` (txid + vout), its witnessUtxo
 * value equals that output's value and its witnessUtxo script is our wallet's (P2WPKH, or P2TR key path whose
 * tapInternalKey, if given, tweaks to our key); a carried previous transaction agrees with both. That output
 * is confirmed; only with `allowOwnUnconfirmed` may it be unconfirmed change of a transaction all of whose
 * inputs are ours (`parentOurs`) that is a deposit or cancel of ours in flight (`parentTracked`). A deposit on
 * anything else unconfirmed could be stranded: if its parent never confirms, nothing of ours proves it dead.
 * The planner's Bitcoin balance counts confirmed outputs only, so this costs nothing it counted on. And no
 * input is one of `reservedOutpoints` (spent by an in-flight deposit of ours, whatever a lagging UTXO view
 * says), since signing it would replace our own earlier deposit (BIP-125) or conflict with it.
 *
 * @param reservedOutpoints `txid:vout` (txid lower-case) spent by our in-flight deposits; absent means none
 */
export function checkBvmOriginInputs(
  psbt: ParsedBvmPsbt,
  wallet: BvmWallet | string,
  utxos: readonly BitcoinUtxo[] | undefined,
  reservedOutpoints: readonly string[] = [],
  allowOwnUnconfirmed = false,
): RuleResult {
  const reserved = new Set(reservedOutpoints.map((o) => o.toLowerCase()));
  const problems: string[] = [];
  if (utxos === undefined)
    problems.push('our unspent outputs were not read (origin.utxos absent); cannot tell whose coins the PSBT spends');
  if (typeof wallet === 'string') problems.push(wallet);
  if (psbt.inputs.length === 0) problems.push('the PSBT has no inputs');
  const seen = new Set<string>();
  for (const input of psbt.inputs) {
    const key = outpoint(input.txid, input.vout);
    if (seen.has(key)) problems.push(`input ${input.index} spends ${key} a second time`);
    seen.add(key);
  }
  const ours = utxos === undefined ? null : utxoIndex(utxos);
  for (const input of psbt.inputs) {
    problems.push(...inputProblems(input, wallet, ours, allowOwnUnconfirmed));
    const key = outpoint(input.txid, input.vout);
    if (reserved.has(key)) {
      problems.push(
        `input ${input.index} (${key}) is already spent by an in-flight deposit of ours; signing it would replace or conflict with that deposit`,
      );
    }
  }
  const total = psbt.inputTotalSat ?? 0n;
  return outcome(
    'origin-inputs',
    problems,
    `all ${psbt.inputs.length} input(s) spend our unspent outputs (${total} sat), ${allowOwnUnconfirmed ? 'confirmed or our own tracked change' : 'all confirmed'}, none spent by an in-flight deposit of ours`,
  );
}

/**
 * `tx-size`: the estimated signed weight is at most {@link MAX_STANDARD_TX_WEIGHT} (400,000 WU); a heavier
 * transaction is not relayed by standard nodes, so the deposit would never confirm while its inputs stay
 * committed to it.
 */
export function checkBvmTxSize(psbt: ParsedBvmPsbt): RuleResult {
  if ('problem' in psbt.size) return fail('tx-size', `cannot estimate the signed size: ${psbt.size.problem}`);
  const { weight, vsize } = psbt.size;
  return weight > MAX_STANDARD_TX_WEIGHT
    ? fail('tx-size', `estimated signed weight ${weight} WU exceeds the standard limit of ${MAX_STANDARD_TX_WEIGHT} WU`)
    : outcome('tx-size', [], `estimated signed weight ${weight} WU (~${vsize} vB), within the standard ${MAX_STANDARD_TX_WEIGHT} WU`);
}

/**
 * `change`: every output other than those paying the depository and the OP_RETURN outputs pays our wallet's
 * script; OP_RETURN outputs carry 0 sat (a value there is burnt). How many outputs pay the depository, and
 * how many OP_RETURNs there are, is for `deposit-call` and `deposit-id`.
 */
export function checkBvmChange(psbt: ParsedBvmPsbt, depositoryScript: Uint8Array, wallet: BvmWallet | string): RuleResult {
  const problems: string[] = [];
  let changeSat = 0n;
  let changeCount = 0;
  for (const out of psbt.outputs) {
    if (out.opReturn) {
      if (out.value !== 0n) problems.push(`output ${out.index} (OP_RETURN) carries ${out.value} sat, which would be burnt`);
      continue;
    }
    if (sameScript(out.script, depositoryScript)) continue;
    if (typeof wallet !== 'string' && sameScript(out.script, wallet.script)) {
      changeSat += out.value;
      changeCount += 1;
      continue;
    }
    const payee = out.address ?? `script 0x${Buffer.from(out.script).toString('hex')}`;
    problems.push(`output ${out.index} pays ${out.value} sat to ${payee}, neither the depository nor our wallet`);
  }
  if (typeof wallet === 'string' && problems.length > 0) problems.unshift(wallet);
  return outcome('change', problems, `${changeCount} change output(s) return ${changeSat} sat to our wallet; no other payee`);
}
