/**
 * Tampering of served quotes, applied AFTER the quote was built and signed, so that a client's local
 * verification (docs/relay-contract.md "Local quote verification" 1–8) must catch it. Each kind breaks one rule and keeps
 * the rest of the quote consistent, so a verifier's refusal can be attributed to that rule:
 *
 * | kind | what changes | rule that must refuse it |
 * |---|---|---|
 * | recipient | output payment recipient (+ details.recipient) → stranger; order re-sealed¹ | 2 recipient |
 * | minimumAmount | output payment minimumAmount (+ details) → 1; re-sealed | 2 guaranteed output |
 * | outputCurrency | output payment currency (+ details) → stranger token; re-sealed | 2 output currency |
 * | outputChain | output.chainId → another sandbox chain's slug (+ details chainId); re-sealed | 2 output chain |
 * | paymentAmount | payment amount ×2 in orderData, paymentDetails, deposit calldata/value, approve; re-sealed | 2 input payment |
 * | expiredDeadline | output.deadline → now − 60 s; re-sealed | 2 deadline |
 * | orderId | orderId → random, and the deposit calldata id and the signature follow it | 3 order id |
 * | depository | paymentDetails.depository and the deposit step `to` → stranger (approve untouched) | 4 depository |
 * | depositor | deposit calldata `depositor` → stranger | 6 depositor |
 * | depositId | deposit calldata `id` → random (orderId untouched) | 6 id |
 * | nativeValue | deposit `value` → 2× amount (native input) or 1 wei (ERC-20 input) | 7 value |
 * | approveAmount | approve amount → 2^256−1 (ERC-20 input only) | approve ≤ amount |
 * | approveSpender | approve spender → stranger (ERC-20 input only) | approve to the depository |
 * | approveToken | approve step `to` → stranger token (ERC-20 input only) | approve only the payment currency |
 * | approveRouter | approve spender → the origin chain's v3 erc20Router from GET /chains (ERC-20 input only) | approve to the depository only |
 * | extraStep | a `transfer` step sending the input to a stranger, inserted before the deposit | no unexpected steps |
 * | orderSignature | signature made by a stranger key over the real order id | solver signature |
 * | refundRecipient | the origin refund's recipient → stranger; re-sealed | refund-recipient |
 * | refundCurrency | the origin refund's currency → stranger token; re-sealed | refund-terms |
 * | farDeadline | output and refund deadlines → 2^32−1 (year 2106); re-sealed | deadline-horizon |
 * | extraData | output.extraData → the stranger address as a 32-byte word; re-sealed | extra-data |
 * | solver | orderData.solver → stranger; re-sealed (the signature no longer matches it either) | solver |
 * | paymentWeight | input payment weight → "2"; re-sealed | payment-weight |
 * | detailsOutAmount | details.currencyOut.amount ×1000 (orderData untouched) | details-consistency |
 *
 * ¹ re-sealed: order id recomputed from the changed orderData, written into the deposit calldata, and signed
 * again by the solver, so only the tampered field differs from what the caller asked for.
 *
 * Some refusals necessarily cascade: a verifier that checks the deposit id and the signature against the
 * order id it recomputes also refuses `orderId` on those rules, and one that locates the deposit by the
 * depository from GET /chains finds no deposit call under `depository`.
 */
