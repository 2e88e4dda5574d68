/**
 * What the origin chain charges the treasury for a quote's transactions, beyond the payment itself, in the
 * origin's native base units, read from the quote's own step data with the per-VM verifier's decoders (Bitcoin
 * PSBT: bvmPsbt.ts; Solana compute budget: svmFees.ts). The quote's `details` do not hold it: the user pays
 * origin gas directly to the network (docs/relay-contract.md "Fee components", execution). Pure; never throws for a bad
 * quote.
 *
 * - bvm: the miner fee of the deposit PSBT, inputs − outputs (BIP-174 `witnessUtxo` values; verification's
 *   `origin-inputs` then holds each to our own unspent output), satoshis; exact.
 * - svm: per transaction item, 5,000 lamports per signature + compute-unit price × limit (micro-lamports,
 *   rounded up to lamports), lamports; exact for the transaction as signed.
 * - evm: the quote's deprecated `fees.gas` (docs/relay-contract.md "Deprecated fee set": origin chain gas fee) when it is in
 *   the chain's native currency, wei; without `fees.gas` (POST /quote/v3 has none), the sum over the transaction
 *   items of `gas × maxFeePerGas` (docs/relay-contract.md "Step item"), the most those transactions could pay at the
 *   quote's own gas fields, unknown when an item lacks either. An estimate either way: the executor signs with its
 *   own node's gas limit and fee caps (src/chains/evm/signTransaction.ts), the price is only known once mined (the
 *   ledger records the receipt's `gasUsed × effectiveGasPrice`), and a rollup's L1 data fee is in neither.
 */
import { networks } from 'bitcoinjs-lib';
import { EvmTxDataSchema, type QuoteResponse } from '@ballast/protocol/relay/schemas.ts';
import { bitcoinNetworkOf } from '@ballast/protocol/protocol/bitcoinDeposit.ts';
import { collectBvmSteps } from './bvmItems.ts';
import { parseBvmPsbt } from './bvmPsbt.ts';
import { svmNetworkFeeLamports } from './svmFees.ts';
import { collectSvmSteps, parsedItems } from './svmItems.ts';

/** The origin chain as the estimate needs it: VM family and how to recognise its native currency. */
export interface OriginCostChain {
  vm: 'evm' | 'svm' | 'bvm';
  /** Whether a currency id is the chain's native currency (in the chain's own spelling). */
  isNative: (currency: string) => boolean;
}

/**
 * The estimate: native base units (satoshis, lamports, wei) and how they were found, or why it is unknown.
 * `exact` is true when the amount is what the signed transactions pay (bvm, svm), false for an estimate (evm).
 */
export type OriginCostEstimate = { ok: true; baseUnits: bigint; exact: boolean; how: string } | { ok: false; why: string };

/**
 * Estimates the origin network cost of a quote's transaction items (rules in the file comment).
 *
 * @param quote the parsed quote (to be verified; a quote verification refuses may give any answer here)
 * @param chain the origin chain's VM family and native currency test
 * @param user our depositing wallet on the origin chain (Solana fee payer; Bitcoin network)
 * @returns the cost in native base units, or `{ok: false, why}` naming what is missing
 * @example
 * estimateOriginCost(quote, { vm: 'bvm', isNative }, 'bc1q…') // { ok: true, baseUnits: 1410n, exact: true, how: 'PSBT miner fee …' }
 */
export function estimateOriginCost(quote: QuoteResponse, chain: OriginCostChain, user: string): OriginCostEstimate {
  switch (chain.vm) {
    case 'bvm':
      return bitcoinMinerFee(quote, user);
    case 'svm':
      return solanaFees(quote, user);
    case 'evm':
      return evmGasEstimate(quote, chain.isNative);
  }
}

function bitcoinMinerFee(quote: QuoteResponse, user: string): OriginCostEstimate {
  const items = collectBvmSteps(quote).items.filter((i) => i.psbtHex !== undefined);
  if (items.length === 0) return { ok: false, why: 'no step item carries data.psbt, so the miner fee cannot be read' };
  const network = bitcoinNetworkOf(user) ?? networks.bitcoin; // only renders output addresses; the fee does not depend on it
  let sum = 0n;
  for (const item of items) {
    const parsed = parseBvmPsbt(item.psbtHex ?? '', network);
    if (!parsed.psbt) return { ok: false, why: `${item.path}: ${parsed.problem}` };
    const fee = parsed.psbt.feeSat;
    if (fee === null)
      return { ok: false, why: `${item.path}: an input has no witnessUtxo, so the PSBT's input total (and its miner fee) is unknown` };
    if (fee < 0n) return { ok: false, why: `${item.path}: the outputs exceed the inputs by ${-fee} sat` };
    sum += fee;
  }
  return { ok: true, baseUnits: sum, exact: true, how: `PSBT miner fee (inputs − outputs) ${sum} sat` };
}

function solanaFees(quote: QuoteResponse, user: string): OriginCostEstimate {
  const { items } = collectSvmSteps(quote);
  if (items.length === 0) return { ok: false, why: 'the quote has no transaction items' };
  const unparsed = items.find((i) => i.stepData === null);
  if (unparsed) return { ok: false, why: `${unparsed.path}: ${unparsed.parseError ?? 'step data does not parse'}` };
  let sum = 0n;
  for (const item of parsedItems(items)) {
    const fee = svmNetworkFeeLamports(item, user);
    if (typeof fee === 'string') return { ok: false, why: fee };
    sum += fee;
  }
  return { ok: true, baseUnits: sum, exact: true, how: `signature and priority fees of ${items.length} transaction(s) ${sum} lamports` };
}

function evmGasEstimate(quote: QuoteResponse, isNative: (currency: string) => boolean): OriginCostEstimate {
  const gas = quote.fees?.['gas'];
  if (!gas) return evmStepGasLimit(quote);
  if (!isNative(gas.currency.address))
    return { ok: false, why: `fees.gas is in ${gas.currency.symbol} (${gas.currency.address}), not the origin's native currency` };
  if (!/^[0-9]+$/.test(gas.amount)) return { ok: false, why: `fees.gas.amount ${gas.amount} is negative` };
  return { ok: true, baseUnits: BigInt(gas.amount), exact: false, how: `origin gas estimate (fees.gas) ${gas.amount} wei` };
}

/** Σ `gas × maxFeePerGas` over the transaction items (the case without `fees.gas`, rules in the file comment). */
function evmStepGasLimit(quote: QuoteResponse): OriginCostEstimate {
  let sum = 0n;
  let count = 0;
  for (const [i, step] of quote.steps.entries()) {
    if (step.kind !== 'transaction') continue;
    for (const [j, item] of step.items.entries()) {
      const path = `steps[${i}].items[${j}].data`;
      const data = EvmTxDataSchema.safeParse(item.data);
      if (!data.success) return { ok: false, why: `the quote has no fees.gas, and ${path} is not an EVM transaction` };
      const { gas: limit, maxFeePerGas } = data.data;
      if (limit === undefined || maxFeePerGas === undefined) {
        return { ok: false, why: `the quote has no fees.gas, and ${path} lacks ${limit === undefined ? 'gas' : 'maxFeePerGas'}` };
      }
      sum += BigInt(limit) * BigInt(maxFeePerGas); // schema: unsigned integer strings
      count += 1;
    }
  }
  if (count === 0) return { ok: false, why: 'the quote has no fees.gas and no transaction items' };
  return { ok: true, baseUnits: sum, exact: false, how: `origin gas limit × maxFeePerGas of ${count} transaction(s) ${sum} wei` };
}
