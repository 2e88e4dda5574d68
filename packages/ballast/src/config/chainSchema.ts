/**
 * zod schema of one chain (`chains.<name>`), one strict object per VM family, discriminated by `vm` (default
 * `evm`): a field of another family (e.g. `esploraUrl` on an EVM chain) is an unknown key, reported with the
 * family it belongs to (see `zodIssues.ts`).
 *
 * - evm: JSON-RPC over HTTP, finality by block depth.
 * - svm: Solana JSON-RPC over HTTP plus a websocket for signature subscriptions, finality by commitment level,
 *   and caps on the priority fee a transaction may bid.
 * - bvm: an Esplora HTTP API (no JSON-RPC), finality by confirmations (more for large deposits), a miner fee
 *   reserve, a fee-rate cap and floor, miner-fee caps (satoshis and bps) and BIP-125 replaceability.
 *
 * Lamport, satoshi and micro-lamport amounts are written as quoted decimal integer strings and become `bigint`
 * when the configuration is loaded; counts and rates are numbers.
 */
import { z } from 'zod';
import { BVM_NETWORKS } from '../chains/bvm/wallet.ts';
import { WHOLE_AMOUNT_RE } from './patterns.ts';
import { GasTopUpSchema } from './gasTopUp.ts';

/**
 * Default depth (blocks, the including block counted) at which a mined origin transaction is final on an EVM
 * chain. Deep enough for the reorgs L2 sequencers and PoS chains show in practice; set it per chain.
 */
export const DEFAULT_CONFIRMATIONS = 12;
/** Relay chain id of Solana (docs/relay-contract.md "POST /quote/v2"). */
export const SOLANA_CHAIN_ID = 792703809;
/** Relay chain id of Bitcoin (docs/relay-contract.md "POST /quote/v2"). */
export const BITCOIN_CHAIN_ID = 8253038;
/** VM families Ballast can read and sign on. */
export const SUPPORTED_VMS = ['evm', 'svm', 'bvm'] as const;
/** Solana commitment levels accepted as "final" for a deposit. */
export const SVM_COMMITMENTS = ['confirmed', 'finalized'] as const;
/** Largest compute-unit limit of one Solana transaction. */
export const SVM_MAX_COMPUTE_UNITS = 1_400_000;
/** Default cap on the priority fee, in micro-lamports per compute unit. */
export const DEFAULT_MAX_MICRO_LAMPORTS_PER_CU = '1000000';
/** Default Bitcoin depth for ordinary and for high-value deposits, and the high-value threshold (1 BTC). */
export const DEFAULT_BVM_CONFIRMATIONS = 1;
export const DEFAULT_BVM_HIGH_VALUE_CONFIRMATIONS = 2;
export const DEFAULT_BVM_HIGH_VALUE_SATS = '100000000';
/** Default depth, in blocks, of Bitcoin reorg re-checks and of a conflicting spend that proves a transaction dead. */
export const DEFAULT_BVM_REORG_DEPTH = 6;
/** Default satoshis kept back from planning to pay miner fees. */
export const DEFAULT_BVM_MINER_FEE_RESERVE_SATS = '20000';
/** Default cap on the fee rate of a Bitcoin transaction Ballast signs, in sat/vB. */
export const DEFAULT_BVM_MAX_FEE_RATE_SAT_PER_VB = 200;
/** Default floor under the fee rate of a Bitcoin deposit, sat/vB (Bitcoin Core's default minimum relay fee). */
export const DEFAULT_BVM_MIN_FEE_RATE_SAT_PER_VB = 1;
/** Default cap on the miner fee of one Bitcoin deposit, satoshis. */
export const DEFAULT_BVM_MAX_MINER_FEE_SATS = '100000';
/** Default cap on the miner fee of one Bitcoin deposit, bps of the payment amount. */
export const DEFAULT_BVM_MAX_MINER_FEE_BPS = 500;

/** Decimal integer string of base units (`^[0-9]+$`). */
export const BASE_UNITS_RE = /^[0-9]+$/;

const chainId = z
  .number({ error: 'expected the numeric chain id, e.g. 8453' })
  .int('chainId must be an integer')
  .positive('chainId must be positive');

const httpUrl = (what: string) => z.url({ protocol: /^https?$/, error: `expected an http(s) URL (${what})` });

const baseUnits = (what: string, example: string) =>
  z
    .string({ error: `write ${what} as a quoted decimal integer string, e.g. "${example}"` })
    .regex(BASE_UNITS_RE, `${what} must be a non-negative decimal integer string, e.g. "${example}"`);

