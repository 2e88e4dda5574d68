/**
 * The sandbox's Solana- and Bitcoin-touching quotes, offline: their shape (order, refunds, step data, PSBT),
 * Ballast's verifier accepting them as served and refusing each tamper on its rule, INSUFFICIENT_FUNDS at the
 * exact boundary, and dust change left to the fee.
 */
import { networks, Psbt } from 'bitcoinjs-lib';
import { describe, expect, it } from 'vitest';
import { decodeDepositData } from '../../../../packages/protocol/src/protocol/svmDepository.ts';
import { decodeOrderIdMemoScript, orderIdMemoScript } from '../../../../packages/protocol/src/protocol/bitcoinDeposit.ts';
import { QuoteResponseSchema } from '../../../../packages/protocol/src/relay/schemas.ts';
import { estimateVsize } from '../../../../packages/sandbox/src/quote/bvmSteps.ts';
import { SandboxApiError } from '../../../../packages/sandbox/src/quote/errors.ts';
import type { VmTamperKind } from '../../../../packages/sandbox/src/faults.ts';
import { tamperVmQuote, type VmOriginQuote } from '../../../../packages/sandbox/src/quote/vmTamper.ts';
import { verifyQuote, type VerifyRuleId } from '../../../../packages/ballast/src/verify/verifyQuote.ts';
import type { OriginChainFacts } from '../../../../packages/ballast/src/verify/deposit/types.ts';
import { counterRandom, NOW_SEC, RECIPIENT, SOLVER, TABLE, USDC, USER, ZERO } from './fixtures.ts';
import {
  BITCOIN_ID,
  BTC,
  BTC_DEPOSITORY,
  BTC_RECIPIENT,
  BTC_USER,
  bitcoinToEvm,
  buildVm,
  solanaToEvm,
  SOL,
  SOLANA_ID,
  SVM_USER,
  USER_COINS,
  VM_CHAINS,
  VM_CHAINS_DOC,
} from './vmFixtures.ts';

const UTXOS: OriginChainFacts = { utxos: USER_COINS.map((c) => ({ ...c, confirmed: true })) };

/** Verifies against our expectations; `minOut` defaults to what the untampered quote guaranteed. */
async function verdict(response: unknown, user: string, origin: OriginChainFacts, minOut = 1n) {
  return verifyQuote({
    quote: QuoteResponseSchema.parse(JSON.parse(JSON.stringify(response))),
    chains: VM_CHAINS_DOC,
    expect: { user, recipient: RECIPIENT, minOut },
    nowSec: NOW_SEC,
    origin,
  });
}
const failing = (v: Awaited<ReturnType<typeof verdict>>) => v.rules.filter((r) => !r.ok).map((r) => r.rule);

async function rejected(p: Promise<unknown>): Promise<SandboxApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SandboxApiError);
  return err as SandboxApiError; // checked by the assertion above
}

describe('Solana-origin quote', () => {
  it('is one deposit_native instruction for the user, an order naming an EVM solver chain, and passes every rule', async () => {
    const built = await buildVm(solanaToEvm);
    expect(built.originVm).toBe('svm');
    const v2 = built.response.protocol!.v2;
    expect(v2.orderData.solverChainId).toBe('beta');
    expect(v2.orderData.inputs[0]!.refunds.map((r) => [r.chainId, r.recipient, r.extraData])).toEqual([
      ['solana', SVM_USER, '0x'],
      ['beta', RECIPIENT, expect.stringMatching(/^0x0{24}b3/)],
    ]);
    const data = built.response.steps[0]!.items[0]!.data;
    expect('instructions' in data && data.addressLookupTableAddresses).toEqual([]);
    const ix = 'instructions' in data ? data.instructions[0]! : undefined;
    expect(decodeDepositData(Buffer.from(ix!.data, 'hex'))).toEqual({ kind: 'native', amount: 2_000_000_000n, id: v2.orderId });
    expect(ix!.keys[1]).toEqual({ pubkey: SVM_USER, isSigner: true, isWritable: true });
    expect(built.response.fees.gas.amount).toBe('5000');
    expect(failing(await verdict(built.response, SVM_USER, { lookupTables: {} }))).toEqual([]);
  });

  const SVM_RULES: [VmTamperKind | 'minimumAmount' | 'solver' | 'orderId', VerifyRuleId][] = [
    ['svmExtraTransfer', 'no-unexpected-steps'],
    ['svmVault', 'deposit-call'],
    ['svmAmount', 'deposit-kind'],
    ['minimumAmount', 'min-output'],
    ['solver', 'solver'],
    ['orderId', 'order-id'],
  ];
  it.each(SVM_RULES)('tampered with %s it is refused on %s', async (kind, rule) => {
    const built = await buildVm(solanaToEvm);
    const ctx = { chains: TABLE, vmChains: VM_CHAINS, solver: SOLVER, nowSec: NOW_SEC, random: counterRandom };
    const t = await tamperVmQuote(built.response as VmOriginQuote, kind, ctx);
    expect(t.applied, t.reason).toBe(true);
    const guaranteed = BigInt(built.response.protocol!.v2.orderData.output.payments[0]!.minimumAmount);
    const failed = failing(await verdict(t.response, SVM_USER, { lookupTables: {} }, guaranteed));
    expect(failed).toContain(rule);
  });

  it('a Bitcoin tamper does not apply to a Solana quote', async () => {
    const built = await buildVm(solanaToEvm);
    const t = await tamperVmQuote(built.response as VmOriginQuote, 'psbtNoOpReturn', {
      chains: TABLE,
      vmChains: VM_CHAINS,
      solver: SOLVER,
      nowSec: NOW_SEC,
    });
    expect([t.applied, t.reason]).toEqual([false, 'psbtNoOpReturn is not a Solana tamper']);
  });
});

