/**
 * Finds depository deposits for an order id on an EVM chain: the `RelayNativeDeposit` / `RelayErc20Deposit`
 * events (relayprotocol/relay-depository; no indexed arguments, so the id is matched after decoding).
 */
import { parseEventLogs, type Hex, type PublicClient } from 'viem';
import { depositoryAbi } from '@ballast/protocol/protocol/depositoryAbi.ts';

/** A deposit event for the order: who was credited, how much (base units), where it was mined. */
export interface FoundDeposit {
  txHash: Hex;
  blockNumber: bigint;
  blockHash: Hex;
  /** The account the depository credited (the `depositor` argument, or the sender when that was zero). */
  from: Hex;
  /** Token address, or undefined for a native deposit. */
  token?: Hex;
  amount: bigint;
}

/**
 * Most blocks asked of `eth_getLogs` in one call: public and hosted nodes commonly refuse wider ranges, and a
 * refused range would leave a dropped transfer unproven for good.
 */
export const LOG_RANGE_BLOCKS = 5_000n;

/**
 * Reads the depository's deposit events from `fromBlock` to `toBlock` (default: the node's head, read first) in
 * calls of at most {@link LOG_RANGE_BLOCKS} blocks, and keeps those for `orderId`. Give `toBlock` when the answer
 * must be about a known head (a load-balanced node may serve a backend that lags behind the one that gave it).
 *
 * @param client the chain's client
 * @param depository the depository address (from GET /chains, as verified)
 * @param orderId the order id (32-byte hex, any case)
 * @param fromBlock first block to read
 * @returns the deposits for that order, oldest first
 * @throws viem's errors when the node cannot answer (callers must treat that as "not known", never as "none")
 */
export async function findDepositsForOrder(
  client: PublicClient,
  depository: Hex,
  orderId: Hex,
  fromBlock: bigint,
  toBlock?: bigint,
): Promise<FoundDeposit[]> {
  const head = toBlock ?? (await client.getBlockNumber({ cacheTime: 0 }));
  const logs = [];
  for (let from = fromBlock; from <= head; from += LOG_RANGE_BLOCKS) {
    const to = from + LOG_RANGE_BLOCKS - 1n < head ? from + LOG_RANGE_BLOCKS - 1n : head;
    logs.push(...(await client.getLogs({ address: depository, fromBlock: from, toBlock: to })));
  }
  const events = parseEventLogs({ abi: depositoryAbi, logs, strict: true });
  const id = orderId.toLowerCase();
  const out: FoundDeposit[] = [];
  for (const e of events) {
    if (e.args.id.toLowerCase() !== id || e.transactionHash === null || e.blockNumber === null || e.blockHash === null) continue;
    out.push({
      txHash: e.transactionHash,
      blockNumber: e.blockNumber,
      blockHash: e.blockHash,
      from: e.args.from,
      ...(e.eventName === 'RelayErc20Deposit' ? { token: e.args.token } : {}),
      amount: e.args.amount,
    });
  }
  return out;
}