const blocks = (what: string, example: number) =>
  z
    .number({ error: `expected a whole number of blocks, e.g. ${example}` })
    .int(`${what} must be a whole number of blocks`)
    .min(1, `${what} must be at least 1 (the block that includes the transaction)`)
    .max(10_000, `${what} must be at most 10000 blocks`);

/** An optional amount of the chain's native token in whole units, written as a quoted decimal string. */
const nativeAmount = (key: string, description: string) =>
  z
    .string({ error: `write ${key} as a quoted decimal string in whole native units, e.g. "0.05"` })
    .regex(WHOLE_AMOUNT_RE, `${key} must be a non-negative decimal in whole native units, e.g. "0.05"`)
    .optional()
    .describe(description);

/** `chains.<name>.minGasBalance`: whole units of the chain's native token (metric and warning only). */
const minGasBalance = nativeAmount(
  'minGasBalance',
  'warn (log line, ballast_gas_balance_low = 1) when a signer wallet used on this chain holds less native token than this, in whole units (ETH, SOL, BTC); unset: no minimum',
);

/** `chains.<name>.gasReserve`: whole units of the native token the planner never moves out of a signer wallet. */
const gasReserve = nativeAmount(
  'gasReserve',
  'native token (ETH, SOL, BTC) a wallet keeps on this chain whatever its band says: a native holding under assets: never gives below it, so the wallet can always pay for its next transactions; default minGasBalance, else 0',
);

/**
 * `chains.<name>.minDeadlineLeadSec`: seconds an order's deadline must be ahead when the deposit is verified,
 * signed or sent again (src/executor/deadlines.ts); unset: the VM default.
 */
const minDeadlineLeadSec = z
  .number({ error: 'expected a whole number of seconds, e.g. 1200' })
  .int('minDeadlineLeadSec must be a whole number of seconds')
  .min(1, 'minDeadlineLeadSec must be at least 1 s')
  .max(86_400, 'minDeadlineLeadSec must be at most 86400 s (policy.maxDeadlineSec caps deadlines at 24 h by default)')
  .optional()
  .describe(
    'seconds the order deadline must still be ahead to verify, sign or re-send the deposit: time for it to be mined, reach the depth the fill waits for and be filled (30 s more per transaction before it); default 90 on EVM and Solana, 600 × the confirmations the deposit needs + 600 on Bitcoin',
  );

/** `chains.<name>.gasTopUp`: how a signer below `minGasBalance` on this chain is topped up (src/config/gasTopUp.ts). */
const gasTopUp = GasTopUpSchema.optional();

/** An EVM chain. */
export const EvmChainSchema = z
  .strictObject({
    chainId: chainId.describe('Relay chain id, the EIP-155 chain id (8453 for Base); the RPC must serve the same'),
    vm: z.literal('evm').default('evm').describe('VM family (GET /chains vmType); default evm'),
    rpcUrl: httpUrl('Ballast reads chains over HTTP JSON-RPC').describe('JSON-RPC endpoint; use ${ENV_VAR} when it embeds a provider key'),
    confirmations: blocks('confirmations', 12)
      .default(DEFAULT_CONFIRMATIONS)
      .describe(
        'blocks after which a mined origin transaction counts as final; until then it is re-checked every cycle and a deposit a reorg removed is sent again',
      ),
    minDeadlineLeadSec,
    minGasBalance,
    gasReserve,
    gasTopUp,
  })
  .describe('an EVM chain');

