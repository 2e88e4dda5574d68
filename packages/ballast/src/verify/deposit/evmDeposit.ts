/**
 * EVM deposit checks (docs/relay-contract.md "Local quote verification" 5–7): find the single step item sent to the
 * depository from GET /chains, decode its calldata, and compare the id, depositor and the native/ERC-20 form
 * with the order.
 */
import type { Hex } from 'viem';
import type { EvmTxData } from '@ballast/protocol/relay/schemas.ts';
import { nativeCurrencyOf, sameAddress } from '../addresses.ts';
import type { PaymentFacts } from '../context.ts';
import { fail, outcome, pass, skipped } from '../ruleResult.ts';
import type { RuleResult } from '../types.ts';
import { decodeDepositCall, type DepositCall, type EvmItem } from './evmItems.ts';

/** The deposit item (parsed) and its decoded depository call. */
export interface LocatedDeposit {
  item: EvmItem;
  tx: EvmTxData;
  call: DepositCall;
}

/**
 * `deposit-call` (docs/relay-contract.md "Local quote verification" 5): exactly one transaction item has `to` equal to the
 * depository; its `chainId` is the payment chain's numeric id; its calldata decodes canonically as `depositNative` or
 * `depositErc20`.
 *
 * @param items every transaction step item of the quote
 * @param depository the payment chain's depository from GET /chains
 * @param chainId the payment chain's numeric id from GET /chains
 */
export function locateEvmDeposit(
  items: readonly EvmItem[],
  depository: string,
  chainId: number,
): { result: RuleResult; deposit: LocatedDeposit | null } {
  const candidates = items.filter((i) => i.rawTo !== undefined && sameAddress(i.rawTo, depository, 'evm'));
  const only = candidates[0];
  const failed = (detail: string) => ({ result: fail('deposit-call', detail), deposit: null });
  if (!only) return failed(`no transaction step item has to == depository ${depository} (from GET /chains)`);
  if (candidates.length > 1) {
    return failed(
      `${candidates.length} step items target the depository (${candidates.map((c) => c.path).join(', ')}); expected exactly one`,
    );
  }
  if (!only.tx) return failed(`${only.path}.data is not an EVM transaction: ${only.parseError ?? 'unparsable'}`);
  if (only.tx.chainId !== chainId) {
    return failed(`${only.path}.data.chainId is ${only.tx.chainId}, expected payment chain ${chainId}`);
  }
  const call = decodeDepositCall(only.tx.data as Hex); // schema checked 0x hex
  if (typeof call === 'string') return failed(`${only.path}.data.data: ${call}`);
  return {
    result: pass('deposit-call', `${only.path}: ${call.functionName} to ${depository} on chain ${chainId}`),
    deposit: { item: only, tx: only.tx, call },
  };
}

/**
 * `deposit-id` (docs/relay-contract.md "Local quote verification" 6): the decoded `id` equals the recomputed order id
 * (skipped when that is unknown).
 */
export function checkEvmDepositId(deposit: LocatedDeposit, orderId: Hex | null): RuleResult {
  if (orderId === null) return skipped('deposit-id', 'order-id');
  const id = deposit.call.id.toLowerCase();
  return id === orderId.toLowerCase()
    ? pass('deposit-id', `${deposit.item.path} deposits for order ${orderId}`)
    : fail('deposit-id', `${deposit.item.path} ${deposit.call.functionName} id is ${id}, expected recomputed order id ${orderId}`);
}

/**
 * `depositor` (docs/relay-contract.md "Local quote verification" 6): the decoded `depositor` equals our own wallet
 * (`expect.user`).
 */
export function checkEvmDepositor(deposit: LocatedDeposit, user: string): RuleResult {
  const { depositor } = deposit.call;
  return sameAddress(depositor, user, 'evm')
    ? pass('depositor', `${deposit.item.path} credits depositor ${user}`)
    : fail('depositor', `${deposit.item.path} ${deposit.call.functionName} depositor is ${depositor}, expected ${user}`);
}

/**
 * `deposit-kind` (docs/relay-contract.md "Local quote verification" 7): `depositNative` iff the payment currency is the VM's
 * native currency. Native: the transaction `value` equals the payment amount. ERC-20: `token` equals the payment
 * currency, `amount` equals the payment amount and `value` is 0. Amounts in base units.
 */
export function checkEvmDepositKind(deposit: LocatedDeposit, payment: PaymentFacts, vmType: string): RuleResult {
  const { call, item } = deposit;
  const value = BigInt(deposit.tx.value); // schema checked an unsigned integer string
  const native = nativeCurrencyOf(vmType);
  const isNative = native !== undefined && sameAddress(payment.currency, native, vmType);
  const problems: string[] = [];
  if (isNative) {
    if (call.functionName !== 'depositNative') {
      problems.push(`${item.path} calls ${call.functionName}, but payment currency ${payment.currency} is native: expected depositNative`);
    }
    if (value !== payment.amount) problems.push(`${item.path}.data.value is ${value}, expected payment amount ${payment.amount}`);
  } else {
    if (call.functionName !== 'depositErc20') {
      problems.push(`${item.path} calls ${call.functionName}, but payment currency ${payment.currency} is a token: expected depositErc20`);
    } else {
      if (!sameAddress(call.token, payment.currency, vmType)) {
        problems.push(`${item.path} depositErc20 token is ${call.token}, expected payment currency ${payment.currency}`);
      }
      if (call.amount !== payment.amount) {
        problems.push(`${item.path} depositErc20 amount is ${call.amount}, expected payment amount ${payment.amount}`);
      }
    }
    if (value !== 0n) problems.push(`${item.path}.data.value is ${value}, expected 0 for a token deposit`);
  }
  const what = isNative ? `native ${payment.amount}` : `${payment.amount} of token ${payment.currency}`;
  return outcome('deposit-kind', problems, `${call.functionName} of ${what}`);
}
