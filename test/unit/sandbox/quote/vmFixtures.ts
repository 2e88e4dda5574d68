/**
 * Shared inputs for the sandbox's Solana and Bitcoin quote tests: the two-chain EVM table of `fixtures.ts` plus a
 * Solana chain (the mainnet depository program id, a fixed USDC mint) and a regtest Bitcoin chain (a fixed
 * depository key), fixed user wallets, and a builder over `buildVmQuote` with fixed chain reads.
 */
import { Keypair } from '@solana/web3.js';
import { networks, payments } from 'bitcoinjs-lib';
import { ECPairFactory } from 'ecpair';
import * as ecc from 'tiny-secp256k1';
import { RELAY_DEPOSITORY_PROGRAM_ID } from '../../../../packages/protocol/src/protocol/svmDepository.ts';
import { ChainsResponseSchema } from '../../../../packages/protocol/src/relay/schemas.ts';
import { buildChainsDocument } from '../../../../packages/sandbox/src/api/chainsDocument.ts';
import { DEFAULT_SANDBOX_FAULTS, type SandboxFaults } from '../../../../packages/sandbox/src/faults.ts';
import type { BitcoinCoin } from '../../../../packages/sandbox/src/quote/bvmSteps.ts';
import { parsePrices } from '../../../../packages/sandbox/src/quote/prices.ts';
import { resolveQuoteRoute, type SandboxQuoteRequest } from '../../../../packages/sandbox/src/quote/request.ts';
import { sandboxBitcoinChain, sandboxSolanaChain, type SandboxNonEvmChain } from '../../../../packages/sandbox/src/quote/vmChains.ts';
import { buildVmQuote, type BuiltVmQuote } from '../../../../packages/sandbox/src/quote/vmQuote.ts';
import { counterRandom, GWEI, NOW_SEC, RECIPIENT, SOLVER, TABLE, USDC, ZERO } from './fixtures.ts';

const ECPair = ECPairFactory(ecc);
const solanaKey = (seed: number) => Keypair.fromSeed(new Uint8Array(32).fill(seed)).publicKey.toBase58();
const regtestP2wpkh = (byte: number) =>
  payments.p2wpkh({ pubkey: ECPair.fromPrivateKey(new Uint8Array(32).fill(byte)).publicKey, network: networks.regtest }).address!; // p2wpkh of a key has an address

export const SOLANA_ID = 792703809;
export const BITCOIN_ID = 8253038;
export const SOL = '11111111111111111111111111111111';
export const BTC = 'bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8';
export const SVM_USDC = solanaKey(11);
export const SVM_USER = solanaKey(12);
export const BTC_DEPOSITORY = regtestP2wpkh(0x42);
export const BTC_USER = regtestP2wpkh(0x07);
export const BTC_RECIPIENT = regtestP2wpkh(0x08);

export const VM_CHAINS: SandboxNonEvmChain[] = [
  sandboxSolanaChain({
    rpcUrl: 'http://127.0.0.1:3',
    wsUrl: 'ws://127.0.0.1:4',
    depositoryProgramId: RELAY_DEPOSITORY_PROGRAM_ID,
    usdcMint: SVM_USDC,
  }),
  sandboxBitcoinChain('http://127.0.0.1:5', BTC_DEPOSITORY),
];
export const VM_PRICES = parsePrices({ ETH: '3000', USDC: '1', USDT: '1', SOL: '150', BTC: '60000', WBTC: '60000' });
/** GET /chains over the EVM table and both non-EVM chains, parsed. */
export const VM_CHAINS_DOC = ChainsResponseSchema.parse(JSON.parse(JSON.stringify(buildChainsDocument(TABLE, SOLVER.address, VM_CHAINS))));

/** The Bitcoin user's coins: 0.006 and 0.005 BTC, confirmed. */
export const USER_COINS: BitcoinCoin[] = [
  { txid: 'a1'.repeat(32), vout: 0, value: 600_000n },
  { txid: 'b2'.repeat(32), vout: 1, value: 500_000n },
];

/** Builds a quote of a request touching Solana or Bitcoin with fixed reads: 1 gwei, 2 sat/vB, ample balances. */
export async function buildVm(
  request: SandboxQuoteRequest,
  over: { coins?: BitcoinCoin[]; faults?: Partial<SandboxFaults> } = {},
): Promise<BuiltVmQuote> {
  const route = resolveQuoteRoute(request, TABLE, 50, VM_CHAINS);
  const fee = { maxFeePerGas: GWEI, maxPriorityFeePerGas: GWEI / 10n };
  return buildVmQuote({
    route,
    chains: TABLE,
    vmChains: VM_CHAINS,
    prices: VM_PRICES,
    solver: SOLVER,
    nowSec: NOW_SEC,
    faults: { ...DEFAULT_SANDBOX_FAULTS, ...over.faults },
    ...('vmType' in route.origin ? {} : { originFeeData: fee }),
    destinationFill: 'vmType' in route.destination ? { costNative: 5_000n } : { gasPriceWei: GWEI },
    balances: { userIn: 10n ** 12n, solverOut: 10n ** 24n },
    bitcoinOrigin: { coins: over.coins ?? USER_COINS, feeRateSatPerVb: 2n },
    random: counterRandom,
  });
}

/** A quote request from Solana (2 SOL, lamports) to native ETH on the second EVM chain, protocol data included. */
export const solanaToEvm = {
  user: SVM_USER,
  recipient: RECIPIENT,
  originChainId: SOLANA_ID,
  destinationChainId: 31002,
  originCurrency: SOL,
  destinationCurrency: ZERO,
  amount: '2000000000',
  tradeType: 'EXACT_INPUT' as const,
  includeProtocolData: true,
};

/** A quote request from Bitcoin (800,000 satoshis) to USDC on the first EVM chain, protocol data included. */
export const bitcoinToEvm = {
  user: BTC_USER,
  recipient: RECIPIENT,
  originChainId: BITCOIN_ID,
  destinationChainId: 31001,
  originCurrency: BTC,
  destinationCurrency: USDC,
  amount: '800000',
  tradeType: 'EXACT_INPUT' as const,
  includeProtocolData: true,
};
