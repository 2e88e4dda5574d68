/**
 * verifyQuote on copies of the test quotes tampered in the steps: the deposit transaction, approvals and extra
 * items (docs/relay-contract.md "Local quote verification" 5–7 and Ballast's step rules). Runs on every quote case
 * (`QUOTE_CASES`).
 */
import { encodeFunctionData, erc20Abi, getAddress, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { verifyQuote } from '../../../packages/ballast/src/verify/verifyQuote.ts';
import type { VerifyQuoteInput } from '../../../packages/ballast/src/verify/types.ts';
import { QUOTE_CASES } from '../../fixtures/quoteCase.ts';
import {
  caseInput,
  chainById,
  detailOf,
  failing,
  itemData,
  readDepositCall,
  reseal,
  v2Of,
  writeApprove,
  writeDepositCall,
} from '../../fixtures/quoteTamper.ts';
import { ROUTER_32_CONTRACTS } from '../../fixtures/relay.ts';

const STRANGER: Hex = '0x000000000000000000000000000000000000dead';
const ZERO: Hex = '0x0000000000000000000000000000000000000000';
const STRANGER_TOKEN: Hex = '0x000000000000000000000000000000000000beef';
const DEPOSIT_SKIPS = ['deposit-call', 'deposit-id', 'deposit-kind', 'depositor'];
/** Where rule details name a step item (`EvmItem.path`). */
const itemPath = (at: { stepIndex: number; itemIndex: number }) => `steps[${at.stepIndex}].items[${at.itemIndex}]`;

function erc20Deposit(depositor: Hex, token: Hex, amount: bigint, id: Hex) {
  return { functionName: 'depositErc20', args: [depositor, token, amount, id] } as const;
}

describe.each(QUOTE_CASES.map((c) => [c.name, c] as const))('verifyQuote on the %s quote', (_name, c) => {
  const f = c.facts;
  const USER = f.user;
  const ID = f.orderId;
  const APPROVE_AT = f.approveAt;
  const DEPOSIT_AT = f.depositAt;
  const freshInput = () => caseInput(c);

  /** The quote turned into a consistent native-ETH order: no approval, depositNative with value. */
  function nativeInput(): VerifyQuoteInput {
    const input = freshInput();
    const v2 = v2Of(input.quote);
    v2.orderData.inputs[0]!.payment.currency = ZERO;
    for (const refund of v2.orderData.inputs[0]!.refunds) if (refund.chainId === f.originSlug) refund.currency = ZERO;
    v2.paymentDetails.currency = ZERO;
    input.quote.steps.splice(APPROVE_AT.stepIndex, 1);
    const at = { stepIndex: 0, itemIndex: 0 };
    writeDepositCall(input.quote, at, { functionName: 'depositNative', args: [USER, ID] }, f.amount);
    reseal(input);
    input.expect.originCurrency = ZERO;
    return input;
  }

  describe('the deposit call', () => {
    it('deposit-call: the deposit sent somewhere other than the /chains depository', async () => {
      const input = freshInput();
      itemData(input.quote, DEPOSIT_AT)['to'] = STRANGER;
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual([...DEPOSIT_SKIPS, 'no-unexpected-steps']);
      expect(detailOf(verdict, 'depositor')).toBe('skipped: deposit-call failed');
      expect(verdict.depositItem).toBeNull();
    });

    it('deposit-call: the deposit item on another chain', async () => {
      const input = freshInput();
      itemData(input.quote, DEPOSIT_AT)['chainId'] = f.destinationChainId;
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(DEPOSIT_SKIPS);
      expect(detailOf(verdict, 'deposit-call')).toContain(`expected payment chain ${f.originChainId}`);
    });

    it('deposit-call: two items aimed at the depository', async () => {
      const input = freshInput();
      input.quote.steps.push(structuredClone(input.quote.steps[DEPOSIT_AT.stepIndex]!));
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(DEPOSIT_SKIPS);
      expect(detailOf(verdict, 'deposit-call')).toContain('2 step items target the depository');
    });

    it('deposit-call: calldata with trailing bytes is not canonical', async () => {
      const input = freshInput();
      const data = itemData(input.quote, DEPOSIT_AT);
      data['data'] = `${data['data'] as string}00000000`;
      expect(failing(await verifyQuote(input))).toEqual(DEPOSIT_SKIPS);
    });

    it('deposit-call: another function on the depository', async () => {
      const input = freshInput();
      itemData(input.quote, DEPOSIT_AT)['data'] = encodeFunctionData({
        abi: erc20Abi,
        functionName: 'transfer',
        args: [STRANGER, 1n],
      });
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(DEPOSIT_SKIPS);
      expect(detailOf(verdict, 'deposit-call')).toContain('selector 0xa9059cbb');
    });

    it('depositor: calldata credits a stranger', async () => {
      const input = freshInput();
      writeDepositCall(input.quote, DEPOSIT_AT, erc20Deposit(STRANGER, f.originCurrency, f.amount, ID));
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['depositor']);
      expect(detailOf(verdict, 'depositor')).toContain(`depositor is 0x000000000000000000000000000000000000dEaD, expected ${f.user}`);
    });

    it('deposit-id: calldata deposits for another order', async () => {
      const input = freshInput();
      writeDepositCall(input.quote, DEPOSIT_AT, erc20Deposit(USER, f.originCurrency, f.amount, `0x${'22'.repeat(32)}`));
      expect(failing(await verifyQuote(input))).toEqual(['deposit-id']);
    });

    it('deposit-kind: depositNative for a USDC payment', async () => {
      const input = freshInput();
      writeDepositCall(input.quote, DEPOSIT_AT, { functionName: 'depositNative', args: [USER, ID] }, f.amount);
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['deposit-kind']);
      expect(detailOf(verdict, 'deposit-kind')).toContain('expected depositErc20');
    });

    it('deposit-kind: native value sent along an ERC-20 deposit', async () => {
      const input = freshInput();
      itemData(input.quote, DEPOSIT_AT)['value'] = '1';
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['deposit-kind']);
      expect(detailOf(verdict, 'deposit-kind')).toContain('value is 1, expected 0');
    });

    it('deposit-kind: ERC-20 deposit of another token or another amount', async () => {
      const token = freshInput();
      writeDepositCall(token.quote, DEPOSIT_AT, erc20Deposit(USER, STRANGER_TOKEN, f.amount, ID));
      expect(failing(await verifyQuote(token))).toEqual(['deposit-kind']);

      const amount = freshInput();
      writeDepositCall(amount.quote, DEPOSIT_AT, erc20Deposit(USER, f.originCurrency, f.amount - 1n, ID));
      expect(failing(await verifyQuote(amount))).toEqual(['deposit-kind']);
    });

    it('a consistent native-currency order passes', async () => {
      const verdict = await verifyQuote(nativeInput());
      expect(failing(verdict)).toEqual([]);
      expect(detailOf(verdict, 'deposit-kind')).toContain('depositNative');
      expect(verdict.depositItem).toEqual({ stepIndex: 0, itemIndex: 0 });
    });

    it('deposit-kind: native deposit with the wrong value, or through depositErc20', async () => {
      const value = nativeInput();
      itemData(value.quote, { stepIndex: 0, itemIndex: 0 })['value'] = (f.amount - 1n).toString();
      expect(failing(await verifyQuote(value))).toEqual(['deposit-kind']);

      const erc20 = nativeInput();
      const id = readDepositCall(erc20.quote, { stepIndex: 0, itemIndex: 0 }).args[1] as Hex; // depositNative(depositor, id)
      writeDepositCall(erc20.quote, { stepIndex: 0, itemIndex: 0 }, erc20Deposit(USER, ZERO, f.amount, id), 0n);
      const verdict = await verifyQuote(erc20);
      expect(failing(verdict)).toEqual(['deposit-kind']);
      expect(detailOf(verdict, 'deposit-kind')).toContain('expected depositNative');
    });
  });

  describe('approvals', () => {
    it('approve: more than the payment amount', async () => {
      const input = freshInput();
      writeApprove(input.quote, APPROVE_AT, f.depository, f.amount + 1n);
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['approve']);
      expect(detailOf(verdict, 'approve')).toContain(`more than the payment amount ${f.amount}`);
    });

    it('approve: an unlimited approval', async () => {
      const input = freshInput();
      writeApprove(input.quote, APPROVE_AT, f.depository, 2n ** 256n - 1n);
      expect(failing(await verifyQuote(input))).toEqual(['approve']);
    });

    it('approve: to a stranger spender', async () => {
      const input = freshInput();
      writeApprove(input.quote, APPROVE_AT, STRANGER, f.amount);
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['approve-spender']);
      expect(detailOf(verdict, 'approve-spender')).toMatch(/spender 0x000000000000000000000000000000000000dEaD/);
    });

    it('approve-spender: the zero address as spender', async () => {
      const input = freshInput();
      writeApprove(input.quote, APPROVE_AT, ZERO, f.amount);
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['approve-spender']);
      expect(detailOf(verdict, 'approve-spender')).toContain('the only accepted spender is the depository');
    });

    it('approve-needed: an approval of another token than the payment currency', async () => {
      const input = freshInput();
      itemData(input.quote, APPROVE_AT)['to'] = STRANGER_TOKEN;
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['approve-needed']);
      expect(detailOf(verdict, 'approve-needed')).toContain(`expected only the payment currency ${f.originCurrency}`);
    });

    it('approve-needed: an approval beside a native payment is refused, not ignored', async () => {
      const input = nativeInput();
      const data = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [f.depository, 1n] });
      input.quote.steps.unshift({
        id: 'approve',
        kind: 'transaction',
        items: [{ status: 'incomplete', data: { from: USER, to: f.originCurrency, data, value: '0', chainId: f.originChainId } }],
      });
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['approve-needed']);
      expect(detailOf(verdict, 'approve-needed')).toContain('is native: no approval is needed');
    });

    it('approve: carrying native value, or on another chain', async () => {
      const value = freshInput();
      itemData(value.quote, APPROVE_AT)['value'] = '5';
      expect(failing(await verifyQuote(value))).toEqual(['approve']);

      const chain = freshInput();
      itemData(chain.quote, APPROVE_AT)['chainId'] = 1;
      expect(failing(await verifyQuote(chain))).toEqual(['approve']);
    });

    it('approve-spender: routers and approval proxies GET /chains lists are refused like any stranger', async () => {
      const listed: Record<string, Hex> = {
        erc20Router: '0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
        approvalProxy: '0xcccccccccccccccccccccccccccccccccccccccc',
        'v3.erc20Router': '0xdddddddddddddddddddddddddddddddddddddddd',
        'v3.approvalProxy': '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
      };
      for (const [name, spender] of Object.entries(listed)) {
        const input = freshInput();
        const chain = chainById(input, f.originChainId);
        const v3 = (chain.contracts?.['v3'] ?? {}) as Record<string, string>; // GET /chains: contracts.v3 is an object of addresses
        chain.contracts = {
          ...chain.contracts,
          erc20Router: listed['erc20Router'],
          approvalProxy: listed['approvalProxy'],
          v3: { ...v3, extraRouter: listed['v3.erc20Router'], extraProxy: listed['v3.approvalProxy'] },
        };
        writeApprove(input.quote, APPROVE_AT, spender, f.amount);
        const verdict = await verifyQuote(input);
        expect(failing(verdict), name).toEqual(['approve-spender']);
        expect(detailOf(verdict, 'approve-spender').toLowerCase(), name).toContain(spender);
      }
    });

    it("approve-spender: the chain's own v3 router, named by the order's extraData, is refused too", async () => {
      const input = freshInput();
      const v3 = chainById(input, f.originChainId).contracts?.['v3'] as { erc20Router: Hex }; // both quote cases list it
      writeApprove(input.quote, APPROVE_AT, v3.erc20Router, f.amount);
      expect(failing(await verifyQuote(input))).toEqual(['approve-spender']);
    });
  });

  describe('Router 3.2: both generations listed in GET /chains (contracts.v3 and contracts["v3.2"])', () => {
    /** The case's input with the 3.2 pair listed beside v3 on both chains, at the top level too (as since 2026-10-26). */
    function bothGenerations(): VerifyQuoteInput {
      const input = freshInput();
      for (const chain of input.chains.chains) {
        chain.contracts = { ...chain.contracts, ...ROUTER_32_CONTRACTS, 'v3.2': { ...ROUTER_32_CONTRACTS } };
      }
      return input;
    }

    it('the quote with its approval to the depository still passes every rule', async () => {
      const verdict = await verifyQuote(bothGenerations());
      expect(failing(verdict)).toEqual([]);
      expect(detailOf(verdict, 'approve-spender')).toBe(`every approval names the depository ${f.depository}`);
    });

    it.each([
      ['contracts["v3.2"].approvalProxy', ROUTER_32_CONTRACTS.approvalProxy],
      ['contracts["v3.2"].erc20Router', ROUTER_32_CONTRACTS.erc20Router],
    ] as const)('approve-spender: an approval to %s is refused, like one to the v3 pair', async (_name, spender) => {
      const input = bothGenerations();
      writeApprove(input.quote, APPROVE_AT, spender, f.amount);
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['approve-spender']);
      expect(detailOf(verdict, 'approve-spender')).toBe(
        `${itemPath(APPROVE_AT)} approves spender ${getAddress(spender)}; the only accepted spender is the depository ${f.depository} of chain ${f.originChainId} (GET /chains)`,
      );
    });

    it('approve-spender: the v3 approval proxy stays refused with both generations listed', async () => {
      const input = bothGenerations();
      const v3 = chainById(input, f.originChainId).contracts?.['v3'] as { approvalProxy: Hex }; // both quote cases list it
      writeApprove(input.quote, APPROVE_AT, v3.approvalProxy, f.amount);
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['approve-spender']);
      expect(detailOf(verdict, 'approve-spender').toLowerCase()).toContain(`spender ${v3.approvalProxy.toLowerCase()}`);
    });

    it('deposit-call: the deposit sent to the listed Router 3.2 instead of the depository is refused', async () => {
      const input = bothGenerations();
      itemData(input.quote, DEPOSIT_AT)['to'] = ROUTER_32_CONTRACTS.erc20Router;
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual([...DEPOSIT_SKIPS, 'no-unexpected-steps']);
      expect(detailOf(verdict, 'deposit-call')).toBe(`no transaction step item has to == depository ${f.depository} (from GET /chains)`);
      expect(detailOf(verdict, 'no-unexpected-steps')).toContain(`unexpected transaction to ${ROUTER_32_CONTRACTS.erc20Router}`);
    });
  });

  describe('approvals that could be drained', () => {
    const MULTICALL3: Hex = '0xca11bde05977b3631167028862be2a173976ca11';

    function approveItem(spender: Hex, amount: bigint) {
      return {
        status: 'incomplete',
        data: {
          from: USER,
          to: f.originCurrency,
          data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, amount] }),
          value: '0',
          chainId: f.originChainId,
        },
      };
    }

    it('approve: a second approval to a listed multicall contract (anyone could spend it) is refused', async () => {
      const input = freshInput();
      const chain = chainById(input, f.originChainId);
      chain.contracts = { ...chain.contracts, multicall3: MULTICALL3 };
      input.quote.steps[APPROVE_AT.stepIndex]!.items.push(approveItem(MULTICALL3, f.amount));
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['approve', 'approve-spender']);
      expect(detailOf(verdict, 'approve')).toContain('at most one approval');
      expect(detailOf(verdict, 'approve-spender')).toMatch(/spender 0x[cC][aA]11/);
    });

    it('approve: two approvals to the depository that together exceed the amount are refused', async () => {
      const input = freshInput();
      input.quote.steps[APPROVE_AT.stepIndex]!.items.push(approveItem(f.depository, 1n));
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['approve']);
      expect(detailOf(verdict, 'approve')).toContain(`approvals total ${f.amount + 1n}`);
    });

    it('approve: an approval placed after the deposit is refused', async () => {
      const input = freshInput();
      input.quote.steps.reverse();
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['approve']);
      expect(detailOf(verdict, 'approve')).toContain('after the deposit');
    });
  });

  describe('unexpected steps', () => {
    function extraItem(input: VerifyQuoteInput, data: Record<string, unknown>): void {
      input.quote.steps.push({ id: 'extra', kind: 'transaction', items: [{ status: 'incomplete', data }] });
    }

    it('no-unexpected-steps: an extra ERC-20 transfer of the payment token to a stranger', async () => {
      const input = freshInput();
      const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [STRANGER, f.amount] });
      extraItem(input, { from: USER, to: f.originCurrency, data, value: '0', chainId: f.originChainId });
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['no-unexpected-steps']);
      expect(detailOf(verdict, 'no-unexpected-steps')).toContain('steps[2].items[0]: unexpected transaction');
    });

    it('no-unexpected-steps: an extra plain value transfer', async () => {
      const input = freshInput();
      extraItem(input, { from: USER, to: STRANGER, data: '0x', value: '1000', chainId: f.originChainId });
      expect(failing(await verifyQuote(input))).toEqual(['no-unexpected-steps']);
    });

    it('no-unexpected-steps: a signature step', async () => {
      const input = freshInput();
      input.quote.steps.push({ id: 'authorize', kind: 'signature', items: [{ status: 'incomplete', data: {} }] });
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['no-unexpected-steps']);
      expect(detailOf(verdict, 'no-unexpected-steps')).toContain('signature step');
    });

    it('no-unexpected-steps: an item sent from another wallet', async () => {
      const input = freshInput();
      itemData(input.quote, APPROVE_AT)['from'] = STRANGER;
      expect(failing(await verifyQuote(input))).toEqual(['no-unexpected-steps']);
    });

    it('no-unexpected-steps: a deposit-address step', async () => {
      const input = freshInput();
      input.quote.steps[DEPOSIT_AT.stepIndex]!.depositAddress = STRANGER;
      expect(failing(await verifyQuote(input))).toEqual(['no-unexpected-steps']);
    });

    it('no-unexpected-steps: an item whose data is not an EVM transaction', async () => {
      const input = freshInput();
      extraItem(input, { psbt: '0x70736274ff' });
      expect(failing(await verifyQuote(input))).toEqual(['no-unexpected-steps']);
    });
  });
});
