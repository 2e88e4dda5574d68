/**
 * Chains as the rest of Ballast sees them after loading: a union discriminated by `vm`, with defaults applied,
 * base-unit amounts as `bigint` (lamports, micro-lamports, satoshis) and counts and rates as numbers.
 */
import type { BvmNetwork } from '../chains/bvm/wallet.ts';
import { DEFAULT_BVM_HIGH_VALUE_CONFIRMATIONS, type ChainConfig } from './chainSchema.ts';
import type { LoadedGasTopUp } from './gasTopUp.ts';

/** An EVM chain. */
export interface LoadedEvmChain {
  name: string;
  chainId: number;
  vm: 'evm';
  /** HTTP JSON-RPC endpoint (may embed a provider key: never log it). */
  rpcUrl: string;
  /** Blocks (the including one counted) after which a mined transaction is final on this chain. */
  confirmations: number;
  /** Native balance below which a signer wallet is flagged, whole units (decimal string). */
  minGasBalance?: string;
  /** Native balance the planner never moves out of a signer wallet, whole units (decimal string). */
  gasReserve?: string;
  /** Where a signer below `minGasBalance` is topped up from (src/config/gasTopUp.ts); set by the loader. */
  gasTopUp?: LoadedGasTopUp;
  /** Seconds the order deadline must be ahead to verify, sign or re-send the deposit; unset: the VM default (src/executor/deadlines.ts). */
  minDeadlineLeadSec?: number;
}

/** A Solana chain. */
export interface LoadedSvmChain {
  name: string;
  chainId: number;
  vm: 'svm';
  /** HTTP JSON-RPC endpoint (may embed a provider key: never log it). */
  rpcUrl: string;
  /** Websocket endpoint (configured, or derived from rpcUrl by {@link solanaWsUrlFromRpcUrl}). */
  wsUrl: string;
  /** Commitment at which a deposit counts as final. */
  commitment: 'confirmed' | 'finalized';
  /** Cap on the priority fee, in micro-lamports per compute unit. */
  maxMicroLamportsPerCu: bigint;
  /** Cap on a transaction's compute-unit limit. */
  maxComputeUnits: number;
  /**
   * Swap source tried alone, last, when a quote's Solana transaction is too large (docs/relay-contract.md "Errors"
   * SOLANA_TX_TOO_LARGE).
   */
  originSwapSource?: string;
  /** Native balance below which a signer wallet is flagged, whole units (decimal string). */
  minGasBalance?: string;
  /** Native balance the planner never moves out of a signer wallet, whole units (decimal string). */
  gasReserve?: string;
  /** Where a signer below `minGasBalance` is topped up from (src/config/gasTopUp.ts); set by the loader. */
  gasTopUp?: LoadedGasTopUp;
  /** Seconds the order deadline must be ahead to verify, sign or re-send the deposit; unset: the VM default (src/executor/deadlines.ts). */
  minDeadlineLeadSec?: number;
}

/** A Bitcoin chain. */
export interface LoadedBvmChain {
  name: string;
  chainId: number;
  vm: 'bvm';
  /** Esplora API base URL without a trailing slash (may embed a provider key: never log it). */
  esploraUrl: string;
  network: BvmNetwork;
  /** Blocks after which a deposit below `highValueSats` is final. */
  confirmations: number;
  /** Blocks after which a deposit of `highValueSats` or more is final (>= `confirmations`). */
  highValueConfirmations: number;
  /** Threshold of a high-value deposit, in satoshis. */
  highValueSats: bigint;
  /** Blocks a mined transaction is re-checked for reorgs; depth at which a conflicting spend proves a lost one dead. */
  reorgDepth: number;
  /** Satoshis kept out of planning to pay miner fees. */
  minerFeeReserveSats: bigint;
  /** Largest fee rate Ballast signs, in sat/vB. */
  maxFeeRateSatPerVb: number;
  /** Lowest fee rate of a deposit, in sat/vB (raised to the node's estimate for the order's deadline). */
  minFeeRateSatPerVb: number;
  /** Largest miner fee of a deposit, in satoshis. */
  maxMinerFeeSats: bigint;
  /** Largest miner fee of a deposit, in bps of the payment amount. */
  maxMinerFeeBps: number;
  /** Whether deposit inputs must signal BIP-125 replaceability. */
  requireReplaceable: boolean;
  /** Largest miner fee of a cancel (a replacement ending an unwanted deposit), in satoshis; default `maxMinerFeeSats`. */
  maxCancelFeeSats: bigint;
  /** Blocks a cancel may stay unmined before it is re-priced. */
  cancelRepriceAfterBlocks: number;
  /** Whether a deposit may spend our own unconfirmed change (of a transaction Ballast still tracks). */
  allowOwnUnconfirmedInputs: boolean;
  /** Seconds a cycle waits for a broadcast transaction to be mined before leaving it in flight. */
  inclusionWaitSec: number;
  /** Native balance below which a signer wallet is flagged, whole units (decimal string). */
  minGasBalance?: string;
  /** Native balance the planner never moves out of a signer wallet, whole units (decimal string). */
  gasReserve?: string;
  /** Where a signer below `minGasBalance` is topped up from (src/config/gasTopUp.ts); set by the loader. */
  gasTopUp?: LoadedGasTopUp;
  /** Seconds the order deadline must be ahead to verify, sign or re-send the deposit; unset: the VM default (src/executor/deadlines.ts). */
  minDeadlineLeadSec?: number;
}

