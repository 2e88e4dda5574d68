/**
 * POST /quote/v2 for routes touching Solana or Bitcoin: the Solana size check (docs/relay-contract.md "Limits": 1232 bytes;
 * the `solanaTxTooLarge` fault), the chain reads (balances, EVM fee data, the Bitcoin user's coins and fee rate),
 * the build (`vmQuote.ts`), and the tamper faults of Solana- and Bitcoin-origin quotes.
 */
import type { Hex } from 'viem';
import type { Logger } from 'pino';
import { TAMPER_KINDS } from '../faults.ts';
import { randomBytes32 } from '../quote/buildQuote.ts';
import { lower } from '../quote/chainTable.ts';
import { judgeSolanaSize, solanaTxTooLargeError } from '../quote/solanaSize.ts';
import type { SandboxQuoteRequest, QuoteRoute } from '../quote/request.ts';
import { depositInstructionJson, svmWireSize } from '../quote/svmSteps.ts';
import { tamperQuote } from '../quote/tamper.ts';
import type { AnyStepDataJson, SandboxQuoteResponse } from '../quote/types.ts';
import { evmCurrencyOf, isEvmChain, type SandboxAnyChain, type SandboxVmCurrency } from '../quote/vmChains.ts';
import { buildVmQuote, SOLANA_SIGNATURE_FEE_LAMPORTS, type BuiltVmQuote } from '../quote/vmQuote.ts';
import { tamperVmQuote } from '../quote/vmTamper.ts';
import type { SandboxState, SandboxVmState } from './state.ts';

/** Rent of a new SPL token account, lamports (165 bytes): what a token fill may pay to create the recipient's. */
export const SOLANA_TOKEN_ACCOUNT_RENT_LAMPORTS = 2_039_280n;
/** Virtual size of the solver's Bitcoin fill (one P2WPKH input; payment and change outputs), vbytes. */
export const BITCOIN_FILL_VSIZE = 141n;

const ZERO_ID: Hex = `0x${'00'.repeat(32)}`;

function vmState(state: SandboxState): SandboxVmState {
  if (!state.vm) throw new Error('the sandbox serves no Solana or Bitcoin chain'); // resolveQuoteRoute found one
  return state.vm;
}

/**
 * Balance of `owner` in `currency` on any sandbox chain, base units. `solver`: count the solver's unmined
 * Bitcoin change as liquidity.
 */
async function balanceOn(
  state: SandboxState,
  chain: SandboxAnyChain,
  currency: SandboxVmCurrency,
  owner: string,
  solver = false,
): Promise<bigint> {
  if (isEvmChain(chain)) {
    const evm = evmCurrencyOf(chain, currency);
    if (!evm) throw new Error(`${currency.symbol} is not a currency of ${chain.slug}`); // the route found it there
    return state.io.balanceOf(chain.chainId, evm, lower(owner));
  }
  return vmState(state).io.balanceOf(chain.chainId, currency, owner, { pendingIncoming: solver });
}

/**
 * Solana origin: measures the deposit transaction, judges it under the `solanaTxTooLarge` fault and records
 * the request's routing fields.
 *
 * @throws SandboxApiError 400 `SOLANA_TX_TOO_LARGE` when the (simulated) transaction exceeds 1232 bytes
 */
function checkSolanaSize(state: SandboxState, request: SandboxQuoteRequest, route: QuoteRoute): void {
  const origin = route.origin;
  if (!('vmType' in origin) || origin.vmType !== 'svm') return;
  const ix = depositInstructionJson({
    programId: origin.depository,
    user: route.user,
    currencyIn: route.currencyIn,
    amountIn: route.amountIn,
    orderId: ZERO_ID,
  });
  const judged = judgeSolanaSize(request, svmWireSize([ix], route.user), state.faults.get().solanaTxTooLarge ?? null);
  vmState(state).solanaQuoteLog.push(judged);
  if (judged.outcome !== 'ok') throw solanaTxTooLargeError(judged.sizeBytes);
}

/**
 * Reads the chains and builds the quote of a route touching Solana or Bitcoin.
 *
 * @throws SandboxApiError 400 as `buildVmQuote` and {@link checkSolanaSize}
 */
