/**
 * The origin cost of a quote (src/verify/deposit/originCost.ts, src/policy/originCost.ts): the Bitcoin miner fee
 * read from the PSBT, Solana's signature and priority fees read from the compute-budget instructions, the EVM
 * `fees.gas` estimate (else the steps' gas × maxFeePerGas); priced in micro-USD with the quote's own price of the
 * native currency, else a fetched one (rounded up), and unknown — never guessed — when neither says.
 */
import { describe, expect, it } from 'vitest';
import { zeroAddress } from 'viem';
import { originCostNeedsPrice, originCostOf } from '../../../packages/ballast/src/policy/originCost.ts';
import { estimateOriginCost } from '../../../packages/ballast/src/verify/deposit/originCost.ts';
import { SYSTEM_PROGRAM_ID } from '../../../packages/protocol/src/protocol/svmDepository.ts';
import type { QuoteResponse } from '../../../packages/protocol/src/relay/schemas.ts';
import { AMOUNT, BTC, FEE, buildPsbt, bvmCase, bvmQuote, standardSpec, testWallet } from '../../fixtures/bvmQuote.ts';
import { computeBudgetInstruction, readInstructions, SVM_USER, svmQuoteInput, writeInstructions } from '../../fixtures/svmQuote.ts';
import { offlineQuote } from '../../fixtures/offlineQuote.ts';

const isBtc = (c: string) => c === BTC;
const isSol = (c: string) => c === SYSTEM_PROGRAM_ID;
const isEth = (c: string) => c.toLowerCase() === zeroAddress;

function bitcoinQuote(): { quote: QuoteResponse; user: string } {
  const c = bvmCase(testWallet('p2wpkh', 'bitcoin'));
  return { quote: bvmQuote(c, buildPsbt(c, standardSpec(c)).toHex()), user: c.wallet.address };
}

function gasMember(address: string, amount: string, amountUsd?: string) {
  return { currency: { chainId: 1, address, symbol: 'X', decimals: 18 }, amount, ...(amountUsd !== undefined ? { amountUsd } : {}) };
}

describe('estimateOriginCost', () => {
  it('Bitcoin: the PSBT miner fee, inputs − outputs, in satoshis', () => {
    const { quote, user } = bitcoinQuote();
    const cost = estimateOriginCost(quote, { vm: 'bvm', isNative: isBtc }, user);
    expect(cost).toMatchObject({ ok: true, baseUnits: FEE, exact: true });
  });

  it('Bitcoin: a PSBT whose outputs exceed its inputs has no fee to count (unknown, not negative)', () => {
    const c = bvmCase(testWallet('p2wpkh', 'bitcoin'));
    const spec = standardSpec(c);
    spec.outputs[2] = { ...spec.outputs[2]!, value: spec.outputs[2]!.value + FEE + 1n };
    const cost = estimateOriginCost(bvmQuote(c, buildPsbt(c, spec).toHex()), { vm: 'bvm', isNative: isBtc }, c.wallet.address);
    expect(cost).toEqual({ ok: false, why: expect.stringContaining('the outputs exceed the inputs by 1 sat') });
  });

  it('Solana: 5,000 lamports per signature, and the priority fee price × limit rounded up to lamports', () => {
    const { input } = svmQuoteInput('native'); // the deposit alone: no compute budget, no priority fee
    expect(estimateOriginCost(input.quote, { vm: 'svm', isNative: isSol }, SVM_USER)).toMatchObject({ ok: true, baseUnits: 5_000n });

    const deposit = readInstructions(input.quote);
    // 200,000 CU at 1,000,001 micro-lamports per CU = 200,000.2 lamports → 200,001
    writeInstructions(input.quote, [computeBudgetInstruction(2, 200_000n), computeBudgetInstruction(3, 1_000_001n), ...deposit]);
    expect(estimateOriginCost(input.quote, { vm: 'svm', isNative: isSol }, SVM_USER)).toMatchObject({
      ok: true,
      baseUnits: 205_001n,
      exact: true,
    });

    // No limit set: the runtime grants 200,000 CU per other instruction (one deposit here).
    writeInstructions(input.quote, [computeBudgetInstruction(3, 2_000_000n), ...deposit]);
    expect(estimateOriginCost(input.quote, { vm: 'svm', isNative: isSol }, SVM_USER)).toMatchObject({
      ok: true,
      baseUnits: 5_000n + 400_000n,
    });
  });

  it("EVM: the quote's fees.gas when it is in the native currency, an estimate; unknown otherwise", () => {
    const { quote } = offlineQuote();
    quote.fees = { gas: gasMember(zeroAddress, '21000000000000', '0.06') };
    expect(estimateOriginCost(quote, { vm: 'evm', isNative: isEth }, '0x1')).toMatchObject({
      ok: true,
      baseUnits: 21_000_000_000_000n,
      exact: false,
    });
    quote.fees = { gas: gasMember('0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', '1000') };
    expect(estimateOriginCost(quote, { vm: 'evm', isNative: isEth }, '0x1')).toMatchObject({
      ok: false,
      why: expect.stringContaining("not the origin's native currency"),
    });
  });

  it('EVM without fees.gas (/quote/v3): Σ gas × maxFeePerGas of the transaction items; unknown when an item lacks either', () => {
    const { quote } = offlineQuote();
    delete quote.fees;
    const items = quote.steps.flatMap((s) => s.items);
    expect(items.length).toBeGreaterThan(0);
    for (const [i, item] of items.entries()) Object.assign(item.data, { gas: String(100_000 + i), maxFeePerGas: '2000000000' });
    const wei = items.reduce((sum, _item, i) => sum + BigInt(100_000 + i) * 2_000_000_000n, 0n);
    expect(estimateOriginCost(quote, { vm: 'evm', isNative: isEth }, '0x1')).toEqual({
      ok: true,
      baseUnits: wei,
      exact: false,
      how: `origin gas limit × maxFeePerGas of ${items.length} transaction(s) ${wei} wei`,
    });
    delete (items[0]!.data as Record<string, unknown>)['maxFeePerGas'];
    expect(estimateOriginCost(quote, { vm: 'evm', isNative: isEth }, '0x1')).toEqual({
      ok: false,
      why: 'the quote has no fees.gas, and steps[0].items[0].data lacks maxFeePerGas',
    });
  });
});

