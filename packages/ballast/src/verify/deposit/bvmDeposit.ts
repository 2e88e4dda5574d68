/**
 * Bitcoin deposit checks (docs/relay-contract.md "Local quote verification" 6–7, in their Bitcoin form; docs/design.md
 * "Bitcoin step data"): the order id in the first OP_RETURN, who the deposit credits (the memo's `|depositor=` or else
 * the first input's address), and that a native BTC payment of exactly the payment amount reaches the depository.
 */
import type { Hex } from 'viem';
import { decodeOrderIdMemo, sameScript, type OrderIdMemo } from '@ballast/protocol/protocol/bitcoinDeposit.ts';
import { nativeCurrencyOf, sameAddress } from '../addresses.ts';
import type { PaymentFacts } from '../context.ts';
import { fail, outcome, pass, skipped } from '../ruleResult.ts';
import type { RuleResult } from '../types.ts';
import type { BvmDeposit, BvmWallet } from './bvmItems.ts';
import type { ParsedBvmPsbt } from './bvmPsbt.ts';

/** Printable form of OP_RETURN data for details: the text when it is printable ASCII, else hex. */
function showData(data: Uint8Array | null): string {
  if (data === null) return 'not a single data push';
  const text = Buffer.from(data).toString('latin1');
  const shown = /^[\x20-\x7e]*$/.test(text) ? JSON.stringify(text) : `0x${Buffer.from(data).toString('hex')}`;
  return shown.length > 160 ? `${shown.slice(0, 160)}…` : shown;
}

/** The decoded memo of the PSBT's first OP_RETURN output, or null when there is none or it does not decode. */
export function firstOrderIdMemo(psbt: ParsedBvmPsbt): OrderIdMemo | null {
  const first = psbt.outputs.find((o) => o.opReturn);
  return first?.opReturnData ? decodeOrderIdMemo(first.opReturnData) : null;
}

/**
 * `deposit-id`: the first OP_RETURN output (the one the solver reads) holds a single push that decodes as an
 * order-id memo whose id equals the recomputed order id (case-insensitive), and it is the PSBT's only
 * OP_RETURN. Skipped when the order id could not be recomputed.
 */
export function checkBvmDepositId(deposit: BvmDeposit, orderId: Hex | null): RuleResult {
  if (orderId === null) return skipped('deposit-id', 'order-id');
  const { item, psbt } = deposit;
  const opReturns = psbt.outputs.filter((o) => o.opReturn);
  const first = opReturns[0];
  if (!first) return fail('deposit-id', `${item.path}: the PSBT has no OP_RETURN output; the order id must travel in one`);
  const problems: string[] = [];
  const memo = first.opReturnData ? decodeOrderIdMemo(first.opReturnData) : null;
  if (!memo) {
    problems.push(`${item.path} output ${first.index} (first OP_RETURN) is not an order-id memo: ${showData(first.opReturnData)}`);
  } else if (memo.orderId !== orderId.toLowerCase()) {
    problems.push(`${item.path} output ${first.index} carries order id ${memo.orderId}, expected recomputed order id ${orderId}`);
  }
  if (opReturns.length > 1) {
    problems.push(
      `${item.path} has ${opReturns.length} OP_RETURN outputs (${opReturns.map((o) => o.index).join(', ')}); expected exactly one`,
    );
  }
  return outcome('deposit-id', problems, `${item.path} output ${first.index} carries order id ${orderId}`);
}

/**
 * `depositor`: the deposit credits our wallet. When the first OP_RETURN's memo names a depositor, it must be
 * `expect.user` exactly (Bitcoin addresses are case-sensitive); otherwise the depositor is the first input's
 * address, so the first input must spend from our wallet's script.
 */
export function checkBvmDepositor(deposit: BvmDeposit, user: string, wallet: BvmWallet | string): RuleResult {
  const { item, psbt } = deposit;
  const memo = firstOrderIdMemo(psbt);
  if (memo?.depositor !== undefined) {
    return sameAddress(memo.depositor, user, 'bvm')
      ? pass('depositor', `${item.path} memo credits depositor ${user}`)
      : fail('depositor', `${item.path} memo names depositor ${memo.depositor}, expected ${user}`);
  }
  if (typeof wallet === 'string') return fail('depositor', wallet);
  const first = psbt.inputs[0];
  if (!first) return fail('depositor', `${item.path}: the PSBT has no inputs, so no depositor`);
  if (!first.witnessUtxo) {
    return fail('depositor', `${item.path} input 0 has no witnessUtxo; the depositor (first input's address) is unknown`);
  }
  return sameScript(first.witnessUtxo.script, wallet.script)
    ? pass('depositor', `${item.path}: no depositor in the memo; input 0 spends from ${user}, who is credited`)
    : fail(
        'depositor',
        `${item.path}: no depositor in the memo and input 0 does not spend from ${user}; the deposit would credit someone else`,
      );
}

/**
 * `deposit-kind`: the payment currency is the payment chain's native currency (BTC,
 * `bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8`; Bitcoin has no tokens to deposit) and the depository output's
 * value equals the payment amount, in satoshis.
 */
export function checkBvmDepositKind(deposit: BvmDeposit, payment: PaymentFacts, vmType: string): RuleResult {
  const { item, output } = deposit;
  const native = nativeCurrencyOf(vmType);
  const problems: string[] = [];
  if (native === undefined || !sameAddress(payment.currency, native, vmType)) {
    problems.push(
      `payment currency ${payment.currency} is not native BTC (${native ?? 'unknown for ' + vmType}); Bitcoin deposits are native only`,
    );
  }
  if (output.value !== payment.amount) {
    problems.push(
      `${item.path} output ${output.index} pays the depository ${output.value} sat, expected payment amount ${payment.amount} sat`,
    );
  }
  return outcome('deposit-kind', problems, `native deposit of ${payment.amount} sat in output ${output.index}`);
}
