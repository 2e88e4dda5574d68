/**
 * verifyQuote on copies of the genuine fixture tampered in the steps: the deposit transaction, approvals and
 * extra items (spec "Local quote verification" 5–7 and Ballast's step rules).
 */
import { encodeFunctionData, erc20Abi, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { verifyQuote } from '../../../src/verify/verifyQuote.ts';
import type { VerifyQuoteInput } from '../../../src/verify/types.ts';
import { FIXTURE, PUBLIC_V3_CONTRACTS } from '../../fixtures/relay.ts';
import {
  APPROVE_AT,
  DEPOSIT_AT,
  detailOf,
  failing,
  fixtureInput,
  itemData,
  readDepositCall,
  reseal,
  v2Of,
  writeApprove,
  writeDepositCall,
} from '../../fixtures/quoteTamper.ts';

const STRANGER: Hex = '0x000000000000000000000000000000000000dead';
const ZERO: Hex = '0x0000000000000000000000000000000000000000';
const USER = FIXTURE.user as Hex;
const ID = FIXTURE.orderId as Hex;
const DEPOSIT_SKIPS = ['deposit-call', 'deposit-id', 'deposit-kind', 'depositor'];

function erc20Deposit(depositor: Hex, token: Hex, amount: bigint, id: Hex) {
  return { functionName: 'depositErc20', args: [depositor, token, amount, id] } as const;
}

/** The fixture turned into a consistent native-ETH order: no approval, depositNative with value. */
function nativeInput(): VerifyQuoteInput {
  const input = fixtureInput();
  const v2 = v2Of(input.quote);
  v2.orderData.inputs[0]!.payment.currency = ZERO;
  v2.orderData.inputs[0]!.refunds[0]!.currency = ZERO;
  v2.paymentDetails.currency = ZERO;
  input.quote.steps.splice(APPROVE_AT.stepIndex, 1);
  const at = { stepIndex: 0, itemIndex: 0 };
  writeDepositCall(input.quote, { functionName: 'depositNative', args: [USER, ID] }, FIXTURE.amount, at);
  reseal(input.quote);
  input.expect.originCurrency = ZERO;
  return input;
}

describe('verifyQuote: the deposit call', () => {
  it('deposit-call: the deposit sent somewhere other than the /chains depository', async () => {
    const input = fixtureInput();
    itemData(input.quote, DEPOSIT_AT)['to'] = STRANGER;
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual([...DEPOSIT_SKIPS, 'no-unexpected-steps']);
    expect(detailOf(verdict, 'depositor')).toBe('skipped: deposit-call failed');
    expect(verdict.depositItem).toBeNull();
  });

  it('deposit-call: the deposit item on another chain', async () => {
    const input = fixtureInput();
    itemData(input.quote, DEPOSIT_AT)['chainId'] = 42161;
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(DEPOSIT_SKIPS);
    expect(detailOf(verdict, 'deposit-call')).toContain('expected payment chain 8453');
  });

  it('deposit-call: two items aimed at the depository', async () => {
    const input = fixtureInput();
    input.quote.steps.push(structuredClone(input.quote.steps[DEPOSIT_AT.stepIndex]!));
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(DEPOSIT_SKIPS);
    expect(detailOf(verdict, 'deposit-call')).toContain('2 step items target the depository');
  });

  it('deposit-call: calldata with trailing bytes is not canonical', async () => {
    const input = fixtureInput();
    const data = itemData(input.quote, DEPOSIT_AT);
    data['data'] = `${data['data'] as string}00000000`;
    expect(failing(await verifyQuote(input))).toEqual(DEPOSIT_SKIPS);
  });

  it('deposit-call: another function on the depository', async () => {
    const input = fixtureInput();
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
    const input = fixtureInput();
    writeDepositCall(input.quote, erc20Deposit(STRANGER, FIXTURE.usdcBase, FIXTURE.amount, ID));
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['depositor']);
    expect(detailOf(verdict, 'depositor')).toMatch(/depositor is 0x000000000000000000000000000000000000dEaD, expected 0x0350/);
  });

  it('deposit-id: calldata deposits for another order', async () => {
    const input = fixtureInput();
    writeDepositCall(input.quote, erc20Deposit(USER, FIXTURE.usdcBase, FIXTURE.amount, `0x${'22'.repeat(32)}`));
    expect(failing(await verifyQuote(input))).toEqual(['deposit-id']);
  });

  it('deposit-kind: depositNative for a USDC payment', async () => {
    const input = fixtureInput();
    writeDepositCall(input.quote, { functionName: 'depositNative', args: [USER, ID] }, FIXTURE.amount);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['deposit-kind']);
    expect(detailOf(verdict, 'deposit-kind')).toContain('expected depositErc20');
  });

  it('deposit-kind: native value sent along an ERC-20 deposit', async () => {
    const input = fixtureInput();
    itemData(input.quote, DEPOSIT_AT)['value'] = '1';
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['deposit-kind']);
    expect(detailOf(verdict, 'deposit-kind')).toContain('value is 1, expected 0');
  });

  it('deposit-kind: ERC-20 deposit of another token or another amount', async () => {
    const token = fixtureInput();
    writeDepositCall(token.quote, erc20Deposit(USER, FIXTURE.usdtArbitrum, FIXTURE.amount, ID));
    expect(failing(await verifyQuote(token))).toEqual(['deposit-kind']);

    const amount = fixtureInput();
    writeDepositCall(amount.quote, erc20Deposit(USER, FIXTURE.usdcBase, FIXTURE.amount - 1n, ID));
    expect(failing(await verifyQuote(amount))).toEqual(['deposit-kind']);
  });

  it('a consistent native-currency order passes', async () => {
    const verdict = await verifyQuote(nativeInput());
    expect(failing(verdict)).toEqual([]);
    expect(detailOf(verdict, 'deposit-kind')).toContain('depositNative');
    expect(verdict.depositItem).toEqual({ stepIndex: 0, itemIndex: 0 });
  });

  it('approve-needed: an approval beside a native payment is refused, not ignored', async () => {
    const input = nativeInput();
    const approve = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [FIXTURE.depository as Hex, 1n] });
    input.quote.steps.unshift({
      id: 'approve',
      kind: 'transaction',
      items: [{ status: 'incomplete', data: { from: USER, to: FIXTURE.usdcBase, data: approve, value: '0', chainId: 8453 } }],
    });
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['approve-needed']);
    expect(detailOf(verdict, 'approve-needed')).toContain('is native: no approval is needed');
  });

  it('deposit-kind: native deposit with the wrong value, or through depositErc20', async () => {
    const value = nativeInput();
    itemData(value.quote, { stepIndex: 0, itemIndex: 0 })['value'] = (FIXTURE.amount - 1n).toString();
    expect(failing(await verifyQuote(value))).toEqual(['deposit-kind']);

    const erc20 = nativeInput();
    const id = readDepositCall(erc20.quote, { stepIndex: 0, itemIndex: 0 }).args[1] as Hex;
    writeDepositCall(erc20.quote, erc20Deposit(USER, ZERO, FIXTURE.amount, id), 0n, { stepIndex: 0, itemIndex: 0 });
    const verdict = await verifyQuote(erc20);
    expect(failing(verdict)).toEqual(['deposit-kind']);
    expect(detailOf(verdict, 'deposit-kind')).toContain('expected depositNative');
  });
});