export async function buildVmQuoteFor(state: SandboxState, request: SandboxQuoteRequest, route: QuoteRoute): Promise<BuiltVmQuote> {
  const vm = vmState(state);
  checkSolanaSize(state, request, route);
  const { origin, destination } = route;
  const solverOn = (chain: SandboxAnyChain): string => {
    if (isEvmChain(chain)) return state.solver.address;
    const wallet = vm.solverWallets[chain.vmType];
    if (wallet === undefined) throw new Error(`the solver has no wallet on ${chain.slug}`);
    return wallet;
  };
  const bitcoinSide =
    !isEvmChain(origin) && origin.vmType === 'bvm'
      ? 'origin'
      : !isEvmChain(destination) && destination.vmType === 'bvm'
        ? 'destination'
        : null;
  const [userIn, solverOut, originFee, destinationFee, feeRate, coins] = await Promise.all([
    balanceOn(state, origin, route.currencyIn, route.user),
    balanceOn(state, destination, route.currencyOut, solverOn(destination), true),
    isEvmChain(origin) ? state.io.feeData(origin.chainId) : null,
    isEvmChain(destination) ? state.io.feeData(destination.chainId) : null,
    bitcoinSide !== null ? vm.io.bitcoinFeeRate() : null,
    bitcoinSide === 'origin' ? vm.io.bitcoinCoins(route.user) : null,
  ]);
  let fillCostNative: bigint | null = null;
  if (!isEvmChain(destination)) {
    fillCostNative =
      destination.vmType === 'svm'
        ? SOLANA_SIGNATURE_FEE_LAMPORTS + (route.currencyOut.isNative ? 0n : SOLANA_TOKEN_ACCOUNT_RENT_LAMPORTS)
        : BITCOIN_FILL_VSIZE * (feeRate ?? 1n);
  }
  return buildVmQuote({
    route,
    chains: state.chains,
    vmChains: vm.chains,
    prices: state.prices,
    solver: state.solver,
    nowSec: Math.floor(state.nowMs() / 1000),
    faults: state.faults.get(),
    pricing: state.pricing,
    ...(originFee ? { originFeeData: originFee } : {}),
    destinationFill: destinationFee ? { gasPriceWei: destinationFee.maxFeePerGas } : { costNative: fillCostNative ?? 0n },
    balances: { userIn, solverOut },
    ...(coins !== null && feeRate !== null ? { bitcoinOrigin: { coins, feeRateSatPerVb: feeRate } } : {}),
    random: randomBytes32,
  });
}

/**
 * Applies the armed tamper fault to a built quote of a route touching Solana or Bitcoin (EVM origins through
 * `tamper.ts`, others through `vmTamper.ts`).
 *
 * @returns the response to serve, and whether the tamper applied (a kind that does not fit is not consumed)
 */
export async function tamperBuiltVmQuote(
  state: SandboxState,
  built: BuiltVmQuote,
  log: Logger,
): Promise<SandboxQuoteResponse<AnyStepDataJson>> {
  const kind = state.faults.nextTamper();
  if (kind === null) return built.response;
  const nowSec = Math.floor(state.nowMs() / 1000);
  const vmChains = vmState(state).chains;
  let result: { response: SandboxQuoteResponse<AnyStepDataJson>; applied: boolean; reason: string };
  try {
    if (built.originVm === 'evm') {
      const evmKind = TAMPER_KINDS.find((k) => k === kind);
      result = evmKind
        ? await tamperQuote(built.response, evmKind, { chains: state.chains, vmChains, solver: state.solver, nowSec })
        : { response: built.response, applied: false, reason: `${kind} tampers Solana or Bitcoin deposits` };
    } else {
      result = await tamperVmQuote(built.response, kind, { chains: state.chains, vmChains, solver: state.solver, nowSec });
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    result = { response: built.response, applied: false, reason };
  }
  if (!result.applied) {
    log.warn({ tamper: kind, reason: result.reason }, 'tamper fault not applicable to this quote; served untampered');
    return built.response;
  }
  state.faults.tamperApplied();
  log.warn({ tamper: kind }, 'served a tampered quote (fault)');
  return result.response;
}