import {
  decodeFunctionData,
  encodeFunctionData,
  erc20Abi,
  keccak256,
  maxUint256,
  toHex,
  type Address,
  type Hex,
  type LocalAccount,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { computeOrderId } from '@ballast/protocol/protocol/orderId.ts';
import { depositoryAbi } from '@ballast/protocol/protocol/depositoryAbi.ts';
import { signOrderId } from '@ballast/protocol/protocol/orderSignature.ts';
import type { TamperKind } from '../faults.ts';
import { lower, type SandboxChainTable } from './chainTable.ts';
import { randomBytes32 } from './buildQuote.ts';
import { approveCalldata } from '@ballast/protocol/protocol/quoteParts.ts';
import type { ProtocolV2Json, SandboxQuoteResponse, StepItemJson } from './types.ts';
import { anySlugVmTypes, type SandboxNonEvmChain } from './vmChains.ts';

/** A key nobody trusts (keccak256 of a fixed label); its address stands in for an attacker. */
export const STRANGER_ACCOUNT = privateKeyToAccount(keccak256(toHex('ballast-sandbox-stranger')));
/** Attacker address used by the tampers (lower-case). */
export const STRANGER_ADDRESS: Address = lower(STRANGER_ACCOUNT.address);
/** A token address that is not the payment or output currency. */
export const STRANGER_TOKEN: Address = '0xbad0000000000000000000000000000000000001';

/** What tampering needs beyond the quote. */
export interface TamperContext {
  chains: SandboxChainTable;
  /** The non-EVM chains the sandbox serves (their slugs hash orders that reach them); default none. */
  vmChains?: readonly SandboxNonEvmChain[];
  /** Solver account, to re-sign re-sealed orders. */
  solver: LocalAccount;
  /** Current time, unix seconds. */
  nowSec: number;
  random?: () => Hex;
}

/** Result of {@link tamperQuote}. `applied` is false when the kind does not apply to this quote. */
export interface TamperResult {
  response: SandboxQuoteResponse;
  applied: boolean;
  /** Why it was not applied (empty when applied). */
  reason: string;
}

function depositItem(q: SandboxQuoteResponse): StepItemJson {
  const item = q.steps.find((s) => s.id === 'deposit')?.items[0];
  if (!item) throw new Error('sandbox quote has no deposit step'); // buildSteps always adds one
  return item;
}

function approveItem(q: SandboxQuoteResponse): StepItemJson | undefined {
  return q.steps.find((s) => s.id === 'approve')?.items[0];
}

/** Rewrites the deposit calldata's depositor / amount / id, keeping the function. */
function rewriteDeposit(item: StepItemJson, patch: { depositor?: Address; amount?: bigint; id?: Hex }): void {
  const call = decodeFunctionData({ abi: depositoryAbi, data: item.data.data });
  if (call.functionName === 'depositNative') {
    const [depositor, id] = call.args;
    item.data.data = encodeFunctionData({
      abi: depositoryAbi,
      functionName: 'depositNative',
      args: [patch.depositor ?? depositor, patch.id ?? id],
    });
  } else if (call.functionName === 'depositErc20') {
    const [depositor, token, amount, id] = call.args;
    item.data.data = encodeFunctionData({
      abi: depositoryAbi,
      functionName: 'depositErc20',
      args: [patch.depositor ?? depositor, token, patch.amount ?? amount, patch.id ?? id],
    });
  }
}

async function reseal(q: SandboxQuoteResponse, v2: ProtocolV2Json, ctx: TamperContext): Promise<void> {
  v2.orderId = computeOrderId(v2.orderData, anySlugVmTypes(ctx.chains, ctx.vmChains ?? []));
  rewriteDeposit(depositItem(q), { id: v2.orderId });
  v2.orderSignature = await signOrderId(ctx.solver, v2.orderId);
}

const notApplied = (response: SandboxQuoteResponse, reason: string): TamperResult => ({ response, applied: false, reason });

/**
 * Returns a tampered copy of an EVM-origin quote; the input is not modified. Solana- and Bitcoin-origin quotes
 * have their own tampers (`vmTamper.ts`).
 *
 * @param response a quote built by `buildQuote`
 * @param kind what to tamper (table above)
 * @returns the tampered copy, or the unchanged copy with `applied: false` and a reason when the kind needs
 *   something the quote lacks (`protocol.v2`, an approve step, a second chain)
 */
export async function tamperQuote(response: SandboxQuoteResponse, kind: TamperKind, ctx: TamperContext): Promise<TamperResult> {
  const q = structuredClone(response);
  const random = ctx.random ?? randomBytes32;
  const v2 = q.protocol?.v2;
  if (!v2) return notApplied(q, 'the quote has no protocol.v2 (request it with includeProtocolData: true)');
  const payment = v2.orderData.output.payments[0];
  const input = v2.orderData.inputs[0];
  if (!payment || !input) throw new Error('sandbox orders have one input and one output payment'); // buildQuote invariant
  const deposit = depositItem(q);
  const approve = approveItem(q);

  switch (kind) {
    case 'recipient':
      payment.recipient = STRANGER_ADDRESS;
      q.details.recipient = STRANGER_ADDRESS;
      await reseal(q, v2, ctx);
      break;
    case 'minimumAmount':
      payment.minimumAmount = '1';
      q.details.currencyOut.minimumAmount = '1';
      await reseal(q, v2, ctx);
      break;
    case 'outputCurrency':
      payment.currency = STRANGER_TOKEN;
      q.details.currencyOut.currency.address = STRANGER_TOKEN;
      await reseal(q, v2, ctx);
      break;
    case 'outputChain': {
      const other = ctx.chains.find((c) => c.slug !== v2.orderData.output.chainId);
      if (!other) return notApplied(q, 'outputChain needs a second sandbox chain');
      v2.orderData.output.chainId = other.slug;
      q.details.currencyOut.currency.chainId = other.chainId;
      await reseal(q, v2, ctx);
      break;
    }
    case 'paymentAmount': {
      const doubled = BigInt(input.payment.amount) * 2n;
      input.payment.amount = doubled.toString();
      v2.paymentDetails.amount = doubled.toString();
      q.details.currencyIn.amount = doubled.toString();
      if (!approve)
        deposit.data.value = doubled.toString(); // native input: the value carries the payment
      else rewriteDeposit(deposit, { amount: doubled });
      if (approve) approve.data.data = approveCalldata(deposit.data.to, doubled);
      await reseal(q, v2, ctx);
      break;
    }
    case 'expiredDeadline':
      v2.orderData.output.deadline = ctx.nowSec - 60;
      await reseal(q, v2, ctx);
      break;
    case 'orderId': {
      v2.orderId = random();
      rewriteDeposit(deposit, { id: v2.orderId });
      v2.orderSignature = await signOrderId(ctx.solver, v2.orderId);
      break;
    }
    case 'depository':
      v2.paymentDetails.depository = STRANGER_ADDRESS;
      deposit.data.to = STRANGER_ADDRESS;
      break;
    case 'depositor':
      rewriteDeposit(deposit, { depositor: STRANGER_ADDRESS });
      break;
    case 'depositId':
      rewriteDeposit(deposit, { id: random() });
      break;
    case 'nativeValue':
      deposit.data.value = approve ? '1' : (BigInt(input.payment.amount) * 2n).toString();
      break;
    case 'approveAmount':
      if (!approve) return notApplied(q, 'approveAmount needs an ERC-20 input (no approve step on native input)');
      approve.data.data = approveCalldata(deposit.data.to, maxUint256);
      break;
    case 'approveSpender':
      if (!approve) return notApplied(q, 'approveSpender needs an ERC-20 input (no approve step on native input)');
      approve.data.data = approveCalldata(STRANGER_ADDRESS, BigInt(input.payment.amount));
      break;
    case 'approveRouter': {
      if (!approve) return notApplied(q, 'approveRouter needs an ERC-20 input (no approve step on native input)');
      const origin = ctx.chains.find((c) => c.slug === input.payment.chainId);
      if (!origin) return notApplied(q, `no sandbox chain "${input.payment.chainId}"`);
      approve.data.data = approveCalldata(origin.v3.erc20Router, BigInt(input.payment.amount));
      break;
    }
    case 'approveToken':
      if (!approve) return notApplied(q, 'approveToken needs an ERC-20 input (no approve step on native input)');
      approve.data.to = STRANGER_TOKEN;
      break;
    case 'extraStep': {
      const native = !approve;
      const at = q.steps.findIndex((s) => s.id === 'deposit');
      q.steps.splice(at, 0, {
        id: 'transfer',
        action: 'Confirm transaction in your wallet',
        description: 'Transfer funds',
        kind: 'transaction',
        requestId: q.requestId,
        items: [
          {
            status: 'incomplete',
            data: {
              ...deposit.data,
              to: native ? STRANGER_ADDRESS : (input.payment.currency as Address), // schema: EVM address
              data: native
                ? '0x'
                : encodeFunctionData({
                    abi: erc20Abi,
                    functionName: 'transfer',
                    args: [STRANGER_ADDRESS, BigInt(input.payment.amount)],
                  }),
              value: native ? input.payment.amount : '0',
            },
          },
        ],
      });
      break;
    }
    case 'orderSignature':
      v2.orderSignature = await signOrderId(STRANGER_ACCOUNT, v2.orderId);
      break;
    case 'refundRecipient':
    case 'refundCurrency': {
      const refund = input.refunds[0];
      if (!refund) return notApplied(q, `${kind} needs a refund in the order`);
      if (kind === 'refundRecipient') refund.recipient = STRANGER_ADDRESS;
      else refund.currency = STRANGER_TOKEN;
      await reseal(q, v2, ctx);
      break;
    }
    case 'farDeadline':
      v2.orderData.output.deadline = 2 ** 32 - 1;
      for (const refund of input.refunds) refund.deadline = 2 ** 32 - 1;
      await reseal(q, v2, ctx);
      break;
    case 'extraData':
      v2.orderData.output.extraData = `0x${STRANGER_ADDRESS.slice(2).padStart(64, '0')}`;
      await reseal(q, v2, ctx);
      break;
    case 'solver':
      v2.orderData.solver = STRANGER_ADDRESS;
      await reseal(q, v2, ctx);
      break;
    case 'paymentWeight':
      input.payment.weight = '2';
      await reseal(q, v2, ctx);
      break;
    case 'detailsOutAmount':
      q.details.currencyOut.amount = (BigInt(q.details.currencyOut.amount) * 1000n).toString();
      break;
  }
  return { response: q, applied: true, reason: '' };
}