describe('verifyQuote: approvals', () => {
  it('approve: more than the payment amount', async () => {
    const input = fixtureInput();
    writeApprove(input.quote, FIXTURE.depository, FIXTURE.amount + 1n);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['approve']);
    expect(detailOf(verdict, 'approve')).toContain('more than the payment amount 100000000');
  });

  it('approve: an unlimited approval', async () => {
    const input = fixtureInput();
    writeApprove(input.quote, FIXTURE.depository, 2n ** 256n - 1n);
    expect(failing(await verifyQuote(input))).toEqual(['approve']);
  });

  it('approve: to a stranger spender', async () => {
    const input = fixtureInput();
    writeApprove(input.quote, STRANGER, FIXTURE.amount);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['approve-spender']);
    expect(detailOf(verdict, 'approve-spender')).toMatch(/spender 0x000000000000000000000000000000000000dEaD/);
  });

  it('approve-spender: the zero address as spender', async () => {
    const input = fixtureInput();
    writeApprove(input.quote, ZERO, FIXTURE.amount);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['approve-spender']);
    expect(detailOf(verdict, 'approve-spender')).toContain('the only accepted spender is the depository');
  });

  it('approve-needed: an approval of another token than the payment currency', async () => {
    const input = fixtureInput();
    itemData(input.quote, APPROVE_AT)['to'] = FIXTURE.usdtArbitrum;
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['approve-needed']);
    expect(detailOf(verdict, 'approve-needed')).toContain(`expected only the payment currency ${FIXTURE.usdcBase}`);
  });

  it('approve: carrying native value, or on another chain', async () => {
    const value = fixtureInput();
    itemData(value.quote, APPROVE_AT)['value'] = '5';
    expect(failing(await verifyQuote(value))).toEqual(['approve']);

    const chain = fixtureInput();
    itemData(chain.quote, APPROVE_AT)['chainId'] = 1;
    expect(failing(await verifyQuote(chain))).toEqual(['approve']);
  });

  it('approve-spender: routers and approval proxies GET /chains lists are refused like any stranger', async () => {
    const listed: Record<string, Hex> = {
      'v3.erc20Router': PUBLIC_V3_CONTRACTS.erc20Router,
      'v3.approvalProxy': PUBLIC_V3_CONTRACTS.approvalProxy,
      erc20Router: '0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
      approvalProxy: '0xcccccccccccccccccccccccccccccccccccccccc',
    };
    for (const [name, address] of Object.entries(listed)) {
      const input = fixtureInput();
      const chain = input.chains.chains[0]!;
      chain.contracts = { ...chain.contracts, erc20Router: listed['erc20Router'], approvalProxy: listed['approvalProxy'] };
      writeApprove(input.quote, address, FIXTURE.amount);
      const verdict = await verifyQuote(input);
      expect(failing(verdict), name).toEqual(['approve-spender']);
      expect(detailOf(verdict, 'approve-spender').toLowerCase(), name).toContain(address.toLowerCase());
    }
  });
});

