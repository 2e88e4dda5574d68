/**
 * The Bitcoin adapter's `depositCanceller` (src/chains/capabilities.ts): signs, sends and re-prices the cancel of
 * an unwanted deposit, reading from Esplora (github.com/Blockstream/esplora API.md) what the price needs:
 * - the outputs the deposit spends (`/tx/:parent`); a parent still unconfirmed (our own change, where
 *   `allowOwnUnconfirmedInputs` is set) means the deposit's end is decided by that parent: its own cancel
 *   covers this child, or its confirmation lets this cancel be signed next time (`waitsForParent`);
 * - what the cancel must out-pay: the deposit and every cancel signed before, each with its mempool descendants
 *   (`/tx/:id/outspends`, `/tx/:child`), as BIP-125 rule 3 counts them;
 * - the market: the node's estimate for the next one to two blocks (`/fee-estimates`);
 * - the tip (`/blocks/tip/height`), recorded with the cancel as `signedAtHeight`: a cancel still unmined
 *   `cancelRepriceAfterBlocks` blocks later is re-priced.
 * Pricing is src/chains/bvm/cancelPrice.ts, building and signing src/chains/bvm/cancelTx.ts.
 */
import { z } from 'zod';
import type { RecordedTx } from '../adapter.ts';
import type { CancelResult, CancelSendResult, DepositCanceller } from '../capabilities.ts';
import { priceCancel, type Predecessor } from './cancelPrice.ts';
import { buildCancelTx, cancelVsize, feeOfSpending, parseRecordedTx, type SpentOutput } from './cancelTx.ts';
import type { EsploraClient } from './esploraClient.ts';
import { esploraTxFee, HeightTextSchema, OutspendsSchema, TxSchema, type EsploraTx } from './esploraSchemas.ts';
import { BvmAdapterError, BvmEsploraError } from './errors.ts';
import { CANCEL_TARGET_BLOCKS, estimateWithin, readFeeEstimates } from './feeMarket.ts';
import { bvmTxRecord, recordedInputs } from './txRecord.ts';
import type { BvmNetwork, BvmWalletKey } from './wallet.ts';

/** Most mempool transactions a replacement may evict (BIP-125 rule 5); the descendant walk stops there. */
export const MAX_EVICTED = 100;

/** What the canceller needs of its adapter. */
export interface BvmCancellerOptions {
  /** Config name (`chains.<name>`). */
  name: string;
  chainId: number;
  network: BvmNetwork;
  esplora: EsploraClient;
  /** The adapter's POST /tx (the answer must be the txid). @throws BvmEsploraError */
  broadcast(rawTx: string): Promise<void>;
  signers: ReadonlyMap<string, BvmWalletKey>;
  /** `maxFeeRateSatPerVb`. */
  maxFeeRateSatPerVb: number;
  /** `maxCancelFeeSats`. */
  maxCancelFeeSats: bigint;
  /** `cancelRepriceAfterBlocks`. */
  cancelRepriceAfterBlocks: number;
}

const vsizeOf = (tx: EsploraTx): number | null => (tx.weight === undefined ? null : Math.ceil(tx.weight / 4));

const SignedAtSchema = z.looseObject({ signedAtHeight: z.coerce.bigint() });

/** Whether the node's refusal says it already has the transaction (mined or pooled): not a refusal of it. */
export function alreadyKnown(reason: string): boolean {
  return /already in (the )?(block ?chain|utxo set|mempool)|txn-already-(known|in-mempool)|outputs already in utxo set/i.test(reason);
}

