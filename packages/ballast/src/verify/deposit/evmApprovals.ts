/**
 * Ballast's rules on the other EVM steps of a quote: the only transactions besides the deposit may be
 * ERC-20 approvals of the payment token, to the depository and nobody else, for at most the payment amount;
 * every item is sent from our own wallet.
 */
import type { Hex } from 'viem';
import type { Chain } from '@ballast/protocol/relay/schemas.ts';
import { nativeCurrencyOf, sameAddress } from '../addresses.ts';
import type { PaymentFacts } from '../context.ts';
import { outcome } from '../ruleResult.ts';
import type { RuleResult } from '../types.ts';
import type { LocatedDeposit } from './evmDeposit.ts';
import { decodeApproveCall, isApproveSelector, type ApproveCall, type EvmItem } from './evmItems.ts';

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

/** An approval item with its decoded call (or why the calldata does not decode). */
interface ApprovalItem {
  item: EvmItem & { tx: NonNullable<EvmItem['tx']> };
  call: ApproveCall | string;
}

/** Every non-deposit item whose calldata carries the ERC-20 `approve` selector, decoded. */
function approvalItems(items: readonly EvmItem[], deposit: LocatedDeposit | null, depository: string): ApprovalItem[] {
  const out: ApprovalItem[] = [];
  for (const item of items) {
    if (item === deposit?.item || !item.tx || targetsDepository(item, depository)) continue;
    const data = item.tx.data as Hex; // schema checked 0x hex
    if (!isApproveSelector(data)) continue;
    out.push({ item: item as ApprovalItem['item'], call: decodeApproveCall(data) }); // tx checked non-null above
  }
  return out;
}

/** True when the payment is the payment chain's native currency (no allowance is ever needed then). */
function isNativePayment(facts: EvmStepFacts): boolean {
  const native = nativeCurrencyOf(facts.paymentChain.vmType);
  return native !== undefined && sameAddress(facts.payment.currency, native, facts.paymentChain.vmType);
}

/**
 * `approve`: every approval item decodes canonically, approves at most the payment amount (base units), runs
 * on the payment chain, carries no native value and comes before the deposit; there is at most one approval,
 * so the total approved never exceeds the payment amount. Who may spend is `approve-spender`'s question,
 * whether an approval is needed at all `approve-needed`'s.
 */
export function checkEvmApprovals(items: readonly EvmItem[], deposit: LocatedDeposit | null, facts: EvmStepFacts): RuleResult {
  const { payment, paymentChain } = facts;
  const approvals = approvalItems(items, deposit, facts.depository);
  const problems: string[] = [];
  let approvedTotal = 0n;
  for (const { item, call } of approvals) {
    if (typeof call === 'string') {
      problems.push(`${item.path}.data.data: ${call}`);
      continue;
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
  if (approvals.length > 1) problems.push(`${approvals.length} approval items; at most one approval of the payment token is expected`);
  if (approvedTotal > payment.amount) {
    problems.push(`approvals total ${approvedTotal}, more than the payment amount ${payment.amount}`);
  }
  const okDetail = approvals.length ? `${approvals.length} approval(s) within the payment amount, before the deposit` : 'no approval items';
  return outcome('approve', problems, okDetail);
}

/**
 * `approve-spender`: every approval names the payment chain's depository (`protocol.v2.depository` of GET
 * /chains) as spender and nothing else. The routers and approval proxies GET /chains also lists execute
 * arbitrary calls for any caller, so an allowance left with them can be taken by anyone (docs/design.md
 * "Approvals"); the zero address and unknown contracts are refused alike.
 */
export function checkEvmApproveSpender(items: readonly EvmItem[], deposit: LocatedDeposit | null, facts: EvmStepFacts): RuleResult {
  const { depository, paymentChain } = facts;
  const problems: string[] = [];
  const approvals = approvalItems(items, deposit, depository);
  for (const { item, call } of approvals) {
    if (typeof call === 'string') {
      problems.push(`${item.path}.data.data: ${call}; cannot read the spender`);
    } else if (!sameAddress(call.spender, depository, 'evm')) {
      problems.push(
        `${item.path} approves spender ${call.spender}; the only accepted spender is the depository ${depository} of chain ${paymentChain.id} (GET /chains)`,
      );
    }
  }
  return outcome('approve-spender', problems, approvals.length ? `every approval names the depository ${depository}` : 'no approval items');
}

/**
 * `approve-needed`: an approval exists only where a deposit needs one: the payment is an ERC-20 (never the
 * native currency) and the approval is of exactly that token. Approvals of anything else are refused, not
 * ignored.
 */
export function checkEvmApproveNeeded(items: readonly EvmItem[], deposit: LocatedDeposit | null, facts: EvmStepFacts): RuleResult {
  const { payment } = facts;
  const native = isNativePayment(facts);
  const problems: string[] = [];
  const approvals = approvalItems(items, deposit, facts.depository);
  for (const { item } of approvals) {
    if (native) {
      problems.push(`${item.path} approves token ${item.tx.to}, but the payment ${payment.currency} is native: no approval is needed`);
    } else if (!sameAddress(item.tx.to, payment.currency, 'evm')) {
      problems.push(`${item.path} approves token ${item.tx.to}, expected only the payment currency ${payment.currency}`);
    }
  }
  return outcome('approve-needed', problems, approvals.length ? `approval of the payment token ${payment.currency}` : 'no approval items');
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
