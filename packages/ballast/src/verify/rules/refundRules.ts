/**
 * Rules on what the order does when it cannot fill (Ballast): who its refunds pay, on which chain, in which
 * currency and until when, and which contracts its `extraData` fields name. Real orders carry two refunds, one
 * per chain (origin: the payment currency; destination: the output currency), `minimumAmount` "0", and
 * `extraData` = a Relay contract left-padded to 32 bytes (docs/design.md "Real orderData"; docs/relay-contract.md
 * "protocol.v2").
 */
import { sameAddress } from '../addresses.ts';
import { listedContracts } from '../chainsIndex.ts';
import type { VerifyContext } from '../context.ts';
import { outcome, skipped } from '../ruleResult.ts';
import type { RuleResult } from '../types.ts';

/** Our wallets a refund may pay: `user`, `recipient`, `refundTo` and `ourWallets` of the expectations. */
function ourWallets(ctx: VerifyContext): string[] {
  const e = ctx.expect;
  return [e.user, e.recipient, ...(e.refundTo !== undefined ? [e.refundTo] : []), ...(e.ourWallets ?? [])];
}

function paysUs(ctx: VerifyContext, recipient: string, vmType: string | undefined): boolean {
  return ourWallets(ctx).some((w) => sameAddress(recipient, w, vmType));
}

/**
 * `refund-recipient`: every refund option pays back to one of our own wallets (`expect.user`,
 * `expect.recipient`, `expect.refundTo` or `expect.ourWallets`), so a quote cannot route refunds to a third party.
 * Ballast sets `refundTo` to the origin wallet; which refund must pay exactly that wallet is `refund-terms`'s.
 */
export function checkRefundRecipients(ctx: VerifyContext): RuleResult {
  if (!ctx.order) return skipped('refund-recipient', 'protocol-present');
  let count = 0;
  const problems: string[] = [];
  ctx.order.inputs.forEach((input, i) =>
    input.refunds.forEach((refund, j) => {
      count++;
      const vm = ctx.chains.bySlug(refund.chainId)?.vmType;
      if (!paysUs(ctx, refund.recipient, vm)) {
        problems.push(
          `inputs[${i}].refunds[${j}].recipient is ${refund.recipient}, expected one of our wallets (${ourWallets(ctx).join(', ')})`,
        );
      }
    }),
  );
  return outcome('refund-recipient', problems, count ? `${count} refund option(s) pay our wallets` : 'no refund options');
}

/**
 * `refund-terms`: each refund is either on the payment chain in the payment currency or on the output chain
 * in the output currency; no refund deadline is before `output.deadline` (a refund that lapses first would
 * leave an unfilled deposit with no way back); and the way back for a deposit that is never filled exists: a
 * refund on the payment chain in the payment currency. Refunds are paid on the origin chain to the quote's
 * `refundTo` (https://docs.relay.link/references/api/api_core_concepts/refunds), so with `expect.refundTo` set
 * every such origin refund must pay exactly that address (another of our wallets, or the native-currency
 * "refund to depositor" sentinel, is refused); without it one of them must pay one of our wallets. Deadlines in
 * unix seconds.
 */
