/**
 * The Bitcoin fee rules (Ballast's own; docs/design.md "Bitcoin step data": the API chooses the inputs and the fee):
 * - `fee-cap`: the fee rate is at most `bvmMaxFeeRateSatPerVb`;
 * - `fee-floor`: the fee rate is at least the larger of `bvmMinFeeRateSatPerVb` and the node's estimate
 *   (Esplora `GET /fee-estimates`) for the number of blocks the order's deadline leaves (time left ÷ 600 s, at
 *   least 1: src/chains/bvm/feeMarket.ts), so a deposit that cannot be mined before its deadline is refused
 *   before signing (a week-ahead estimate would let a 1 sat/vB deposit through for an order that needs the next
 *   block);
 * - `miner-fee-cap`: the absolute fee is at most `bvmMaxMinerFeeSats` and at most `bvmMaxMinerFeeBps` of the
 *   payment amount, so a PSBT sweeping every UTXO at a rate under the cap still cannot burn the treasury.
 *
 * The fee is Σ inputs − Σ outputs (satoshis), each input valued at our own unspent output's value when the
 * chain listed it (else its witnessUtxo value), so a PSBT cannot understate its fee. Rates are compared in
 * integers: fee × 1000 against a rate in milli-sat/vB × the estimated signed vsize (BIP-141). Pure.
 */
import { fail, outcome, pass } from '../ruleResult.ts';
import type { RuleResult } from '../types.ts';
import type { ParsedBvmPsbt } from './bvmPsbt.ts';
import type { BitcoinFeeEstimate, BitcoinUtxo, DepositLimits } from './types.ts';

/** `txid:vout` with the txid lower-case: how outpoints are keyed throughout the bvm rules. */
export function outpointKey(txid: string, vout: number): string {
  return `${txid.toLowerCase()}:${vout}`;
}

/** The PSBT's fee (satoshis), or why it is unknown. */
export type BvmFeeSat = { feeSat: bigint; inputSat: bigint } | { problem: string };

/** The PSBT's fee and signed size, or why they are unknown. Amounts in satoshis, vsize in vB. */
export type BvmFee = { feeSat: bigint; inputSat: bigint; vsize: number } | { problem: string };

/**
 * Fee of a PSBT: Σ inputs − Σ outputs, each input valued at our unspent output's value when `utxos` lists it,
 * else at its witnessUtxo value.
 *
 * @returns the fee, or a problem: an input of unknown value, or a negative fee
 */
export function bvmFeeSat(psbt: ParsedBvmPsbt, utxos: readonly BitcoinUtxo[] | undefined): BvmFeeSat {
  const ours = new Map((utxos ?? []).map((u) => [outpointKey(u.txid, u.vout), u.value]));
  let inputSat = 0n;
  for (const input of psbt.inputs) {
    const value = ours.get(outpointKey(input.txid, input.vout)) ?? input.witnessUtxo?.value;
    if (value === undefined)
      return { problem: `input ${input.index} has no known value (no witnessUtxo, not one of our outputs); the fee is unknown` };
    inputSat += value;
  }
  const feeSat = inputSat - psbt.outputTotalSat;
  if (feeSat < 0n) return { problem: `outputs total ${psbt.outputTotalSat} sat, more than the ${inputSat} sat of inputs: negative fee` };
  return { feeSat, inputSat };
}

/**
 * {@link bvmFeeSat} and the estimated signed vsize of the PSBT.
 *
 * @returns the fee and vsize, or a problem: an unknown or negative fee, or an unestimable size
 */
export function bvmFeeOf(psbt: ParsedBvmPsbt, utxos: readonly BitcoinUtxo[] | undefined): BvmFee {
  const fee = bvmFeeSat(psbt, utxos);
  if ('problem' in fee) return fee;
  if ('problem' in psbt.size) return { problem: `cannot estimate the signed size: ${psbt.size.problem}` };
  return { ...fee, vsize: psbt.size.vsize };
}

/** A sat/vB rate as integer milli-sat/vB, rounded up (`up`) or to nearest. */
function milliRate(satPerVb: number, up: boolean): bigint {
  return BigInt(up ? Math.ceil(satPerVb * 1000) : Math.round(satPerVb * 1000));
}

/** Integer sat/vB with two decimals, for details. */
export function formatRate(feeSat: bigint, vsize: number): string {
  const centi = (feeSat * 100n) / BigInt(vsize);
  return `${centi / 100n}.${(centi % 100n).toString().padStart(2, '0')}`;
}

function rateText(fee: { feeSat: bigint; vsize: number }): string {
  return `${fee.feeSat} sat over ~${fee.vsize} vB = ${formatRate(fee.feeSat, fee.vsize)} sat/vB`;
}

/**
 * `fee-cap`: fee ÷ estimated signed vsize ≤ `limits.bvmMaxFeeRateSatPerVb`; a negative fee (outputs above
 * inputs) is refused.
 */
export function checkBvmFeeCap(psbt: ParsedBvmPsbt, utxos: readonly BitcoinUtxo[] | undefined, limits: DepositLimits): RuleResult {
  const cap = limits.bvmMaxFeeRateSatPerVb;
  if (!Number.isFinite(cap) || cap < 0)
    return fail('fee-cap', `limits.bvmMaxFeeRateSatPerVb is ${cap}; expected a non-negative number of sat/vB`);
  const fee = bvmFeeOf(psbt, utxos);
  if ('problem' in fee) return fail('fee-cap', fee.problem);
  return fee.feeSat * 1000n > milliRate(cap, false) * BigInt(fee.vsize)
    ? fail('fee-cap', `fee ${rateText(fee)}, above the cap of ${cap} sat/vB`)
    : pass('fee-cap', `fee ${rateText(fee)}, within the cap of ${cap} sat/vB`);
}

