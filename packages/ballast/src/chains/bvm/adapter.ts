/**
 * The Bitcoin {@link ChainAdapter} (API `vmType` `bvm`): an Esplora HTTP API and the wallets' keys (P2WPKH / P2TR on the host, P2WPKH in a key service) behind
 * the chain-adapter seam. Balances follow the Bitcoin rule of docs/relay-contract.md "POST /quote/v2" minus a miner-fee
 * reserve, read at one tip after checking the server's network by its genesis block; verification reads our outputs,
 * the tip, the node's fee estimate and what our in-flight deposits spend (originFacts.ts); deposits are PSBTs signed
 * locally (every input, SIGHASH_ALL, within the fee caps, replaceable and final) and posted to `/tx`; a lost
 * transaction is proven unable to land when another mined transaction spends one of its inputs; reorgs are seen
 * by block hash; deposits are found by the order-id OP_RETURN memo among the depository address's transactions.
 */
import { Transaction } from 'bitcoinjs-lib';
import { z } from 'zod';
import type { ChainAdapter, DepositSearch, Inclusion, PlannedItem, Recheck, RecordedTx, SignedOriginTx, TxLookup } from '../adapter.ts';
import type { ChainCapabilities } from '../capabilities.ts';
import { DEFAULT_DEPOSIT_LIMITS } from '../../verify/deposit/types.ts';
import { createEsploraClient, type EsploraClient } from './esploraClient.ts';
import { AddressStatsSchema, esploraTxFee, HeightTextSchema, TxSchema } from './esploraSchemas.ts';
import { readUnconfirmedAncestors } from './ancestors.ts';
import { createBvmCanceller } from './canceller.ts';
import { BvmAdapterError, BvmEsploraError } from './errors.ts';
import { BITCOIN_BLOCK_INTERVAL_SEC } from './feeMarket.ts';
import { findBvmDeposit } from './findDeposit.ts';
import { readBvmBalances, specBalanceSats } from './readBalances.ts';
import { readBvmOriginFacts } from './originFacts.ts';
import { needsTipHeight, signBvmPsbt, type BvmSignLimits } from './signPsbt.ts';
import { bvmTxRecord, outpointsOf } from './txRecord.ts';
import {
  DEFAULT_BVM_REORG_DEPTH,
  lookupBvmTx,
  readTxStatus,
  recheckBvmTx,
  requiredConfirmations,
  waitForBvmInclusion,
  type BvmFinalityPolicy,
} from './txState.ts';
import { validateBvmAddress } from './validateAddress.ts';
import { chainLeadSec, defaultLastItemLeadSec } from '../../executor/deadlines.ts';
import type { BvmNetwork, BvmWalletKey } from './wallet.ts';

/** Native BTC's currency id (docs/relay-contract.md "Currency"). */
export const BTC_CURRENCY = 'bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8';
/** Default time between transaction status reads while waiting for a block, ms. */
export const DEFAULT_BVM_POLL_INTERVAL_MS = 5_000;

/** The roles a Bitcoin adapter always plays beyond the seam: balance and fee reads, a stall policy in blocks, cancels. */
export type BvmCapabilities = Required<Pick<ChainCapabilities, 'nativeBalanceReader' | 'gasMeter' | 'stallPolicy' | 'depositCanceller'>>;

/** The Bitcoin adapter: the seam plus its confirmations policy and the roles Bitcoin plays. */
export interface BvmChainAdapter extends ChainAdapter {
  readonly vm: 'bvm';
  readonly network: BvmNetwork;
  /** Blocks (the including one counted) after which a transaction below / at or above `highValueSats` is final. */
  readonly finality: BvmFinalityPolicy;
  readonly capabilities: BvmCapabilities;
}

