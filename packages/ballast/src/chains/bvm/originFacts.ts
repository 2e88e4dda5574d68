/**
 * What the Bitcoin deposit verifier needs from the chain and must not take from the quote (`OriginChainFacts`,
 * src/verify/deposit/types.ts), read from Esplora (github.com/Blockstream/esplora API.md) and from our own
 * write-ahead records:
 * - our unspent outputs (`/address/:a/utxo`) with `status.confirmed`; where `allowOwnUnconfirmedInputs` is set,
 *   for each unconfirmed one, whether every input of its parent transaction (`/tx/:txid`,
 *   `vin[].prevout.scriptpubkey`) spends our wallet's script and whether that parent is a deposit or cancel of
 *   ours in flight (otherwise unconfirmed outputs are refused by the verifier, and their parents are not read);
 * - the tip height (`/blocks/tip/height`), against which a height nLockTime must be final;
 * - the node's fee estimate for the blocks the order's deadline leaves (`/fee-estimates`, src/chains/bvm/feeMarket.ts),
 *   or why it could not be read (the verifier then falls back to the configured floor and says so);
 * - the outpoints our in-flight deposits and cancels spend (their records' `inputs`, else their raw transactions).
 */
import { address as btcAddress } from 'bitcoinjs-lib';
import type { RecordedTx } from '../adapter.ts';
import type { BitcoinUtxo, OriginChainFacts } from '../../verify/deposit/types.ts';
import type { EsploraClient } from './esploraClient.ts';
import { HeightTextSchema, TxSchema, UtxoListSchema } from './esploraSchemas.ts';
import { BvmAdapterError } from './errors.ts';
import { readDeadlineFeeEstimate } from './feeMarket.ts';
import { recordedInputs } from './txRecord.ts';
import { BVM_NETWORK_PARAMS, type BvmNetwork } from './wallet.ts';

/**
 * Outpoints (`txid:vout`, txid lower-case) spent by in-flight deposits (and cancels) of ours.
 *
 * @throws BvmAdapterError when a recorded transaction names no inputs (neither its record nor its raw form):
 *   then nothing proves a new deposit would not replace it, so nothing is verified
 */
export function reservedOutpointsOf(name: string, inFlight: readonly RecordedTx[]): string[] {
  const reserved = new Set<string>();
  for (const tx of inFlight) {
    const inputs = recordedInputs(tx);
    if (!inputs) {
      throw new BvmAdapterError(
        `in-flight transaction ${tx.txHash} on chain ${name} names no inputs (record or raw transaction); cannot tell which of our outputs it spends`,
      );
    }
    for (const i of inputs) reserved.add(`${i.txid.toLowerCase()}:${i.vout}`);
  }
  return [...reserved];
}

/** What {@link readBvmOriginFacts} needs besides the client. */
export interface BvmOriginFactsOptions {
  /** Config name (`chains.<name>`). */
  name: string;
  network: BvmNetwork;
  /** `chains.<name>.allowOwnUnconfirmedInputs`: read the parents of unconfirmed outputs (else they are refused). */
  allowOwnUnconfirmedInputs: boolean;
  /** Seconds per block, for the blocks an order's deadline leaves. */
  blockIntervalSec: number;
  /** Now, unix seconds. */
  nowSec: number;
}

/**
 * Reads the Bitcoin origin facts for a deposit from `user`.
 *
 * @param inFlight the recorded transactions (deposits and cancels) of our transfers still in flight from this chain
 * @param deadlineSec the order's deadline (unix seconds), or null when the quote names none
 * @throws BvmEsploraError when the unspent outputs, the tip or a parent transaction cannot be read;
 *   BvmAdapterError when `user` is not an address of `network` or an in-flight record names no inputs
 */
export async function readBvmOriginFacts(
  esplora: EsploraClient,
  opts: BvmOriginFactsOptions,
  user: string,
  inFlight: readonly RecordedTx[],
  deadlineSec: number | null,
): Promise<OriginChainFacts> {
  let ourScript: string;
  try {
    ourScript = Buffer.from(btcAddress.toOutputScript(user, BVM_NETWORK_PARAMS[opts.network])).toString('hex');
  } catch (error) {
    throw new BvmAdapterError(`${user} is not a ${opts.network} address; it cannot deposit on chain ${opts.name}`, { cause: error });
  }
  const reservedOutpoints = reservedOutpointsOf(opts.name, inFlight);
  const [list, tipHeight, feeEstimate] = await Promise.all([
    esplora.getJson(`/address/${encodeURIComponent(user)}/utxo`, UtxoListSchema),
    esplora.getText('/blocks/tip/height', HeightTextSchema),
    readDeadlineFeeEstimate(esplora, deadlineSec, opts.nowSec, opts.blockIntervalSec),
  ]);
  const tracked = new Set(inFlight.map((t) => t.txHash.toLowerCase()));
  const parents = new Map<string, boolean | undefined>();
  if (opts.allowOwnUnconfirmedInputs) {
    for (const txid of new Set(list.filter((u) => !u.status.confirmed).map((u) => u.txid))) {
      const tx = await esplora.getJsonOrNull(`/tx/${txid}`, TxSchema);
      // A parent the node does not know (a lagging backend) stays unread: the verifier refuses its outputs.
      parents.set(
        txid,
        tx === null ? undefined : tx.vin.every((i) => i.prevout !== null && i.prevout.scriptpubkey.toLowerCase() === ourScript),
      );
    }
  }
  const utxos: BitcoinUtxo[] = list.map((u) => {
    const parentOurs = u.status.confirmed ? undefined : parents.get(u.txid);
    return {
      txid: u.txid,
      vout: u.vout,
      value: u.value,
      confirmed: u.status.confirmed,
      ...(parentOurs === undefined ? {} : { parentOurs, parentTracked: tracked.has(u.txid) }),
    };
  });
  return { utxos, tipHeight, feeEstimate, reservedOutpoints };
}
