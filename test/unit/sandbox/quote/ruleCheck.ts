/**
 * A small checker of docs/relay-contract.md "Local quote verification" rules used to prove each tamper breaks exactly one
 * rule. It is a test oracle, deliberately independent of Ballast's own verifier.
 */
import { decodeFunctionData, erc20Abi, isAddressEqual, type Address, type Hex } from 'viem';
import { computeOrderId } from '../../../../packages/protocol/src/protocol/orderId.ts';
import { depositoryAbi } from '../../../../packages/protocol/src/protocol/depositoryAbi.ts';
import { recoverOrderSigner } from '../../../../packages/protocol/src/protocol/orderSignature.ts';
import { sandboxSlugVmTypes, type SandboxChainTable } from '../../../../packages/sandbox/src/quote/chainTable.ts';
import type { SandboxQuoteResponse } from '../../../../packages/sandbox/src/quote/types.ts';

export interface Expectation {
  user: Address;
  recipient: Address;
  outSlug: string;
  outCurrency: Address;
  inCurrency: Address;
  amountIn: bigint;
  minOutFloor: bigint;
  nowSec: number;
  solver: Address;
  chains: SandboxChainTable;
  inSlug: string;
}

const eq = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** Every 20-byte address anywhere in the sandbox chain table, lower-case. */
function addressesIn(value: unknown, out = new Set<string>()): Set<string> {
  if (typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value)) out.add(value.toLowerCase());
  else if (Array.isArray(value)) value.forEach((v) => addressesIn(v, out));
  else if (value !== null && typeof value === 'object') Object.values(value).forEach((v) => addressesIn(v, out));
  return out;
}

/** Returns the names of the rules the quote breaks. */
export async function brokenRules(q: SandboxQuoteResponse, e: Expectation): Promise<string[]> {
  const broken = new Set<string>();
  const v2 = q.protocol!.v2;
  const od = v2.orderData;
  const pay = od.output.payments[0]!;
  const input = od.inputs[0]!.payment;
  if (!eq(pay.recipient, e.recipient)) broken.add('recipient');
  if (BigInt(pay.minimumAmount) < e.minOutFloor) broken.add('minimumAmount');
  if (!eq(pay.currency, e.outCurrency)) broken.add('outputCurrency');
  if (od.output.chainId !== e.outSlug) broken.add('outputChain');
  if (BigInt(input.amount) !== e.amountIn || !eq(input.currency, e.inCurrency)) broken.add('paymentAmount');
  if (od.output.deadline <= e.nowSec) broken.add('expiredDeadline');
  if (computeOrderId(od, sandboxSlugVmTypes(e.chains)) !== v2.orderId.toLowerCase()) broken.add('orderId');
  const depository = e.chains.find((c) => c.slug === e.inSlug)!.depository;
  const item = q.steps.flatMap((s) => s.items).find((i) => eq(i.data.to, depository) && i.data.data.length > 10);
  if (!eq(v2.paymentDetails.depository, depository) || !item) broken.add('depository');
  const native = eq(input.currency, '0x0000000000000000000000000000000000000000');
  if (item) {
    const call = decodeFunctionData({ abi: depositoryAbi, data: item.data.data });
    const depositor = call.args[0] as Address; // both functions start with the depositor
    const id = call.args[call.args.length - 1] as Hex; // and end with the id
    if (!isAddressEqual(depositor, e.user)) broken.add('depositor');
    if (!eq(id, v2.orderId)) broken.add('depositId');
    if (native) {
      if (call.functionName !== 'depositNative' || BigInt(item.data.value) !== BigInt(input.amount)) broken.add('nativeValue');
    } else {
      const [, token, amount] = call.args as readonly [Address, Address, bigint, Hex];
      if (
        call.functionName !== 'depositErc20' ||
        !eq(token, input.currency) ||
        amount !== BigInt(input.amount) ||
        item.data.value !== '0'
      ) {
        broken.add('nativeValue');
      }
    }
  }
  for (const step of q.steps.filter((s) => s.id === 'approve')) {
    for (const it of step.items) {
      const call = decodeFunctionData({ abi: erc20Abi, data: it.data.data });
      const [spender, amount] = call.args as readonly [Address, bigint];
      if (!eq(it.data.to, input.currency)) broken.add('approveToken');
      const routers = Object.values(e.chains.find((c) => c.slug === e.inSlug)!.v3);
      if (routers.some((r) => eq(r, spender))) broken.add('approveRouter');
      else if (!eq(spender, depository)) broken.add('approveSpender');
      if (amount > BigInt(input.amount)) broken.add('approveAmount');
    }
  }
  if (q.steps.some((s) => s.id !== 'approve' && s.id !== 'deposit')) broken.add('extraStep');
  const refunds = od.inputs.flatMap((i) => i.refunds);
  if (refunds.some((r) => !eq(r.recipient, e.user) && !eq(r.recipient, e.recipient))) broken.add('refundRecipient');
  if (refunds.some((r) => !eq(r.currency, e.inCurrency) && !eq(r.currency, e.outCurrency))) broken.add('refundCurrency');
  if ([od.output.deadline, ...refunds.map((r) => r.deadline)].some((d) => d > e.nowSec + 86_400)) broken.add('farDeadline');
  const known = addressesIn(e.chains);
  const badExtra = (x: string) => x !== '0x' && !(x.length === 66 && /^0x0{24}/.test(x) && known.has(`0x${x.slice(26)}`.toLowerCase()));
  if ([od.output.extraData, ...refunds.map((r) => r.extraData)].some(badExtra)) broken.add('extraData');
  if (!eq(od.solver, e.solver)) broken.add('solver');
  if (od.inputs.some((i) => i.payment.weight !== '1')) broken.add('paymentWeight');
  const expectedSum = od.output.payments.reduce((sum, p) => sum + BigInt(p.expectedAmount), 0n);
  if (BigInt(q.details.currencyOut.amount) !== expectedSum) broken.add('detailsOutAmount');
  if (!isAddressEqual(await recoverOrderSigner(v2.orderId, v2.orderSignature), e.solver)) broken.add('orderSignature');
  return [...broken].sort();
}