/** A Solana chain. */
export const SvmChainSchema = z
  .strictObject({
    chainId: chainId.describe(`Relay chain id; ${SOLANA_CHAIN_ID} for Solana`),
    vm: z.literal('svm').describe('Solana VM'),
    rpcUrl: httpUrl('Solana JSON-RPC over HTTP, e.g. https://api.mainnet-beta.solana.com').describe(
      'Solana JSON-RPC endpoint; use ${ENV_VAR} when it embeds a provider key',
    ),
    wsUrl: z
      .url({ protocol: /^wss?$/, error: 'expected a ws(s) URL, e.g. wss://api.mainnet-beta.solana.com' })
      .optional()
      .describe('websocket endpoint; default: rpcUrl with http→ws, https→wss and an explicit port + 1 (as web3.js does)'),
    commitment: z
      .enum(SVM_COMMITMENTS, { error: 'expected confirmed or finalized' })
      .default('finalized')
      .describe(
        'commitment at which a deposit counts as final: finalized (rooted, cannot roll back) or confirmed (voted on by a supermajority, faster)',
      ),
    maxMicroLamportsPerCu: baseUnits('maxMicroLamportsPerCu', DEFAULT_MAX_MICRO_LAMPORTS_PER_CU)
      .default(DEFAULT_MAX_MICRO_LAMPORTS_PER_CU)
      .describe('largest priority fee Ballast bids, in micro-lamports per compute unit (decimal integer string)'),
    maxComputeUnits: z
      .number({ error: `expected a whole number of compute units, e.g. ${SVM_MAX_COMPUTE_UNITS}` })
      .int('maxComputeUnits must be a whole number')
      .min(1, 'maxComputeUnits must be at least 1')
      .max(SVM_MAX_COMPUTE_UNITS, `maxComputeUnits must be at most ${SVM_MAX_COMPUTE_UNITS} (the per-transaction limit)`)
      .default(SVM_MAX_COMPUTE_UNITS)
      .describe('largest compute-unit limit of a transaction Ballast signs'),
    originSwapSource: z
      .string({ error: 'expected the name of one Solana swap source' })
      .min(1)
      .optional()
      .describe(
        'swap source asked for last (includedOriginSwapSources) when a Solana deposit transaction is too large even with maxRouteLength 3; unset: give up after maxRouteLength 3',
      ),
    minDeadlineLeadSec,
    minGasBalance,
    gasReserve,
    gasTopUp,
  })
  .describe('a Solana chain');

/** A Bitcoin chain. */
export const BvmChainSchema = z
  .strictObject({
    chainId: chainId.describe(`Relay chain id; ${BITCOIN_CHAIN_ID} for Bitcoin`),
    vm: z.literal('bvm').describe('Bitcoin VM'),
    esploraUrl: httpUrl('base URL of an Esplora API, e.g. https://blockstream.info/api').describe(
      'Esplora HTTP API base URL (e.g. https://blockstream.info/api); Bitcoin chains have no rpcUrl',
    ),
    network: z
      .enum(BVM_NETWORKS, { error: `expected one of ${BVM_NETWORKS.join(', ')}` })
      .default('mainnet')
      .describe('Bitcoin network; must match the wallets used on this chain'),
    confirmations: blocks('confirmations', 1).default(DEFAULT_BVM_CONFIRMATIONS).describe('blocks after which a deposit counts as final'),
    highValueConfirmations: blocks('highValueConfirmations', 2)
      .optional()
      .describe(
        `blocks after which a deposit of highValueSats or more counts as final; at least confirmations; default the larger of ${DEFAULT_BVM_HIGH_VALUE_CONFIRMATIONS} and confirmations`,
      ),
    highValueSats: baseUnits('highValueSats', DEFAULT_BVM_HIGH_VALUE_SATS)
      .default(DEFAULT_BVM_HIGH_VALUE_SATS)
      .describe('deposits of at least this many satoshis wait for highValueConfirmations (decimal integer string)'),
    reorgDepth: blocks('reorgDepth', DEFAULT_BVM_REORG_DEPTH)
      .default(DEFAULT_BVM_REORG_DEPTH)
      .describe(
        'blocks a mined origin transaction is re-checked for reorgs (whatever confirmations the fill waits for), and the depth a conflicting spend must reach before it proves a lost transaction dead',
      ),
    minerFeeReserveSats: baseUnits('minerFeeReserveSats', DEFAULT_BVM_MINER_FEE_RESERVE_SATS)
      .default(DEFAULT_BVM_MINER_FEE_RESERVE_SATS)
      .describe('satoshis kept out of planning to pay miner fees (decimal integer string)'),
    maxFeeRateSatPerVb: z
      .number({ error: 'expected a fee rate in sat/vB, e.g. 200' })
      .positive('maxFeeRateSatPerVb must be above 0')
      .max(100_000, 'maxFeeRateSatPerVb must be at most 100000 sat/vB')
      .default(DEFAULT_BVM_MAX_FEE_RATE_SAT_PER_VB)
      .describe('refuse to sign a Bitcoin transaction paying more than this fee rate, in sat/vB'),
    minFeeRateSatPerVb: z
      .number({ error: 'expected a fee rate in sat/vB, e.g. 1' })
      .min(0, 'minFeeRateSatPerVb must be at least 0')
      .max(10_000, 'minFeeRateSatPerVb must be at most 10000 sat/vB')
      .default(DEFAULT_BVM_MIN_FEE_RATE_SAT_PER_VB)
      .describe(
        "refuse a deposit paying less than this fee rate, in sat/vB; raised to the Esplora node's estimate (GET /fee-estimates) for the blocks the order's deadline leaves, when that can be read",
      ),
    maxMinerFeeSats: baseUnits('maxMinerFeeSats', DEFAULT_BVM_MAX_MINER_FEE_SATS)
      .default(DEFAULT_BVM_MAX_MINER_FEE_SATS)
      .describe('refuse a deposit whose miner fee (inputs − outputs) is above this many satoshis (decimal integer string)'),
    maxCancelFeeSats: baseUnits('maxCancelFeeSats', DEFAULT_BVM_MAX_MINER_FEE_SATS)
      .optional()
      .describe(
        'largest miner fee of a transaction ending an unwanted deposit (a cancel spending its inputs back to the wallet), re-priced up to this many satoshis; default maxMinerFeeSats (decimal integer string)',
      ),
    cancelRepriceAfterBlocks: z
      .number({ error: 'expected a whole number of blocks, e.g. 2' })
      .int('cancelRepriceAfterBlocks must be a whole number of blocks')
      .min(1, 'cancelRepriceAfterBlocks must be at least 1 block')
      .max(1_000, 'cancelRepriceAfterBlocks must be at most 1000 blocks')
      .default(2)
      .describe('blocks a cancel may stay unmined before it is replaced by one paying the current market rate (up to maxCancelFeeSats)'),
    allowOwnUnconfirmedInputs: z
      .boolean({ error: 'expected true or false' })
      .default(false)
      .describe(
        "let a deposit spend our own unconfirmed change (of a deposit or cancel Ballast still tracks); off: deposits spend confirmed outputs only, so no deposit hangs on another one's fate",
      ),
    maxMinerFeeBps: z
      .number({ error: 'expected a whole number of basis points, e.g. 500' })
      .int('maxMinerFeeBps must be a whole number of basis points')
      .min(0, 'maxMinerFeeBps must be at least 0')
      .max(10_000, 'maxMinerFeeBps must be at most 10000 (100 %)')
      .default(DEFAULT_BVM_MAX_MINER_FEE_BPS)
      .describe('refuse a deposit whose miner fee is above this share of the payment amount, in basis points (500 = 5 %)'),
    requireReplaceable: z
      .boolean({ error: 'expected true or false' })
      .default(true)
      .describe(
        'require every deposit input to signal BIP-125 replaceability (nSequence at most 0xfffffffd), so an unwanted deposit can be replaced; turn off only if your nodes and their peers run full-RBF',
      ),
    inclusionWaitSec: z
      .number({ error: 'expected a whole number of seconds, e.g. 60' })
      .int('inclusionWaitSec must be a whole number of seconds')
      .min(1, 'inclusionWaitSec must be at least 1')
      .max(3600, 'inclusionWaitSec must be at most 3600')
      .default(60)
      .describe(
        'how long a cycle waits for a broadcast deposit to be mined before leaving it in flight for the next cycles (blocks take about 10 minutes)',
      ),
    minDeadlineLeadSec,
    minGasBalance,
    gasReserve,
    gasTopUp,
  })
  .describe('a Bitcoin chain');

