/**
 * GET /chains/liquidity?chainId= of the sandbox (docs/relay-contract.md "GET /chains/liquidity",
 * https://docs.relay.link/references/api/get-chains-liquidity): the solver's real balances on that chain, read
 * from the chain when asked, one entry per currency GET /chains lists for it (native first). EVM: the solver
 * account's native and ERC-20 balances; Solana and Bitcoin: the solver's wallet there (fills come from it), Bitcoin
 * counting its unmined change as quoting does. A chain on which the solver has no wallet lists nothing.
 */
import { formatUsdMicros } from '@ballast/protocol/core/units.ts';
import { SandboxApiError } from '../quote/errors.ts';
import { toUsdMicros } from '../quote/prices.ts';
import type { SandboxVmCurrency } from '../quote/vmChains.ts';
import type { RouteResult } from './routes.ts';
import type { SandboxState } from './state.ts';

/** One entry of the answer; `balance` in base units, `amountUsd` at the sandbox prices (absent without a price). */
interface LiquidityJson {
  chainId: number;
  currencyId: string;
  symbol: string;
  address: string;
  decimals: number;
  balance: string;
  amountUsd?: string;
}

function entry(state: SandboxState, chainId: number, c: SandboxVmCurrency, balance: bigint): LiquidityJson {
  const price = state.prices[c.symbol];
  return {
    chainId,
    currencyId: c.id,
    symbol: c.symbol,
    address: c.address,
    decimals: c.decimals,
    balance: balance.toString(),
    ...(price !== undefined ? { amountUsd: formatUsdMicros(toUsdMicros(balance, c.decimals, price)) } : {}),
  };
}

/**
 * GET /chains/liquidity?chainId= → `{liquidity: [{chainId, currencyId, symbol, address, decimals, balance, amountUsd}]}`.
 *
 * @throws SandboxApiError 400 `{message}` without `chainId`, with one that is not a positive integer, or with one
 *   that is not a sandbox chain
 */
export async function getChainLiquidity(state: SandboxState, query: URLSearchParams): Promise<RouteResult> {
  const raw = query.get('chainId');
  if (raw === null || raw === '') throw new SandboxApiError(400, null, 'chainId query parameter is required');
  if (!/^[1-9][0-9]*$/.test(raw)) throw new SandboxApiError(400, null, `chainId must be a positive integer chain id, got ${raw}`);
  const chainId = Number(raw);
  const evm = state.chains.find((c) => c.chainId === chainId);
  if (evm) {
    const currencies = [evm.native, ...evm.erc20];
    const balances = await Promise.all(currencies.map((c) => state.io.balanceOf(chainId, c, state.solver.address)));
    return { status: 200, body: { liquidity: currencies.map((c, i) => entry(state, chainId, c, balances[i]!)) } }; // one balance per currency
  }
  const vm = state.vm;
  const chain = vm?.chains.find((c) => c.chainId === chainId);
  if (!vm || !chain) throw new SandboxApiError(400, null, `chainId ${chainId} is not a sandbox chain; see GET /chains`);
  const wallet = vm.solverWallets[chain.vmType];
  if (wallet === undefined) return { status: 200, body: { liquidity: [] } };
  const currencies = [chain.native, ...chain.tokens];
  const balances = await Promise.all(currencies.map((c) => vm.io.balanceOf(chainId, c, wallet, { pendingIncoming: true })));
  return { status: 200, body: { liquidity: currencies.map((c, i) => entry(state, chainId, c, balances[i]!)) } }; // one balance per currency
}
