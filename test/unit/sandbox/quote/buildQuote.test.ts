import { decodeFunctionData, erc20Abi, isAddressEqual, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { computeOrderId } from '../../../../packages/protocol/src/protocol/orderId.ts';
import { depositoryAbi } from '../../../../packages/protocol/src/protocol/depositoryAbi.ts';
import { recoverOrderSigner } from '../../../../packages/protocol/src/protocol/orderSignature.ts';
import { QuoteResponseSchema } from '../../../../packages/protocol/src/relay/schemas.ts';
import { sandboxSlugVmTypes } from '../../../../packages/sandbox/src/quote/chainTable.ts';
import { SandboxApiError } from '../../../../packages/sandbox/src/quote/errors.ts';
import {
  build,
  DEPOSITORY_ALPHA,
  NOW_SEC,
  RECIPIENT,
  ROUTERS_ALPHA,
  ROUTERS_BETA,
  SOLVER,
  TABLE,
  USDC,
  USDT,
  USER,
  usdcRequest,
  ZERO,
} from './fixtures.ts';

async function rejected(p: Promise<unknown>): Promise<SandboxApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SandboxApiError);
  return err as SandboxApiError; // checked by the assertion above
}

describe('buildQuote: USDC alpha → beta bridge', () => {
  it('parses with QuoteResponseSchema and carries approve + deposit steps', async () => {
    const { response } = await build();
    const parsed = QuoteResponseSchema.parse(JSON.parse(JSON.stringify(response)));
    expect(parsed.steps.map((s) => s.id)).toEqual(['approve', 'deposit']);
    const approve = response.steps[0]!.items[0]!;
    expect(approve.check).toBeUndefined();
    expect(approve.data.to).toBe(USDC);
    const call = decodeFunctionData({ abi: erc20Abi, data: approve.data.data });
    expect(call.functionName).toBe('approve');
    expect(call.args).toEqual([expect.stringMatching(new RegExp(DEPOSITORY_ALPHA, 'i')), 1_000_000_000n]);
    const dep = response.steps[1]!;
    expect(dep.depositAddress).toBe('');
    expect(dep.items[0]!.check).toEqual({ endpoint: `/intents/status/v3?requestId=${response.requestId}`, method: 'GET' });
    expect(dep.items[0]!.data).toMatchObject({ to: DEPOSITORY_ALPHA, value: '0', chainId: 31001, maxFeePerGas: '1000000000' });
  });

  it('deposit calldata is depositErc20(user, token, amount, orderId) and ids are distinct', async () => {
    const { response, order } = await build();
    const v2 = response.protocol!.v2;
    const call = decodeFunctionData({ abi: depositoryAbi, data: response.steps[1]!.items[0]!.data.data });
    expect(call.functionName).toBe('depositErc20');
    const [depositor, token, amount, id] = call.args as readonly [Hex, Hex, bigint, Hex];
    expect(isAddressEqual(depositor, USER)).toBe(true);
    expect(isAddressEqual(token, USDC)).toBe(true);
    expect(amount).toBe(1_000_000_000n);
    expect(id).toBe(v2.orderId);
    expect(response.requestId).not.toBe(v2.orderId);
    expect(order.orderId).toBe(v2.orderId);
    expect(v2.paymentDetails).toEqual({ chainId: 'alpha', depository: DEPOSITORY_ALPHA, currency: USDC, amount: '1000000000' });
    expect(v2.hubType).toBe('onchain');
  });

  it('orderId is the struct hash of orderData and the signature recovers to the solver', async () => {
    const { response } = await build();
    const v2 = response.protocol!.v2;
    expect(computeOrderId(v2.orderData, sandboxSlugVmTypes(TABLE))).toBe(v2.orderId);
    expect(await recoverOrderSigner(v2.orderId, v2.orderSignature)).toBe(SOLVER.address);
    const od = v2.orderData;
    expect(od.solverChainId).toBe('alpha');
    expect(od.solver).toBe(SOLVER.address.toLowerCase());
    expect(od.inputs[0]!.payment).toEqual({ chainId: 'alpha', currency: USDC, amount: '1000000000', weight: '1' });
    expect(od.output.payments[0]!.recipient).toBe(RECIPIENT);
    expect(od.fees).toEqual([]);
  });

  it('orderData carries two refunds like real quotes: origin in the payment currency, destination in the output currency, v3 router as extraData', async () => {
    const refundTo = '0x3333333333333333333333333333333333333333';
    const { response, order } = await build(usdcRequest({ destinationCurrency: USDT, refundTo }));
    const od = response.protocol!.v2.orderData;
    const padded = (router: string) => `0x${'0'.repeat(24)}${router.slice(2)}`;
    expect(od.inputs[0]!.refunds).toEqual([
      {
        chainId: 'alpha',
        recipient: refundTo,
        currency: USDC,
        minimumAmount: '0',
        deadline: NOW_SEC + 600,
        extraData: padded(ROUTERS_ALPHA.v3.erc20Router),
      },
      {
        chainId: 'beta',
        recipient: refundTo,
        currency: USDT,
        minimumAmount: '0',
        deadline: NOW_SEC + 600,
        extraData: padded(ROUTERS_BETA.v3.erc20Router),
      },
    ]);
    expect(od.output).toMatchObject({
      chainId: 'beta',
      calls: [],
      deadline: NOW_SEC + 600,
      extraData: padded(ROUTERS_BETA.v3.erc20Router),
    });
    expect(od.output.extraData).toHaveLength(66);
    expect(od.inputs[0]!.payment.weight).toBe('1');
    // the id and the solver signature cover the final orderData, refunds included
    expect(computeOrderId(od, sandboxSlugVmTypes(TABLE))).toBe(order.orderId);
    const withoutRefund = { ...od, inputs: [{ ...od.inputs[0]!, refunds: od.inputs[0]!.refunds.slice(0, 1) }] };
    expect(computeOrderId(withoutRefund, sandboxSlugVmTypes(TABLE))).not.toBe(order.orderId);
    expect(await recoverOrderSigner(response.protocol!.v2.orderId, response.protocol!.v2.orderSignature)).toBe(SOLVER.address);
    // the refund recipient defaults to the user
    const plain = (await build()).response.protocol!.v2.orderData.inputs[0]!.refunds;
    expect(plain.map((r) => r.recipient)).toEqual([USER, USER]);
  });

  it('prices a same-symbol bridge at 0.02 USD + fill gas, no platform or swap fee', async () => {
    // fill gas: 65000 gas × 1 gwei = 6.5e13 wei × 3000 USD/ETH = 0.195 USD; + 0.02 flat = 0.215 USD.
    const { response, order } = await build();
    expect(order.fees.execution).toEqual({ amount: 215_000n, usdMicros: 215_000n });
    expect(order.fees.platform.amount).toBe(0n);
    expect(order.fees.swap.amount).toBe(0n);
    expect(order.expectedOut).toBe(999_785_000n);
    expect(order.minimumOut).toBe((999_785_000n * 9_950n) / 10_000n);
    const d = response.details;
    expect(d.operation).toBe('bridge');
    expect(d.currencyOut.amount).toBe('999785000');
    expect(d.currencyOut.minimumAmount).toBe(order.minimumOut.toString());
    expect(d.expandedPriceImpact).toEqual({
      swap: { usd: '0' },
      execution: { usd: '-0.215' },
      relay: { usd: '0' },
      app: { usd: '0' },
      sponsored: { usd: '0' },
    });
    expect(d.totalImpact).toEqual({ usd: '-0.215', percent: '-0.02' });
    expect(d.rate).toBe('0.999785');
    expect(d.slippageTolerance.destination.percent).toBe('0.50');
    // Deprecated set: relayerGas is the fill gas only; relayerService carries the 0.02 USD flat fee.
    expect(response.fees.relayerGas.amount).toBe('195000');
    expect(response.fees.relayerService.amount).toBe('20000');
    expect(response.fees.relayer.amount).toBe('215000');
    expect(d.swapImpact).toEqual(d.totalImpact); // totalImpact + sponsored (0)
    expect(response.fees.gas.currency.address).toBe(ZERO);
    // gas: (approve 80000 + deposit 150000) × 1 gwei
    expect(response.fees.gas.amount).toBe((230_000n * 1_000_000_000n).toString());
  });

  it('charges the major-swap platform fee (6 bps) and swap bps on USDC → ETH', async () => {
    const { response, order } = await build(usdcRequest({ destinationCurrency: ZERO }));
    expect(order.fees.pairType).toBe('major');
    expect(order.fees.bps).toEqual({ swap: 3, platform: 6, app: 0 });
    expect(order.fees.platform.amount).toBe(600_000n); // 1000 USDC × 6 bps
    expect(order.fees.swap.amount).toBe(300_000n);
    // native fill: 21000 gas × 1 gwei × 3000 = 0.063 USD + 0.02
    expect(order.fees.execution.amount).toBe(83_000n);
    const net = 1_000_000_000n - 983_000n;
    expect(order.expectedOut).toBe((net * 10n ** 12n) / 3000n);
    expect(response.details.operation).toBe('swap');
    expect(response.details.expandedPriceImpact.relay).toEqual({ usd: '-0.6' });
    // relayerService = flat 0.02 USD + swap + platform; relayerGas = the native fill's gas (0.063 USD)
    expect(response.fees.relayerGas.amount).toBe('63000');
    expect(response.fees.relayerService.amount).toBe((20_000n + 300_000n + 600_000n).toString());
    expect(response.fees.relayer.amount).toBe('983000');
    expect(response.steps.map((s) => s.id)).toEqual(['approve', 'deposit']);
  });

  it('native ETH input gets a single payable depositNative step with value', async () => {
    const { response } = await build(usdcRequest({ originCurrency: ZERO, destinationCurrency: ZERO, amount: 10n ** 18n + '' }));
    expect(response.steps.map((s) => s.id)).toEqual(['deposit']);
    const item = response.steps[0]!.items[0]!;
    expect(item.data.value).toBe((10n ** 18n).toString());
    const call = decodeFunctionData({ abi: depositoryAbi, data: item.data.data });
    expect(call.functionName).toBe('depositNative');
    expect(call.args[1]).toBe(response.protocol!.v2.orderId);
  });

  it('adds fault extra fees and request app fees, keys platform as service on request', async () => {
    const { response, order } = await build(usdcRequest({ appFees: [{ recipient: RECIPIENT, fee: '10' }], slippageTolerance: '100' }), {
      faults: { extraFees: { platformBps: 20, swapBps: 5, appBps: 2, executionUsd: '1.5' }, platformKey: 'service' },
    });
    expect(order.fees.bps).toEqual({ swap: 5, platform: 20, app: 12 });
    expect(order.fees.execution.amount).toBe(1_715_000n);
    const fees = 1_715_000n + 500_000n + 2_000_000n + 1_200_000n;
    expect(order.expectedOut).toBe(1_000_000_000n - fees);
    expect(order.minimumOut).toBe(((1_000_000_000n - fees) * 9_900n) / 10_000n);
    expect(response.details.expandedPriceImpact.service).toEqual({ usd: '-2' });
    expect(response.details.expandedPriceImpact.relay).toBeUndefined();
    expect(Object.keys(response.feeSponsorship.quoted.components)).toEqual(['execution', 'swap', 'service', 'app']);
    expect(response.fees.app.amount).toBe('1200000');
    // the extra execution USD is service fee, not destination gas
    expect(response.fees.relayerGas.amount).toBe('195000');
    expect(response.fees.relayerService.amount).toBe((1_520_000n + 500_000n + 2_000_000n).toString());
  });

  it('omits protocol when includeProtocolData is not set, still records the order', async () => {
    const { response, order } = await build(usdcRequest({ includeProtocolData: false }));
    expect(response.protocol).toBeUndefined();
    expect(order.orderId).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('minimumAmount ≤ expectedAmount across slippage values', async () => {
    for (const s of ['0', '1', '50', '10000']) {
      const { order } = await build(usdcRequest({ slippageTolerance: s }));
      expect(order.minimumOut <= order.expectedOut).toBe(true);
    }
    expect((await build(usdcRequest({ slippageTolerance: '0' }))).order.minimumOut).toBe(999_785_000n);
  });
});

describe('buildQuote: refusals', () => {
  it('EXACT_OUTPUT → 400 message-only (no public code says "the sandbox does not quote this")', async () => {
    const e = await rejected(build(usdcRequest({ tradeType: 'EXACT_OUTPUT' })));
    expect([e.status, e.code]).toEqual([400, null]);
    expect(e.toBody()).toEqual({ message: expect.stringContaining('EXACT_INPUT') });
  });
  it('unknown chain → UNSUPPORTED_CHAIN, unknown currency → UNSUPPORTED_CURRENCY', async () => {
    expect((await rejected(build(usdcRequest({ destinationChainId: 1 })))).code).toBe('UNSUPPORTED_CHAIN');
    const e = await rejected(build(usdcRequest({ originCurrency: '0x1111111111111111111111111111111111111111' })));
    expect(e.code).toBe('UNSUPPORTED_CURRENCY');
    expect(e.status).toBe(400);
  });
  it('amount 0 or below the fees → AMOUNT_TOO_LOW', async () => {
    expect((await rejected(build(usdcRequest({ amount: '0' })))).code).toBe('AMOUNT_TOO_LOW');
    expect((await rejected(build(usdcRequest({ amount: '215000' })))).code).toBe('AMOUNT_TOO_LOW');
    expect((await build(usdcRequest({ amount: '215001' }))).order.expectedOut).toBe(1n);
  });
  it('solver balance below the output → INSUFFICIENT_LIQUIDITY {message, errorCode, errorData}', async () => {
    const e = await rejected(build(usdcRequest(), { balances: { userIn: 0n, solverOut: 999_784_999n } }));
    expect(e.code).toBe('INSUFFICIENT_LIQUIDITY');
    expect(e.toBody()).toEqual({ message: expect.any(String), errorCode: 'INSUFFICIENT_LIQUIDITY', errorData: 'available=999784999' });
  });
  it('bad user address → INVALID_ADDRESS; destination calls → EXTRA_TXS_NOT_SUPPORTED', async () => {
    expect((await rejected(build(usdcRequest({ user: 'not-an-address' })))).code).toBe('INVALID_ADDRESS');
    const txs = [{ to: USER, value: '0', data: '0x' }];
    expect((await rejected(build(usdcRequest({ txs })))).code).toBe('EXTRA_TXS_NOT_SUPPORTED');
  });
});