/** One chain, by VM family. An unsupported `vm` (tvm, tonvm, …) is an error naming the supported ones. */
export const ChainSchema = z
  .discriminatedUnion('vm', [EvmChainSchema, SvmChainSchema, BvmChainSchema], {
    error: (iss) => unsupportedVmMessage(iss.input, 'chains'),
  })
  .describe('a chain Ballast reads and sends on');

/**
 * Message for a `vm` value no variant accepts.
 *
 * @param input the object whose `vm` matched no variant
 * @param what `chains` or `wallets`
 * @returns the message (names the supported families)
 */
export function unsupportedVmMessage(input: unknown, what: 'chains' | 'wallets'): string {
  const vm = input !== null && typeof input === 'object' ? (input as { vm?: unknown }).vm : undefined; // reading one key of a plain object
  const supported = SUPPORTED_VMS.join(', ');
  return typeof vm === 'string' ? `vm "${vm}" is not supported for ${what}; Ballast supports ${supported}` : `expected one of ${supported}`;
}

/** One chain as written in the file. */
export type ChainConfig = z.output<typeof ChainSchema>;
/** An EVM chain as written in the file. */
export type EvmChainConfig = z.output<typeof EvmChainSchema>;
/** A Solana chain as written in the file. */
export type SvmChainConfig = z.output<typeof SvmChainSchema>;
/** A Bitcoin chain as written in the file. */
export type BvmChainConfig = z.output<typeof BvmChainSchema>;