/** A chain as configured, by VM family. */
export type LoadedChain = LoadedEvmChain | LoadedSvmChain | LoadedBvmChain;

/**
 * Websocket URL of a Solana RPC endpoint, derived the way web3.js `Connection` does when no `wsEndpoint` is
 * given: `http:` → `ws:`, `https:` → `wss:`, and an explicit port is incremented by one (a local validator
 * serves RPC on 8899 and websockets on 8900); without an explicit port none is added. Everything else (user
 * info, host, path, query) is kept as written.
 *
 * @param rpcUrl http(s) URL
 * @returns the ws(s) URL, e.g. `https://api.mainnet-beta.solana.com` → `wss://api.mainnet-beta.solana.com`,
 *   `http://127.0.0.1:8899` → `ws://127.0.0.1:8900`
 * @throws TypeError when `rpcUrl` is not an http(s) URL (the schema has checked it before this is called)
 */
export function solanaWsUrlFromRpcUrl(rpcUrl: string): string {
  const m = /^(https?):\/\/([^/?#]*)(.*)$/i.exec(rpcUrl);
  const authority = m?.[2] !== undefined ? /^(.*@)?(\[[^\]]*\]|[^:]*)(?::([0-9]+))?$/.exec(m[2]) : null;
  if (!m || !authority) throw new TypeError('rpcUrl is not an http(s) URL');
  const protocol = m[1]?.toLowerCase() === 'https' ? 'wss' : 'ws';
  const [, userinfo = '', host = '', port] = authority;
  const wsPort = port !== undefined ? `:${Number(port) + 1}` : '';
  return `${protocol}://${userinfo}${host}${wsPort}${m[3] ?? ''}`;
}

/**
 * Applies defaults and converts amounts for one parsed chain.
 *
 * @param name chain name (key under `chains:`)
 * @param c the chain as parsed by the schema (amount strings already matched `^[0-9]+$`)
 * @returns the loaded chain
 */
export function buildLoadedChain(name: string, c: ChainConfig): LoadedChain {
  switch (c.vm) {
    case 'evm':
      return { name, chainId: c.chainId, vm: 'evm', rpcUrl: c.rpcUrl, confirmations: c.confirmations, ...minGas(c) };
    case 'svm':
      return {
        name,
        chainId: c.chainId,
        vm: 'svm',
        rpcUrl: c.rpcUrl,
        wsUrl: c.wsUrl ?? solanaWsUrlFromRpcUrl(c.rpcUrl),
        commitment: c.commitment,
        maxMicroLamportsPerCu: BigInt(c.maxMicroLamportsPerCu),
        maxComputeUnits: c.maxComputeUnits,
        ...(c.originSwapSource !== undefined ? { originSwapSource: c.originSwapSource } : {}),
        ...minGas(c),
      };
    case 'bvm':
      return {
        name,
        chainId: c.chainId,
        vm: 'bvm',
        esploraUrl: c.esploraUrl.replace(/\/+$/, ''),
        network: c.network,
        confirmations: c.confirmations,
        highValueConfirmations: c.highValueConfirmations ?? Math.max(DEFAULT_BVM_HIGH_VALUE_CONFIRMATIONS, c.confirmations),
        highValueSats: BigInt(c.highValueSats),
        reorgDepth: c.reorgDepth,
        minerFeeReserveSats: BigInt(c.minerFeeReserveSats),
        maxFeeRateSatPerVb: c.maxFeeRateSatPerVb,
        minFeeRateSatPerVb: c.minFeeRateSatPerVb,
        maxMinerFeeSats: BigInt(c.maxMinerFeeSats),
        maxMinerFeeBps: c.maxMinerFeeBps,
        requireReplaceable: c.requireReplaceable,
        maxCancelFeeSats: BigInt(c.maxCancelFeeSats ?? c.maxMinerFeeSats),
        cancelRepriceAfterBlocks: c.cancelRepriceAfterBlocks,
        allowOwnUnconfirmedInputs: c.allowOwnUnconfirmedInputs,
        inclusionWaitSec: c.inclusionWaitSec,
        ...minGas(c),
      };
  }
}

/** The optional keys every VM family shares, copied when set. */
function minGas(c: ChainConfig): { minGasBalance?: string; gasReserve?: string; minDeadlineLeadSec?: number } {
  return {
    ...(c.minGasBalance !== undefined ? { minGasBalance: c.minGasBalance } : {}),
    ...(c.gasReserve !== undefined ? { gasReserve: c.gasReserve } : {}),
    ...(c.minDeadlineLeadSec !== undefined ? { minDeadlineLeadSec: c.minDeadlineLeadSec } : {}),
  };
}
