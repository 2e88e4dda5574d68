/**
 * Ballast's rules on the other EVM steps of a quote: the only transactions besides the deposit may be
 * ERC-20 approvals of the payment token, to the depository or a contract GET /chains lists for the payment
 * chain, for at most the payment amount; every item is sent from our own wallet.
 */
import type { Hex } from 'viem';
import type { Chain } from '../../relay/schemas.ts';
import { sameAddress } from '../addresses.ts';
import { contractAddresses } from '../chainsIndex.ts';
import type { PaymentFacts } from '../context.ts';
import { outcome } from '../ruleResult.ts';
import type { RuleResult } from '../types.ts';
import type { LocatedDeposit } from './evmDeposit.ts';
import { decodeApproveCall, isApproveSelector, type EvmItem } from './evmItems.ts';

/** Facts the step rules compare against, all from our state or GET /chains. */
export interface EvmStepFacts {
  user: string;
  payment: PaymentFacts;
  paymentChain: Chain;
  depository: string;
}

/** Orders two item positions: negative when `a` comes first in the quote. */
function compareRefs(a: { stepIndex: number; itemIndex: number }, b: { stepIndex: number; itemIndex: number }): number {
  return a.stepIndex - b.stepIndex || a.itemIndex - b.itemIndex;
}

function targetsDepository(item: EvmItem, depository: string): boolean {
  return item.rawTo !== undefined && sameAddress(item.rawTo, depository, 'evm');
}

/**
 * `approve`: every non-deposit item whose calldata has the ERC-20 `approve` selector decodes canonically,
 * targets the payment currency, names an allowed spender (the depository or a Relay contract the chain's
 * `contracts` lists, generic multicall contracts excluded), approves at most the payment amount (base units),
 * runs on the payment chain, carries no native value and comes before the deposit; there is at most one
 * approval, so the total approved never exceeds the payment amount.
 */
export function checkEvmApprovals(items: readonly EvmItem[], deposit: LocatedDeposit | null, facts: EvmStepFacts): RuleResult {
  const { payment, paymentChain, depository } = facts;
  const spenders = [depository, ...contractAddresses(paymentChain)];
  const problems: string[] = [];
  let count = 0;
  let approvedTotal = 0n;
  for (const item of items) {
    if (item === deposit?.item || !item.tx || targetsDepository(item, depository)) continue;
    const data = item.tx.data as Hex; // schema checked 0x hex
    if (!isApproveSelector(data)) continue;
    count++;
    const call = decodeApproveCall(data);
    if (typeof call === 'string') {
      problems.push(`${item.path}.data.data: ${call}`);
      continue;
    }
    if (!sameAddress(item.tx.to, payment.currency, 'evm')) {
      problems.push(`${item.path} approves token ${item.tx.to}, expected payment currency ${payment.currency}`);
    }
    if (!spenders.some((s) => sameAddress(s, call.spender, 'evm'))) {
      problems.push(
        `${item.path} approves spender ${call.spender}, which is neither the depository ${depository} nor a contract of chain ${paymentChain.id} in GET /chains`,
      );
    }
    if (call.amount > payment.amount) {
      problems.push(`${item.path} approves ${call.amount}, more than the payment amount ${payment.amount}`);
    }
    approvedTotal += call.amount;
    if (deposit && compareRefs(item.ref, deposit.item.ref) > 0) {
      problems.push(`${item.path} approves after the deposit (${deposit.item.path}); an approval must come first`);
    }
    if (item.tx.chainId !== paymentChain.id) {
      problems.push(`${item.path}.data.chainId is ${item.tx.chainId}, expected payment chain ${paymentChain.id}`);
    }
    if (BigInt(item.tx.value) !== 0n) problems.push(`${item.path}.data.value is ${item.tx.value}, expected 0 for an approval`);
  }
  if (count > 1) problems.push(`${count} approval items; at most one approval of the payment token is expected`);
  if (approvedTotal > payment.amount) {
    problems.push(`approvals total ${approvedTotal}, more than the payment amount ${payment.amount}`);
  }
  return outcome('approve', problems, count ? `${count} approval(s) of the payment token to allowed spenders` : 'no approval items');
}

/**
 * `no-unexpected-steps`: no `signature` steps and no deposit-address steps; every transaction item parses as
 * an EVM transaction sent from `expect.user`; and each is the deposit, another item aimed at the depository
 * (judged by `deposit-call`) or an ERC-20 approval (judged by `approve`). Anything else fails.
 */
export function checkEvmNoUnexpectedSteps(
  items: readonly EvmItem[],
  stepProblems: readonly string[],
  deposit: LocatedDeposit | null,
  facts: EvmStepFacts,
): RuleResult {
  const problems = [...stepProblems];
  for (const item of items) {
    const atDepository = targetsDepository(item, facts.depository);
    if (!item.tx) {
      if (!atDepository) problems.push(`${item.path}.data is not an EVM transaction: ${item.parseError ?? 'unparsable'}`);
      continue;
    }
    if (!sameAddress(item.tx.from, facts.user, 'evm')) {
      problems.push(`${item.path}.data.from is ${item.tx.from}, expected our wallet ${facts.user}`);
    }
    if (item === deposit?.item || atDepository || isApproveSelector(item.tx.data as Hex)) continue;
    problems.push(
      `${item.path}: unexpected transaction to ${item.tx.to} (selector ${item.tx.data.slice(0, 10)}); only approvals and the deposit are allowed`,
    );
  }
  return outcome('no-unexpected-steps', problems, `${items.length} transaction item(s), all expected, all from ${facts.user}`);
}
