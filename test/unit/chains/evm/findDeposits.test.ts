/**
 * Depository deposit events for an order (src/chains/evm/findDeposits.ts): a known head is read in ranges of at
 * most LOG_RANGE_BLOCKS blocks (nodes refuse wider `eth_getLogs` ranges), and only the order's events count.
 */
import { describe, expect, it } from 'vitest';
import { encodeAbiParameters, encodeEventTopics, type Hex, type PublicClient } from 'viem';
import { findDepositsForOrder, LOG_RANGE_BLOCKS } from '../../../../packages/ballast/src/chains/evm/findDeposits.ts';
import { depositoryAbi } from '../../../../packages/protocol/src/protocol/depositoryAbi.ts';

const DEPOSITORY = '0x00000000000000000000000000000000000000de' as const;
const TOKEN = '0x00000000000000000000000000000000000000C0' as const; // checksummed, as decoded
const FROM = '0x1111111111111111111111111111111111111111' as const;
const ORDER = `0x${'ab'.repeat(32)}` as Hex;

function erc20DepositLog(blockNumber: bigint, id: Hex, amount: bigint) {
  return {
    address: DEPOSITORY,
    topics: encodeEventTopics({ abi: depositoryAbi, eventName: 'RelayErc20Deposit' }),
    data: encodeAbiParameters(
      [{ type: 'address' }, { type: 'address' }, { type: 'uint256' }, { type: 'bytes32' }],
      [FROM, TOKEN, amount, id],
    ),
    blockNumber,
    blockHash: `0x${blockNumber.toString(16).padStart(64, '0')}` as Hex,
    transactionHash: `0x${(blockNumber + 1n).toString(16).padStart(64, '0')}` as Hex,
    transactionIndex: 0,
    logIndex: 0,
    removed: false,
  };
}

describe('findDepositsForOrder', () => {
  it('reads up to a known head in bounded ranges and keeps the order’s deposits', async () => {
    const calls: [bigint, bigint][] = [];
    const logs = [erc20DepositLog(3n, `0x${'cd'.repeat(32)}`, 5n), erc20DepositLog(7_001n, ORDER, 20_000_000n)];
    const client = {
      getLogs: async ({ fromBlock, toBlock }: { fromBlock: bigint; toBlock: bigint }) => {
        calls.push([fromBlock, toBlock]);
        return logs.filter((l) => l.blockNumber >= fromBlock && l.blockNumber <= toBlock);
      },
    } as unknown as PublicClient; // findDepositsForOrder calls only getLogs
    const found = await findDepositsForOrder(client, DEPOSITORY, ORDER, 0n, 12_000n);
    expect(calls).toEqual([
      [0n, LOG_RANGE_BLOCKS - 1n],
      [LOG_RANGE_BLOCKS, 2n * LOG_RANGE_BLOCKS - 1n],
      [2n * LOG_RANGE_BLOCKS, 12_000n],
    ]);
    expect(found).toEqual([
      {
        txHash: logs[1]!.transactionHash,
        blockNumber: 7_001n,
        blockHash: logs[1]!.blockHash,
        from: FROM,
        token: TOKEN,
        amount: 20_000_000n,
      },
    ]);
  });

  it('a range the node refuses fails the whole lookup (never "no deposit")', async () => {
    const client = { getLogs: async () => Promise.reject(new Error('query returned more than 10000 results')) } as unknown as PublicClient;
    await expect(findDepositsForOrder(client, DEPOSITORY, ORDER, 0n, 10n)).rejects.toThrow(/more than 10000/);
  });
});