/** Creates the canceller of one Bitcoin chain. */
export function createBvmCanceller(opts: BvmCancellerOptions): DepositCanceller {
  const { esplora } = opts;
  const tip = (): Promise<bigint> => esplora.getText('/blocks/tip/height', HeightTextSchema);

  /** Mempool descendants of `txid` (fee and vsize each), breadth first, at most {@link MAX_EVICTED}. */
  async function descendantsOf(txid: string): Promise<Predecessor['descendants']> {
    const found: { feeSat: bigint; vsize: number }[] = [];
    const queue = [txid];
    const seen = new Set<string>(queue);
    while (queue.length > 0 && found.length < MAX_EVICTED) {
      const spends = await esplora.getJsonOrNull(`/tx/${encodeURIComponent(queue.shift()!)}/outspends`, OutspendsSchema);
      for (const spend of spends ?? []) {
        if (!spend.spent || spend.status?.confirmed || seen.has(spend.txid)) continue;
        seen.add(spend.txid);
        const child = await esplora.getJsonOrNull(`/tx/${encodeURIComponent(spend.txid)}`, TxSchema);
        const fee = child ? esploraTxFee(child) : null;
        const vsize = child ? vsizeOf(child) : null;
        if (fee === null || vsize === null) throw new BvmAdapterError(`descendant ${spend.txid} of ${txid} cannot be read; not priced`);
        found.push({ feeSat: fee, vsize });
        queue.push(spend.txid);
      }
    }
    return found;
  }

  async function cancel(user: string, deposit: RecordedTx, earlier: readonly RecordedTx[]): Promise<CancelResult> {
    const key = [...opts.signers.values()].find((k) => k.address === user && k.network === opts.network);
    if (!key) throw new BvmAdapterError(`${user} is not a Bitcoin wallet of chain ${opts.name}; its deposit cannot be replaced from here`);
    const inputs = recordedInputs(deposit);
    if (!inputs) throw new BvmAdapterError(`the recorded deposit ${deposit.txHash} names no inputs; it cannot be replaced`);
    const spent: SpentOutput[] = [];
    for (const input of inputs) {
      const prev = await esplora.getJsonOrNull(`/tx/${encodeURIComponent(input.txid)}`, TxSchema);
      if (prev === null || !prev.status.confirmed) {
        const where = prev === null ? 'is unknown to the node' : 'is unconfirmed';
        return {
          kind: 'waitsForParent',
          detail: `parent ${input.txid} of deposit ${deposit.txHash} ${where}: its cancel or its confirmation decides this deposit first`,
        };
      }
      const out = prev.vout[input.vout];
      if (!out)
        throw new BvmAdapterError(
          `transaction ${input.txid} has no output ${input.vout}; the deposit ${deposit.txHash} cannot be replaced`,
        );
      spent.push({ txid: input.txid, vout: input.vout, value: out.value, script: Buffer.from(out.scriptpubkey, 'hex') });
    }
    const predecessors: Predecessor[] = [];
    for (const [i, tx] of [deposit, ...earlier].entries()) {
      const what = i === 0 ? 'the recorded deposit' : `cancel ${tx.txHash}`;
      const fee = feeOfSpending(parseRecordedTx(tx.rawTx, what), spent, what);
      predecessors.push({ feeSat: fee.feeSat, vsize: fee.vsize, descendants: await descendantsOf(tx.txHash) });
    }
    const vsize = cancelVsize(key, spent);
    const [height, market] = await Promise.all([
      tip(),
      readFeeEstimates(esplora)
        .then((table) => estimateWithin(table, CANCEL_TARGET_BLOCKS))
        .catch((error: unknown) => ({ problem: error instanceof Error ? error.message : String(error) })),
    ]);
    const last = earlier.at(-1);
    const price = priceCancel({
      vsize,
      // Each input's signature may come out up to 4 bytes (1 vB) shorter than the worst case the estimate takes.
      minVsize: vsize - spent.length,
      predecessors,
      marketSatPerVb: 'problem' in market ? null : market.satPerVb,
      lastCancelFeeSat: last ? predecessors.at(-1)!.feeSat : null, // the last predecessor is the last cancel
      maxFeeSat: opts.maxCancelFeeSats,
      maxRateSatPerVb: opts.maxFeeRateSatPerVb,
    });
    if ('atCap' in price) return { kind: 'atCap', detail: price.atCap };
    const signed = await buildCancelTx(key, { rawTx: deposit.rawTx, spent }, price.feeSat, {
      maxFeeRateSatPerVb: opts.maxFeeRateSatPerVb,
      maxFeeSat: opts.maxCancelFeeSats,
    });
    const marketText = 'problem' in market ? `unread (${market.problem.slice(0, 120)})` : `${market.satPerVb} sat/vB`;
    return {
      kind: 'signed',
      feeSat: signed.feeSat,
      capped: price.capped,
      wantedSat: price.wantedSat,
      signed: {
        chainId: opts.chainId,
        txHash: signed.txid,
        rawTx: signed.rawTx,
        request: {
          ...bvmTxRecord(signed, key.address),
          replaces: deposit.txHash,
          // The highest tip the client has read (never below `height`, read through it): a backend that lags would
          // otherwise let the cancel be re-priced blocks early.
          signedAtHeight: (esplora.highestTip() ?? height).toString(),
          market: marketText,
          minimumFee: price.minimumSat.toString(),
        },
      },
    };
  }

  return {
    cancel,
    async send(rawTx): Promise<CancelSendResult> {
      try {
        await opts.broadcast(rawTx);
        return { accepted: true };
      } catch (error) {
        // Esplora answers 400 with bitcoind's reject reason; anything else (no answer, 5xx) leaves the outcome unknown.
        if (!(error instanceof BvmEsploraError) || error.status !== 400) throw error;
        return alreadyKnown(error.message) ? { accepted: true } : { accepted: false, reason: error.message };
      }
    },
    async repriceDue(cancelTx) {
      const record = SignedAtSchema.safeParse(cancelTx.request);
      if (!record.success) return true; // signed before heights were recorded: priced anew once
      return (await tip()) - record.data.signedAtHeight >= BigInt(opts.cancelRepriceAfterBlocks);
    },
  };
}