describe('verifyQuote: approvals that could be drained', () => {
  const MULTICALL3: Hex = '0xca11bde05977b3631167028862be2a173976ca11';

  function approveItem(spender: Hex, amount: bigint) {
    return {
      status: 'incomplete',
      data: {
        from: USER,
        to: FIXTURE.usdcBase,
        data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, amount] }),
        value: '0',
        chainId: 8453,
      },
    };
  }

  it('approve: a second approval to a listed multicall contract (anyone could spend it) is refused', async () => {
    const input = fixtureInput();
    input.chains.chains[0]!.contracts = { ...input.chains.chains[0]!.contracts, multicall3: MULTICALL3 };
    input.quote.steps[APPROVE_AT.stepIndex]!.items.push(approveItem(MULTICALL3, FIXTURE.amount));
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['approve', 'approve-spender']);
    expect(detailOf(verdict, 'approve')).toContain('at most one approval');
    expect(detailOf(verdict, 'approve-spender')).toMatch(/spender 0x[cC][aA]11/);
  });

  it('approve: two approvals to the depository that together exceed the amount are refused', async () => {
    const input = fixtureInput();
    input.quote.steps[APPROVE_AT.stepIndex]!.items.push(approveItem(FIXTURE.depository as Hex, 1n));
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['approve']);
    expect(detailOf(verdict, 'approve')).toContain('approvals total 100000001');
  });

  it('approve: an approval placed after the deposit is refused', async () => {
    const input = fixtureInput();
    input.quote.steps.reverse();
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['approve']);
    expect(detailOf(verdict, 'approve')).toContain('after the deposit');
  });
});

describe('verifyQuote: unexpected steps', () => {
  function extraItem(input: VerifyQuoteInput, data: Record<string, unknown>): void {
    input.quote.steps.push({ id: 'extra', kind: 'transaction', items: [{ status: 'incomplete', data }] });
  }

  it('no-unexpected-steps: an extra ERC-20 transfer of the payment token to a stranger', async () => {
    const input = fixtureInput();
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [STRANGER, FIXTURE.amount] });
    extraItem(input, { from: USER, to: FIXTURE.usdcBase, data, value: '0', chainId: 8453 });
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['no-unexpected-steps']);
    expect(detailOf(verdict, 'no-unexpected-steps')).toContain('steps[2].items[0]: unexpected transaction');
  });

  it('no-unexpected-steps: an extra plain value transfer', async () => {
    const input = fixtureInput();
    extraItem(input, { from: USER, to: STRANGER, data: '0x', value: '1000', chainId: 8453 });
    expect(failing(await verifyQuote(input))).toEqual(['no-unexpected-steps']);
  });

  it('no-unexpected-steps: a signature step', async () => {
    const input = fixtureInput();
    input.quote.steps.push({ id: 'authorize', kind: 'signature', items: [{ status: 'incomplete', data: {} }] });
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['no-unexpected-steps']);
    expect(detailOf(verdict, 'no-unexpected-steps')).toContain('signature step');
  });

  it('no-unexpected-steps: an item sent from another wallet', async () => {
    const input = fixtureInput();
    itemData(input.quote, APPROVE_AT)['from'] = STRANGER;
    expect(failing(await verifyQuote(input))).toEqual(['no-unexpected-steps']);
  });

  it('no-unexpected-steps: a deposit-address step', async () => {
    const input = fixtureInput();
    input.quote.steps[DEPOSIT_AT.stepIndex]!.depositAddress = STRANGER;
    expect(failing(await verifyQuote(input))).toEqual(['no-unexpected-steps']);
  });

  it('no-unexpected-steps: an item whose data is not an EVM transaction', async () => {
    const input = fixtureInput();
    extraItem(input, { psbt: '0x70736274ff' });
    expect(failing(await verifyQuote(input))).toEqual(['no-unexpected-steps']);
  });
});