export function checkRefundTerms(ctx: VerifyContext): RuleResult {
  const order = ctx.order;
  if (!order) return skipped('refund-terms', 'protocol-present');
  if (!ctx.payment) return skipped('refund-terms', 'input-payment');
  const payment = ctx.payment;
  const paymentVm = ctx.paymentChain?.vmType;
  const outputVm = ctx.outputChain?.vmType;
  const outCurrency = order.output.payments[0]?.currency;
  const refundTo = ctx.expect.refundTo;
  const problems: string[] = [];
  let originRefundToUs = false;
  order.inputs.forEach((input, i) =>
    input.refunds.forEach((refund, j) => {
      const at = `inputs[${i}].refunds[${j}]`;
      const onOrigin = refund.chainId === payment.chainSlug && sameAddress(refund.currency, payment.currency, paymentVm);
      const onDestination =
        refund.chainId === order.output.chainId && outCurrency !== undefined && sameAddress(refund.currency, outCurrency, outputVm);
      if (!onOrigin && !onDestination) {
        problems.push(
          `${at} refunds ${refund.currency} on "${refund.chainId}"; expected the payment currency on "${payment.chainSlug}" or the output currency on "${order.output.chainId}"`,
        );
      }
      if (onOrigin && refundTo !== undefined) {
        if (sameAddress(refund.recipient, refundTo, paymentVm)) originRefundToUs = true;
        else problems.push(`${at}.recipient is ${refund.recipient}; the origin refund must pay the refundTo we asked for, ${refundTo}`);
      } else if (onOrigin && paysUs(ctx, refund.recipient, paymentVm)) originRefundToUs = true;
      if (refund.deadline < order.output.deadline) {
        problems.push(`${at}.deadline ${refund.deadline} is before output.deadline ${order.output.deadline}`);
      }
    }),
  );
  if (!originRefundToUs) {
    const whom = refundTo !== undefined ? `refundTo ${refundTo}` : 'our wallet';
    problems.push(`no refund pays ${whom} on the payment chain "${payment.chainSlug}" in the payment currency ${payment.currency}`);
  }
  const ok =
    refundTo !== undefined
      ? `origin refunds pay refundTo ${refundTo} in the payment currency; refunds last until output.deadline`
      : 'refunds stay on the payment or output leg, last until output.deadline, and one returns the payment to us';
  return outcome('refund-terms', problems, ok);
}

const EVM_WORD_ADDRESS_RE = /^0x0{24}([0-9a-fA-F]{40})$/;
const EVM_ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

/**
 * Reads an `extraData` value as an EVM contract address: empty (`0x`) → null; a 32-byte word whose first 12
 * bytes are zero, or a bare 20-byte address → the address; anything else → a string saying why not.
 */
function extraDataAddress(extraData: string): { address: string | null } | { error: string } {
  if (extraData === '0x') return { address: null };
  const word = EVM_WORD_ADDRESS_RE.exec(extraData);
  if (word) return { address: `0x${word[1]}` };
  if (EVM_ADDRESS_RE.test(extraData)) return { address: extraData };
  return { error: `is ${extraData.length > 74 ? `${extraData.slice(0, 74)}…` : extraData}, not an address left-padded to 32 bytes` };
}

/**
 * `extra-data`: `output.extraData` and every refund's `extraData` are empty or name a contract GET /chains
 * lists for that leg's chain (`contracts`, any group, or the depository). On chains whose VM is not EVM-style
 * only empty `extraData` is accepted until that VM's form is known.
 */
export function checkExtraData(ctx: VerifyContext): RuleResult {
  const order = ctx.order;
  if (!order) return skipped('extra-data', 'protocol-present');
  const problems: string[] = [];
  const check = (at: string, slug: string, extraData: string): void => {
    const chain = ctx.chains.bySlug(slug);
    if (!chain) {
      if (extraData !== '0x') problems.push(`${at}.extraData names a contract on "${slug}", a chain GET /chains does not list`);
      return;
    }
    const vm = chain.vmType;
    if (vm !== 'evm' && vm !== 'hypevm') {
      if (extraData !== '0x') problems.push(`${at}.extraData is ${extraData}; only empty extraData is accepted on ${vm} chain "${slug}"`);
      return;
    }
    const read = extraDataAddress(extraData);
    if ('error' in read) {
      problems.push(`${at}.extraData ${read.error}`);
      return;
    }
    if (read.address === null) return;
    const address = read.address;
    if (!listedContracts(chain).some((c) => sameAddress(c.address, address, vm))) {
      problems.push(`${at}.extraData names ${address}, which GET /chains does not list as a contract of chain ${chain.id}`);
    }
  };
  check('output', order.output.chainId, order.output.extraData);
  order.inputs.forEach((input, i) => input.refunds.forEach((r, j) => check(`inputs[${i}].refunds[${j}]`, r.chainId, r.extraData)));
  return outcome('extra-data', problems, 'output and refund extraData are empty or name contracts GET /chains lists');
}
