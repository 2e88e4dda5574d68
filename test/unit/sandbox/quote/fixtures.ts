/**
 * Shared inputs for the sandbox quote tests: a two-chain table (alpha 31001, beta 31002) with USDC, USDT and
 * router contracts, anvil's well-known dev keys for the user (index 0) and solver (index 1), and a quote
 * builder with fixed fee data.
 */
import type { Address, Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { DEFAULT_SANDBOX_FAULTS, type SandboxFaults } from '../../../../packages/sandbox/src/faults.ts';
import { buildQuote, type BuildQuoteInput, type BuiltQuote } from '../../../../packages/sandbox/src/quote/buildQuote.ts';
import { SANDBOX_ETH, sandboxUsdc, sandboxUsdt, type SandboxChainTable } from '../../../../packages/sandbox/src/quote/chainTable.ts';
import { parsePrices } from '../../../../packages/sandbox/src/quote/prices.ts';
import type { SandboxQuoteRequest } from '../../../../packages/sandbox/src/quote/request.ts';

export const SOLVER = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
export const USER: Address = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
export const RECIPIENT: Address = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
export const USDC: Address = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
export const USDT: Address = '0xcf7ed3acca5a467e9e704c703e8d87f634fb0fc9';
export const ZERO: Address = '0x0000000000000000000000000000000000000000';
export const DEPOSITORY_ALPHA: Address = '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512';
export const DEPOSITORY_BETA: Address = '0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0';
/** Router contracts per chain (distinct on each chain, so a test can tell which chain's router a field names). */
export const ROUTERS_ALPHA = {
  erc20Router: '0xa1000000000000000000000000000000000000a1',
  approvalProxy: '0xa2000000000000000000000000000000000000a2',
  v3: { erc20Router: '0xa3000000000000000000000000000000000000a3', approvalProxy: '0xa4000000000000000000000000000000000000a4' },
} as const satisfies { erc20Router: Address; approvalProxy: Address; v3: { erc20Router: Address; approvalProxy: Address } };
export const ROUTERS_BETA = {
  erc20Router: '0xb1000000000000000000000000000000000000b1',
  approvalProxy: '0xb2000000000000000000000000000000000000b2',
  v3: { erc20Router: '0xb3000000000000000000000000000000000000b3', approvalProxy: '0xb4000000000000000000000000000000000000b4' },
} as const satisfies { erc20Router: Address; approvalProxy: Address; v3: { erc20Router: Address; approvalProxy: Address } };
export const NOW_SEC = 1_800_000_000;
export const GWEI = 1_000_000_000n;

export const TABLE: SandboxChainTable = [
  {
    chainId: 31001,
    slug: 'alpha',
    displayName: 'Alpha',
    rpcUrl: 'http://127.0.0.1:1',
    depository: DEPOSITORY_ALPHA,
    multicall3: '0xca11bde05977b3631167028862be2a173976ca11',
    ...ROUTERS_ALPHA,
    native: SANDBOX_ETH,
    erc20: [sandboxUsdc(USDC), sandboxUsdt(USDT)],
  },
  {
    chainId: 31002,
    slug: 'beta',
    displayName: 'Beta',
    rpcUrl: 'http://127.0.0.1:2',
    depository: DEPOSITORY_BETA,
    multicall3: '0xca11bde05977b3631167028862be2a173976ca11',
    ...ROUTERS_BETA,
    native: SANDBOX_ETH,
    erc20: [sandboxUsdc(USDC), sandboxUsdt(USDT)],
  },
];

export const PRICES = parsePrices({ ETH: '3000', USDC: '1', USDT: '1' });

/** A 1000 USDC alpha → beta request with protocol data. */
export function usdcRequest(over: Partial<SandboxQuoteRequest> = {}): SandboxQuoteRequest {
  return {
    user: USER,
    recipient: RECIPIENT,
    originChainId: 31001,
    destinationChainId: 31002,
    originCurrency: USDC,
    destinationCurrency: USDC,
    amount: '1000000000',
    tradeType: 'EXACT_INPUT',
    includeProtocolData: true,
    ...over,
  };
}

let counter = 0;
/** Deterministic distinct 32-byte values. */
export function counterRandom(): Hex {
  counter += 1;
  return `0x${counter.toString(16).padStart(64, 'a')}`;
}

/** Builds a quote with 1 gwei fees on both chains and ample balances. */
export function build(
  request: SandboxQuoteRequest = usdcRequest(),
  over: Partial<Omit<BuildQuoteInput, 'request' | 'faults'>> & { faults?: Partial<SandboxFaults> } = {},
): Promise<BuiltQuote> {
  const fee = { maxFeePerGas: GWEI, maxPriorityFeePerGas: GWEI / 10n };
  return buildQuote({
    chains: TABLE,
    prices: PRICES,
    solver: SOLVER,
    nowSec: NOW_SEC,
    feeData: { origin: fee, destination: fee },
    balances: { userIn: 5_000_000_000n, solverOut: 10n ** 24n },
    random: counterRandom,
    ...over,
    request,
    faults: { ...DEFAULT_SANDBOX_FAULTS, ...over.faults },
  });
}