describe('originCostOf', () => {
  it("prices the miner fee with fees.gas when the quote has it, else with the BTC input's own price, rounded up", () => {
    const { quote, user } = bitcoinQuote();
    // 100,000 sat worth 100 USD: 1,000 micro-USD a satoshi; the 2,000 sat fee is 2 USD.
    quote.details.currencyIn.amountUsd = '100';
    expect(originCostOf(quote, { vm: 'bvm', isNative: isBtc }, user)).toMatchObject({ baseUnits: FEE, usdMicros: 2_000_000n });
    // fees.gas first: 3 sat priced 0.000010 USD → 3.333… micro-USD a sat; 2,000 sat → 6,666.6… → 6,667 micro-USD.
    quote.fees = { gas: gasMember(BTC, '3', '0.00001') };
    const cost = originCostOf(quote, { vm: 'bvm', isNative: isBtc }, user);
    expect(cost).toMatchObject({ baseUnits: FEE, usdMicros: 6_667n });
    expect(cost.detail).toBe(`PSBT miner fee (inputs − outputs) ${FEE} sat = 0.006667 USD`);
    expect(AMOUNT).toBe(100_000n); // the input the 100 USD above stands for
  });

  it('leaves the USD cost unknown when the quote prices the native currency nowhere', () => {
    const { quote, user } = bitcoinQuote(); // no fees, and currencyIn has no amountUsd
    const cost = originCostOf(quote, { vm: 'bvm', isNative: isBtc }, user);
    expect(cost).toEqual({ baseUnits: FEE, usdMicros: null, detail: expect.stringContaining('prices neither fees.gas nor the input') });
  });

  it("prices with a fetched native price only when the quote's own data prices it nowhere, rounded up, saying so", () => {
    const { quote, user } = bitcoinQuote(); // no fees, and currencyIn has no amountUsd
    const chain = { vm: 'bvm', isNative: isBtc } as const;
    expect(originCostNeedsPrice(quote, chain, user)).toBe(true);
    // 60,000 USD per BTC (1e8 sat): 600 micro-USD a sat; 2,000 sat → 1.2 USD.
    const fetched = { usdMicros: 60_000_000_000n, amount: 100_000_000n, source: '60000 USD per BTC (GET /currencies/token/price)' };
    const cost = originCostOf(quote, chain, user, fetched);
    expect(cost).toEqual({
      baseUnits: FEE,
      usdMicros: 1_200_000n,
      detail: `PSBT miner fee (inputs − outputs) ${FEE} sat = 1.2 USD at 60000 USD per BTC (GET /currencies/token/price)`,
    });
    // A price that does not divide evenly is rounded up: 1 micro-USD per 3 sat → 2,000 / 3 = 666.6… → 667.
    expect(originCostOf(quote, chain, user, { usdMicros: 1n, amount: 3n, source: 'x' }).usdMicros).toBe(667n);
    // A zero price is no price: the cost stays unknown (fail closed).
    expect(originCostOf(quote, chain, user, { usdMicros: 0n, amount: 3n, source: 'x' }).usdMicros).toBeNull();
    // The quote's own price wins, and then none is needed.
    quote.fees = { gas: gasMember(BTC, '3', '0.00001') };
    expect(originCostNeedsPrice(quote, chain, user)).toBe(false);
    expect(originCostOf(quote, chain, user, fetched)).toMatchObject({
      usdMicros: 6_667n,
      detail: `PSBT miner fee (inputs − outputs) ${FEE} sat = 0.006667 USD`,
    });
  });
});