/** Options of {@link createBvmAdapter}, as `chains.<name>` and the wallets supply them. */
export interface BvmAdapterOptions {
  /** Config name (`chains.<name>`). */
  name: string;
  /** Relay chain id (8253038 for Bitcoin). */
  chainId: number;
  /** Esplora API base URL (may embed a provider key; it never appears in messages). */
  esploraUrl: string;
  network: BvmNetwork;
  /** Blocks after which a transfer below `highValueSats` is final (default 1). */
  confirmations?: number;
  /** Blocks after which a transfer of `highValueSats` or more is final (default 2). */
  highValueConfirmations?: number;
  /** Threshold of a high-value transfer, satoshis. */
  highValueSats: bigint;
  /**
   * Blocks a mined transaction is re-checked for reorgs, and the depth at which a conflicting spend proves a
   * lost transaction dead (default {@link DEFAULT_BVM_REORG_DEPTH}).
   */
  reorgDepth?: number;
  /** Satoshis kept out of the planned balance to pay miner fees. */
  minerFeeReserveSats: bigint;
  /** Highest fee rate signed, sat/vB. */
  maxFeeRateSatPerVb: number;
  /** Lowest fee rate verified, sat/vB (raised to the node's estimate for the order's deadline; default 1). */
  minFeeRateSatPerVb?: number;
  /** Highest miner fee verified and signed, satoshis (default 100,000). */
  maxMinerFeeSats?: bigint;
  /** Highest miner fee verified and signed, bps of the payment (default 500). */
  maxMinerFeeBps?: number;
  /** Whether deposits must signal BIP-125 replaceability (default true). */
  requireReplaceable?: boolean;
  /** Highest miner fee of a cancel, satoshis (default `maxMinerFeeSats`). */
  maxCancelFeeSats?: bigint;
  /** Blocks a cancel may stay unmined before it is re-priced (default 2). */
  cancelRepriceAfterBlocks?: number;
  /** Whether a deposit may spend our own unconfirmed change of a transaction still in flight (default false). */
  allowOwnUnconfirmedInputs?: boolean;
  /** Seconds per block, for the blocks an order's deadline leaves (default 600; a test chain may be faster). */
  blockIntervalSec?: number;
  /** Clock, ms (default Date.now). */
  nowMs?: () => number;
  /** Signing keys by wallet name (Bitcoin wallets only). */
  signers: ReadonlyMap<string, BvmWalletKey>;
  /** The fetch to use (default the global fetch). */
  fetch?: typeof globalThis.fetch;
  /** Time one Esplora request may take, ms. */
  timeoutMs?: number;
  /**
   * Longest `waitForInclusion` waits, ms, whatever the caller allows (default 60 000): a block takes about ten
   * minutes, and a cycle should not stand still for it; the transfer stays in flight and reconciliation finds the
   * transaction mined in a later cycle.
   */
  maxInclusionWaitMs?: number;
  /** Time between status reads in `waitForInclusion`, ms (default {@link DEFAULT_BVM_POLL_INTERVAL_MS}). */
  pollIntervalMs?: number;
  /**
   * `chains.<name>.minDeadlineLeadSec`: lead of the deposit, seconds (default 600 × the confirmations the amount
   * needs + 600; see `ChainAdapter.minDeadlineLeadSec`).
   */
  minDeadlineLeadSec?: number;
}

/** `data` of a Bitcoin deposit item: the PSBT to sign, hex. */
const PsbtItemSchema = z.looseObject({ psbt: z.string().min(1) });

/**
 * Creates the adapter of one Bitcoin chain.
 *
 * Balances handed to the planner are *spendable* satoshis: the balance of docs/relay-contract.md "POST /quote/v2" (confirmed
 * funded − confirmed spent − mempool spent) minus `minerFeeReserveSats`, floored at 0.
 *
 * @throws TypeError when `esploraUrl` is not a URL
 * @example
 * const btc = createBvmAdapter({ name: 'bitcoin', chainId: 8253038, esploraUrl: 'https://blockstream.info/api', network: 'mainnet',
 *   highValueSats: 100_000_000n, minerFeeReserveSats: 20_000n, maxFeeRateSatPerVb: 200, signers });
 */
