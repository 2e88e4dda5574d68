/**
 * Everything the sandbox API and solver share: the chain tables, prices, the solver key, fault knobs, request
 * records and the chain reads quoting needs. Chain access goes through {@link ChainIo} and {@link VmChainIo}
 * so the HTTP layer can be exercised in-process with fakes.
 */
import type { Logger } from 'pino';
import type { Address, Hex, LocalAccount } from 'viem';
import type { BitcoinCoin } from '../quote/bvmSteps.ts';
import type { SandboxChainTable, SandboxCurrency } from '../quote/chainTable.ts';
import type { SandboxPricing } from '../quote/fees.ts';
import type { UsdPrices } from '../quote/prices.ts';
import type { SolanaRoutingRequest } from '../quote/solanaSize.ts';
import type { StepFees } from '@ballast/protocol/protocol/quoteParts.ts';
import type { SandboxNonEvmChain, SandboxVmCurrency } from '../quote/vmChains.ts';
import type { FaultState } from './faultState.ts';
import type { RequestStore } from './requestStore.ts';

/** Chain reads needed to quote. */
export interface ChainIo {
  /** EIP-1559 fee data of a chain, wei. */
  feeData(chainId: number): Promise<StepFees>;
  /** Balance of `owner` in `currency` on a chain, base units. */
  balanceOf(chainId: number, currency: SandboxCurrency, owner: Address): Promise<bigint>;
}

/** Chain reads needed to quote routes that touch Solana or Bitcoin. Amounts in base units. */
export interface VmChainIo {
  /**
   * Balance of `owner` (base58 / bech32) in `currency` on a non-EVM chain. Bitcoin: the balance of docs/relay-contract.md
   * "POST /quote/v2" (unconfirmed incoming outputs do not count), or with `pendingIncoming` every unspent output (the
   * solver's liquidity, whose change from its last fill may still be unmined).
   */
  balanceOf(chainId: number, currency: SandboxVmCurrency, owner: string, opts?: { pendingIncoming?: boolean }): Promise<bigint>;
  /** Bitcoin: the confirmed outputs of `address` no transaction spends yet (mempool spends included). */
  bitcoinCoins(address: string): Promise<BitcoinCoin[]>;
  /** Bitcoin: the fee rate for the next blocks, sat/vB (at least 1). */
  bitcoinFeeRate(): Promise<bigint>;
}

/** What the sandbox knows about its non-EVM chains, when it serves any. */
export interface SandboxVmState {
  chains: readonly SandboxNonEvmChain[];
  io: VmChainIo;
  /** The solver's own wallet on each non-EVM chain (fills come from it): base58 (`svm`), bech32 (`bvm`). */
  solverWallets: Partial<Record<'svm' | 'bvm', string>>;
  /** Routing fields of every Solana-origin quote request, in arrival order (GET /_sandbox/solana-quotes). */
  solanaQuoteLog: SolanaRoutingRequest[];
}

/** Re-scans a transaction for depository deposits (POST /transactions/index). */
export interface TransactionIndexer {
  /**
   * @returns how many depository deposits the transaction holds, or null when the chain has no receipt for it
   */
  indexTransaction(chainId: number, txHash: Hex): Promise<number | null>;
  /**
   * Solana or Bitcoin: re-scans a transaction (a base58 signature, a hex txid) for deposits.
   *
   * @returns how many deposits it holds, or null when the chain does not have it (Bitcoin: not yet in a block)
   */
  indexVmTransaction?(chainId: number, txId: string): Promise<number | null>;
}

/** Shared state of a running sandbox. */
export interface SandboxState {
  chains: SandboxChainTable;
  prices: UsdPrices;
  pricing: SandboxPricing;
  /** Solver account: signs orders, appears in `solverAddresses`, fills and refunds. */
  solver: LocalAccount;
  /** When set, POST /quote/v2 requires this `x-api-key`. */
  apiKey: string | undefined;
  faults: FaultState;
  requests: RequestStore;
  io: ChainIo;
  /** The Solana and Bitcoin chains, when served (absent: EVM chains only). */
  vm?: SandboxVmState;
  /** Set once the solver runs; POST /transactions/index answers 503 without it. */
  indexer: TransactionIndexer | null;
  logger: Logger;
  /** Clock, unix milliseconds. */
  nowMs: () => number;
}
