/**
 * Everything the sandbox API and solver share: the chain table, prices, the solver key, fault knobs, request
 * records and the chain reads quoting needs. Chain access goes through {@link ChainIo} so the HTTP layer can
 * be exercised in-process with fakes.
 */
import type { Logger } from 'pino';
import type { Address, Hex, LocalAccount } from 'viem';
import type { SandboxChainTable, SandboxCurrency } from '../quote/chainTable.ts';
import type { SandboxPricing } from '../quote/fees.ts';
import type { UsdPrices } from '../quote/prices.ts';
import type { FeeData } from '../quote/steps.ts';
import type { FaultState } from './faultState.ts';
import type { RequestStore } from './requestStore.ts';

/** Chain reads needed to quote. */
export interface ChainIo {
  /** EIP-1559 fee data of a chain, wei. */
  feeData(chainId: number): Promise<FeeData>;
  /** Balance of `owner` in `currency` on a chain, base units. */
  balanceOf(chainId: number, currency: SandboxCurrency, owner: Address): Promise<bigint>;
}

/** Re-scans a transaction for depository deposits (POST /transactions/index). */
export interface TransactionIndexer {
  /**
   * @returns how many depository deposits the transaction holds, or null when the chain has no receipt for it
   */
  indexTransaction(chainId: number, txHash: Hex): Promise<number | null>;
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
  /** Set once the solver runs; POST /transactions/index answers 503 without it. */
  indexer: TransactionIndexer | null;
  logger: Logger;
  /** Clock, unix milliseconds. */
  nowMs: () => number;
}