describe('Bitcoin-origin quote', () => {
  it('spends the largest coins with witnessUtxo, pays depository, memo, change; fee = 2 sat/vB × signed vsize', async () => {
    const built = await buildVm(bitcoinToEvm);
    const data = built.response.steps[0]!.items[0]!.data;
    const psbt = Psbt.fromHex('psbt' in data ? data.psbt : '', { network: networks.regtest });
    expect(psbt.txInputs.map((i) => Buffer.from(i.hash).reverse().toString('hex'))).toEqual(['a1'.repeat(32), 'b2'.repeat(32)]);
    expect(psbt.data.inputs.every((i) => i.witnessUtxo !== undefined && i.tapInternalKey === undefined)).toBe(true);
    const outs = psbt.txOutputs;
    expect(outs.map((o) => o.address ?? 'memo')).toEqual([BTC_DEPOSITORY, 'memo', BTC_USER]);
    expect(decodeOrderIdMemoScript(outs[1]!.script)).toEqual({ orderId: built.response.protocol!.v2.orderId });
    const fee = 1_100_000n - outs.reduce((sum, o) => sum + o.value, 0n);
    expect(fee).toBe(
      BigInt(
        estimateVsize(
          'p2wpkh',
          2,
          outs.map((o) => ({ script: o.script, value: o.value })),
        ),
      ) * 2n,
    );
    expect(built.response.fees.gas.amount).toBe(fee.toString());
    expect(built.response.protocol!.v2.orderData.solverChainId).toBe('alpha');
    expect(failing(await verdict(built.response, BTC_USER, UTXOS))).toEqual([]);
  });

  it('INSUFFICIENT_FUNDS exactly when the coins do not cover amount + fee; dust change is left to the fee', async () => {
    const coin = { txid: 'c3'.repeat(32), vout: 0, value: 100_000n };
    const outputs = [
      { script: new Uint8Array(22), value: 1n },
      { script: orderIdMemoScript(`0x${'00'.repeat(32)}`), value: 0n },
    ];
    const noChangeFee = BigInt(estimateVsize('p2wpkh', 1, outputs)) * 2n;
    const atBoundary = (100_000n - noChangeFee).toString();
    const ok = await buildVm({ ...bitcoinToEvm, amount: atBoundary }, { coins: [coin] });
    const okPsbt = Psbt.fromHex((ok.response.steps[0]!.items[0]!.data as { psbt: string }).psbt, { network: networks.regtest });
    expect(okPsbt.txOutputs).toHaveLength(2); // no change output: it would be dust
    const over = await rejected(buildVm({ ...bitcoinToEvm, amount: (100_000n - noChangeFee + 1n).toString() }, { coins: [coin] }));
    expect([over.status, over.code, over.errorData]).toEqual([400, 'INSUFFICIENT_FUNDS', 'balance=100000']);
    expect((await rejected(buildVm(bitcoinToEvm, { coins: [] }))).code).toBe('INSUFFICIENT_FUNDS');
  });

  const BVM_RULES: [VmTamperKind | 'expiredDeadline' | 'paymentWeight' | 'orderSignature', VerifyRuleId][] = [
    ['psbtExtraOutput', 'change'],
    ['psbtAmount', 'deposit-kind'],
    ['psbtDepository', 'deposit-call'],
    ['psbtNoOpReturn', 'deposit-id'],
    ['psbtForeignInput', 'origin-inputs'],
    ['psbtChangeStranger', 'change'],
    ['expiredDeadline', 'deadline'],
    ['paymentWeight', 'payment-weight'],
    ['orderSignature', 'order-signature'],
  ];
  it.each(BVM_RULES)('tampered with %s it is refused on %s', async (kind, rule) => {
    const built = await buildVm(bitcoinToEvm);
    const t = await tamperVmQuote(built.response as VmOriginQuote, kind, {
      chains: TABLE,
      vmChains: VM_CHAINS,
      solver: SOLVER,
      nowSec: NOW_SEC,
    });
    expect(t.applied, t.reason).toBe(true);
    expect(failing(await verdict(t.response, BTC_USER, UTXOS))).toContain(rule);
  });

  it('psbtHighFee needs enough change; on a large change it breaks fee-cap and miner-fee-cap', async () => {
    const big = await buildVm(bitcoinToEvm, { coins: [{ txid: 'd4'.repeat(32), vout: 2, value: 5_000_000n }] });
    const t = await tamperVmQuote(big.response as VmOriginQuote, 'psbtHighFee', {
      chains: TABLE,
      vmChains: VM_CHAINS,
      solver: SOLVER,
      nowSec: NOW_SEC,
    });
    expect(t.applied).toBe(true);
    expect(
      failing(await verdict(t.response, BTC_USER, { utxos: [{ txid: 'd4'.repeat(32), vout: 2, value: 5_000_000n, confirmed: true }] })),
    ).toEqual(['fee-cap', 'miner-fee-cap']);
    const small = await buildVm(bitcoinToEvm);
    expect(
      (
        await tamperVmQuote(small.response as VmOriginQuote, 'psbtHighFee', {
          chains: TABLE,
          vmChains: VM_CHAINS,
          solver: SOLVER,
          nowSec: NOW_SEC,
        })
      ).applied,
    ).toBe(false);
  });

  it('psbtMinerFee makes the miner fee 39 % of the payment, refused by miner-fee-cap', async () => {
    const coin = { txid: 'd4'.repeat(32), vout: 2, value: 5_000_000n };
    const big = await buildVm(bitcoinToEvm, { coins: [coin] });
    const t = await tamperVmQuote(big.response as VmOriginQuote, 'psbtMinerFee', {
      chains: TABLE,
      vmChains: VM_CHAINS,
      solver: SOLVER,
      nowSec: NOW_SEC,
    });
    expect(t.applied).toBe(true);
    const result = await verdict(t.response, BTC_USER, { utxos: [{ ...coin, confirmed: true }] });
    expect(failing(result)).toContain('miner-fee-cap');
    expect(result.rules.find((r) => r.rule === 'miner-fee-cap')?.detail).toBe(
      'miner fee 312000 sat is above the cap of 100000 sat (maxMinerFeeSats); miner fee 312000 sat is 3900 bps of the 800000-sat payment, above the cap of 500 bps (maxMinerFeeBps)',
    );
  });
});

