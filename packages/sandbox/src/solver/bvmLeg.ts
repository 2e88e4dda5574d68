/**
 * The solver's {@link SolverLeg} on Bitcoin: fills are real signed payments from the solver's own P2WPKH wallet
 * (its unspent outputs read over Esplora, mempool change included), refunds sweep the deposit output from
 * the depository address (whose key the sandbox holds) to the refund recipient less the fee; both are
 * broadcast to the node and settle once mined (1 confirmation). Sends are serialized (one coin set).
 */
import { address as btcAddress, networks } from 'bitcoinjs-lib';
import type { BitcoinSandboxNode } from '../bvm/startEsploraNode.ts';
import type { BitcoinCoin } from '../quote/bvmSteps.ts';
import { buildPayment, buildSweep, type BtcKeyWallet } from './btcWallet.ts';
import type { SolverLeg } from './legs.ts';
import { sentOutTx } from './outTx.ts';
import type { SerialQueue } from './serialQueue.ts';
import { sleep } from './sleep.ts';

/** What the Bitcoin leg needs. Times in milliseconds. */
export interface BvmLegOptions {
  node: BitcoinSandboxNode;
  chainId: number;
  /** The solver's own wallet (fills). */
  wallet: BtcKeyWallet;
  /** The depository's key (refunds spend deposits from it). */
  depository: BtcKeyWallet;
  queue: SerialQueue;
  signal: AbortSignal;
  /** Confirmation polling period. */
  pollMs: number;
  /** Unspent outputs of an address, mempool ones included. */
  coins(address: string): Promise<BitcoinCoin[]>;
  /** Fee rate, sat/vB. */
  feeRate(): Promise<bigint>;
  /** Clock, unix seconds. */
  nowSec(): number;
}

/**
 * Creates the Bitcoin leg.
 *
 * @throws (on use) Error when the wallet cannot pay, an address is not regtest, or the node refuses a broadcast
 */
export function createBvmLeg(o: BvmLegOptions): SolverLeg {
  const scriptOf = (address: string) => btcAddress.toOutputScript(address, networks.regtest);
  return {
    async pay(to, _currency, amount) {
      const txid = await o.queue.run('bitcoin', async () => {
        const [coins, rate] = await Promise.all([o.coins(o.wallet.address), o.feeRate()]);
        return o.node.broadcast(buildPayment(o.wallet, coins, scriptOf(to), amount, rate).hex);
      });
      return sentOutTx(txid, o.chainId, 'fill', amount);
    },
    async refund(deposit, to) {
      const { txid, value } = await o.queue.run('bitcoin', async () => {
        const coin = { txid: deposit.txHash, vout: deposit.logIndex, value: deposit.amount };
        const sweep = buildSweep(o.depository, coin, scriptOf(to), await o.feeRate());
        return { txid: o.node.broadcast(sweep.hex), value: sweep.value };
      });
      return sentOutTx(txid, o.chainId, 'refund', value);
    },
    async settle(sent) {
      while (!o.signal.aborted) {
        const confirmations = o.node.confirmations(sent.txHash);
        if (confirmations !== null && confirmations >= 1) {
          const block = o.node.tipHeight() - confirmations + 1;
          const fee = await feeOf(o.node.url, sent.txHash);
          return { ...sent, block, timestampSec: o.nowSec(), feeWei: fee, status: 'success' };
        }
        await sleep(o.pollMs, o.signal);
      }
      return null;
    },
  };
}

/** The fee of a transaction from Esplora's `/tx/:txid` (null when it cannot be read; informational only). */
async function feeOf(esploraUrl: string, txid: string): Promise<bigint | null> {
  try {
    const res = await fetch(`${esploraUrl}/tx/${txid}`);
    if (res.status !== 200) return null;
    const body = (await res.json()) as { fee?: unknown }; // Esplora transaction JSON; only `fee` is read, checked below
    return typeof body.fee === 'number' && Number.isSafeInteger(body.fee) ? BigInt(body.fee) : null;
  } catch {
    return null; // the outcome is already known from the confirmation; the fee is informational only
  }
}