export function createBvmAdapter(opts: BvmAdapterOptions): BvmChainAdapter {
  const { name, chainId, network, signers } = opts;
  const esplora: EsploraClient = createEsploraClient({
    name,
    esploraUrl: opts.esploraUrl,
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
  });
  const finality: BvmFinalityPolicy = {
    confirmations: opts.confirmations ?? 1,
    highValueConfirmations: opts.highValueConfirmations ?? 2,
    highValueSats: opts.highValueSats,
    reorgDepth: opts.reorgDepth ?? DEFAULT_BVM_REORG_DEPTH,
  };
  const pollIntervalMs = opts.pollIntervalMs ?? DEFAULT_BVM_POLL_INTERVAL_MS;
  const validateAddress = (address: string): string | null => validateBvmAddress(address, network);

  const keyOf = (wallet: string): BvmWalletKey => {
    const key = signers.get(wallet);
    if (!key) throw new BvmAdapterError(`wallet ${wallet} is not a Bitcoin wallet; it cannot sign on chain ${name}`);
    if (key.network !== network) {
      throw new BvmAdapterError(
        `wallet ${wallet} is a ${key.network} key but chains.${name}.network is ${network}; it cannot sign on chain ${name}`,
      );
    }
    return key;
  };

  const head = (): Promise<bigint> => esplora.getText('/blocks/tip/height', HeightTextSchema);
  const limits = {
    maxFeeRateSatPerVb: opts.maxFeeRateSatPerVb,
    minFeeRateSatPerVb: opts.minFeeRateSatPerVb ?? DEFAULT_DEPOSIT_LIMITS.bvmMinFeeRateSatPerVb,
    maxMinerFeeSats: opts.maxMinerFeeSats ?? DEFAULT_DEPOSIT_LIMITS.bvmMaxMinerFeeSats,
    maxMinerFeeBps: opts.maxMinerFeeBps ?? DEFAULT_DEPOSIT_LIMITS.bvmMaxMinerFeeBps,
    requireReplaceable: opts.requireReplaceable ?? DEFAULT_DEPOSIT_LIMITS.bvmRequireReplaceable,
  };

  /** POST /tx; the node must answer with the transaction's own txid. @throws BvmEsploraError otherwise */
  async function broadcast(rawTx: string): Promise<void> {
    const expected = Transaction.fromHex(rawTx).getId();
    const answer = (await esplora.postText('/tx', rawTx)).trim().toLowerCase();
    if (answer !== expected) {
      throw new BvmEsploraError(`${esplora.at} answered POST /tx with ${answer.slice(0, 80) || 'nothing'}, not the txid ${expected}`, {
        status: 200,
        path: '/tx',
      });
    }
  }

  const allowOwnUnconfirmedInputs = opts.allowOwnUnconfirmedInputs ?? DEFAULT_DEPOSIT_LIMITS.bvmAllowOwnUnconfirmedInputs;
  const nowMs = opts.nowMs ?? Date.now;
  const depositCanceller = createBvmCanceller({
    name,
    chainId,
    network,
    esplora,
    broadcast,
    signers,
    maxFeeRateSatPerVb: limits.maxFeeRateSatPerVb,
    maxCancelFeeSats: opts.maxCancelFeeSats ?? limits.maxMinerFeeSats,
    cancelRepriceAfterBlocks: opts.cancelRepriceAfterBlocks ?? 2,
  });

  return {
    name,
    chainId,
    vm: 'bvm',
    network,
    finality,
    nativeCurrency: BTC_CURRENCY,
    nativeDecimals: 8,
    minDeadlineLeadSec: (amountIn, itemsLeft) =>
      chainLeadSec(opts.minDeadlineLeadSec ?? defaultLastItemLeadSec('bvm', requiredConfirmations(finality, amountIn)), itemsLeft),
    currencyKey: (currency) => currency,
    validateAddress,
    readBalances: (holdings) =>
      readBvmBalances(
        esplora,
        { name, network, nativeCurrency: BTC_CURRENCY, minerFeeReserveSats: opts.minerFeeReserveSats, validateAddress },
        holdings,
      ),
    async readDecimals(currencies) {
      return currencies.map(() => null); // Bitcoin has no tokens whose decimals could be read
    },
    originFacts: (quote, user, inFlight = []) =>
      readBvmOriginFacts(
        esplora,
        {
          name,
          network,
          allowOwnUnconfirmedInputs,
          blockIntervalSec: opts.blockIntervalSec ?? BITCOIN_BLOCK_INTERVAL_SEC,
          nowSec: Math.floor(nowMs() / 1000),
        },
        user,
        inFlight,
        quote.protocol?.v2?.orderData.output.deadline ?? null,
      ),
    depositLimits: {
      bvmMaxFeeRateSatPerVb: limits.maxFeeRateSatPerVb,
      bvmMinFeeRateSatPerVb: limits.minFeeRateSatPerVb,
      bvmMaxMinerFeeSats: limits.maxMinerFeeSats,
      bvmMaxMinerFeeBps: limits.maxMinerFeeBps,
      bvmRequireReplaceable: limits.requireReplaceable,
      bvmAllowOwnUnconfirmedInputs: allowOwnUnconfirmedInputs,
    },
    async planItem(item: PlannedItem) {
      return [item];
    },
    async sign(wallet, item): Promise<SignedOriginTx> {
      const key = keyOf(wallet);
      const data = PsbtItemSchema.safeParse(item.data);
      if (!data.success)
        throw new BvmAdapterError(
          `${item.stepId} item ${item.itemIndex} has no data.psbt; only Bitcoin deposit PSBTs are signed on chain ${name}`,
        );
      const psbtHex = data.data.psbt;
      const signLimits: BvmSignLimits = { ...limits, ...(needsTipHeight(psbtHex) ? { tipHeight: await head() } : {}) };
      const signed = await signBvmPsbt(key, psbtHex, signLimits);
      const record = bvmTxRecord(signed, key.address);
      if (allowOwnUnconfirmedInputs) {
        // A parent the node later forgets (replaced by our cancel of it) takes the proof of this deposit's death
        // with it: its raw transaction is kept with the deposit (src/chains/bvm/ancestors.ts).
        const ancestors = await readUnconfirmedAncestors(esplora, outpointsOf(Transaction.fromHex(signed.rawTx)));
        if (ancestors.length > 0) record.ancestors = ancestors.join(',');
      }
      return { chainId, txHash: signed.txid, rawTx: signed.rawTx, request: record };
    },
    broadcast,
    async knows(txHash) {
      try {
        return (await esplora.getJsonOrNull(`/tx/${encodeURIComponent(txHash)}`, TxSchema)) !== null;
      } catch {
        return false;
      }
    },
    waitForInclusion: (tx, timeoutMs): Promise<Inclusion> =>
      waitForBvmInclusion(esplora, tx.txHash, Math.min(timeoutMs, opts.maxInclusionWaitMs ?? 60_000), { pollIntervalMs }),
    head,
    lookup: (tx): Promise<TxLookup> => lookupBvmTx(esplora, tx, finality.reorgDepth),
    recheck: (tx, tip): Promise<Recheck> => recheckBvmTx(esplora, tx, tip, finality),
    findDeposit: (query): Promise<DepositSearch> => findBvmDeposit(esplora, query),
    async txBlock(txHash) {
      const status = await readTxStatus(esplora, txHash);
      return status?.confirmed ? BigInt(status.block_height) : null;
    },
    capabilities: {
      nativeBalanceReader: {
        readNativeBalance: async (address) =>
          specBalanceSats(await esplora.getJson(`/address/${encodeURIComponent(address)}`, AddressStatsSchema)),
      },
      gasMeter: {
        async gasPaid(txHash) {
          const tx = await esplora.getJsonOrNull(`/tx/${encodeURIComponent(txHash)}`, TxSchema);
          return tx ? esploraTxFee(tx) : null;
        },
      },
      // Spec "Limits": allow 2 to 3 blocks (3 to 4 for high value) before treating a deposit as stalled, i.e. the
      // confirmations the fill waits for plus two more blocks.
      stallPolicy: { stalledAfterBlocks: (amountIn) => requiredConfirmations(finality, amountIn) + 2 },
      depositCanceller,
    },
  };
}