describe('EVM-origin quote to Bitcoin', () => {
  it('has EVM steps, pays a regtest recipient, refunds the EVM user on alpha and the recipient on bitcoin', async () => {
    const built = await buildVm({
      user: USER,
      recipient: BTC_RECIPIENT,
      originChainId: 31001,
      destinationChainId: BITCOIN_ID,
      originCurrency: USDC,
      destinationCurrency: BTC,
      amount: '1000000000',
      tradeType: 'EXACT_INPUT',
      includeProtocolData: true,
    });
    expect(built.originVm).toBe('evm');
    expect(built.response.steps.map((s) => s.id)).toEqual(['approve', 'deposit']);
    const order = built.response.protocol!.v2.orderData;
    expect(order.output.payments[0]!.recipient).toBe(BTC_RECIPIENT);
    expect(order.inputs[0]!.refunds.map((r) => [r.chainId, r.recipient])).toEqual([
      ['alpha', USER],
      ['bitcoin', BTC_RECIPIENT],
    ]);
    const v = await verifyQuote({
      quote: QuoteResponseSchema.parse(JSON.parse(JSON.stringify(built.response))),
      chains: VM_CHAINS_DOC,
      expect: { user: USER, recipient: BTC_RECIPIENT, destinationChainId: BITCOIN_ID, destinationCurrency: BTC },
      nowSec: NOW_SEC,
    });
    expect(failing(v)).toEqual([]);
  });
});