/** The floor under the fee rate, sat/vB, and how it was set (for details). */
export function bvmFeeFloor(limits: DepositLimits, estimate: BitcoinFeeEstimate | undefined): { satPerVb: number; source: string } {
  const configured = limits.bvmMinFeeRateSatPerVb;
  const own = `the configured minFeeRateSatPerVb ${configured}`;
  if (estimate === undefined) return { satPerVb: configured, source: `${own} (no node fee estimate read)` };
  if ('problem' in estimate)
    return { satPerVb: configured, source: `${own} (the node's fee estimate could not be read: ${estimate.problem})` };
  const left = estimate.blocksLeft === undefined ? '' : `, for the ${estimate.blocksLeft} block(s) the order's deadline leaves`;
  const node = `the node's ${estimate.targetBlocks}-block estimate ${estimate.satPerVb}${left}`;
  return estimate.satPerVb > configured
    ? { satPerVb: estimate.satPerVb, source: `${node} (above ${own})` }
    : { satPerVb: configured, source: `${own} (not below ${node})` };
}

/**
 * `fee-floor`: fee ÷ estimated signed vsize ≥ the floor of {@link bvmFeeFloor}: the larger of
 * `limits.bvmMinFeeRateSatPerVb` and `estimate.satPerVb` (the node's estimate for the deadline); the configured
 * floor alone when the estimate is absent or could not be read (the detail says so). The vsize estimate is a
 * worst case (largest signatures), so the real rate is never below the one checked.
 */
export function checkBvmFeeFloor(
  psbt: ParsedBvmPsbt,
  utxos: readonly BitcoinUtxo[] | undefined,
  estimate: BitcoinFeeEstimate | undefined,
  limits: DepositLimits,
): RuleResult {
  const min = limits.bvmMinFeeRateSatPerVb;
  if (!Number.isFinite(min) || min < 0)
    return fail('fee-floor', `limits.bvmMinFeeRateSatPerVb is ${min}; expected a non-negative number of sat/vB`);
  if (estimate && !('problem' in estimate) && !(Number.isFinite(estimate.satPerVb) && estimate.satPerVb >= 0)) {
    return fail('fee-floor', `the node's fee estimate is ${estimate.satPerVb}; expected a non-negative number of sat/vB`);
  }
  const fee = bvmFeeOf(psbt, utxos);
  if ('problem' in fee) return fail('fee-floor', fee.problem);
  const floor = bvmFeeFloor(limits, estimate);
  return fee.feeSat * 1000n < milliRate(floor.satPerVb, true) * BigInt(fee.vsize)
    ? fail(
        'fee-floor',
        `fee ${rateText(fee)}, below the floor of ${floor.satPerVb} sat/vB (${floor.source}); the deposit may never propagate or confirm`,
      )
    : pass('fee-floor', `fee ${rateText(fee)}, at least the floor of ${floor.satPerVb} sat/vB (${floor.source})`);
}

/**
 * `miner-fee-cap`: the fee is at most `limits.bvmMaxMinerFeeSats` and at most `limits.bvmMaxMinerFeeBps` of
 * `paymentSat` (fee × 10,000 ≤ payment × bps).
 *
 * @param paymentSat the order's payment amount, satoshis
 */
export function checkBvmMinerFeeCap(
  psbt: ParsedBvmPsbt,
  utxos: readonly BitcoinUtxo[] | undefined,
  paymentSat: bigint,
  limits: DepositLimits,
): RuleResult {
  const { bvmMaxMinerFeeSats: maxSats, bvmMaxMinerFeeBps: maxBps } = limits;
  if (maxSats < 0n) return fail('miner-fee-cap', `limits.bvmMaxMinerFeeSats is ${maxSats}; expected a non-negative number of satoshis`);
  if (!Number.isSafeInteger(maxBps) || maxBps < 0)
    return fail('miner-fee-cap', `limits.bvmMaxMinerFeeBps is ${maxBps}; expected a non-negative integer of bps`);
  const fee = bvmFeeSat(psbt, utxos);
  if ('problem' in fee) return fail('miner-fee-cap', fee.problem);
  const { feeSat } = fee;
  const problems: string[] = [];
  if (feeSat > maxSats) problems.push(`miner fee ${feeSat} sat is above the cap of ${maxSats} sat (maxMinerFeeSats)`);
  const share = paymentSat > 0n ? `${(feeSat * 10_000n + paymentSat - 1n) / paymentSat} bps` : 'all';
  if (feeSat * 10_000n > paymentSat * BigInt(maxBps)) {
    problems.push(`miner fee ${feeSat} sat is ${share} of the ${paymentSat}-sat payment, above the cap of ${maxBps} bps (maxMinerFeeBps)`);
  }
  return outcome(
    'miner-fee-cap',
    problems,
    `miner fee ${feeSat} sat (${share} of the ${paymentSat}-sat payment), within ${maxSats} sat and ${maxBps} bps`,
  );
}
