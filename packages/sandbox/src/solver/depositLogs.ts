/**
 * Decoding of depository deposit events (relayprotocol/relay-depository: `RelayNativeDeposit(address from,
 * uint256 amount, bytes32 id)`, `RelayErc20Deposit(address from, address token, uint256 amount, bytes32 id)`,
 * no indexed arguments) into {@link DepositEvent} records.
 */
import { parseEventLogs, type Address, type Hex, type Log } from 'viem';
import { depositoryAbi } from '@ballast/protocol/protocol/depositoryAbi.ts';
import { EVM_NATIVE_ADDRESS, lower } from '../quote/chainTable.ts';
import type { DepositEvent } from '../api/requestStore.ts';

/** A deposit event decoded from EVM logs: hash and addresses as 0x hex (addresses lower-case). */
export interface EvmDepositEvent extends DepositEvent {
  txHash: Hex;
  from: Address;
  currency: Address;
}

/**
 * Extracts the deposits a set of logs holds. Logs from other contracts, other events and pending logs (no
 * transaction hash or block yet) are skipped.
 *
 * @param chainId chain the logs come from
 * @param depository depository address on that chain
 * @param logs raw logs (eth_getLogs results or receipt logs)
 */
export function decodeDepositLogs(chainId: number, depository: Address, logs: Log[]): EvmDepositEvent[] {
  const parsed = parseEventLogs({
    abi: depositoryAbi,
    logs: logs.filter((l) => l.address.toLowerCase() === depository.toLowerCase()),
    eventName: ['RelayNativeDeposit', 'RelayErc20Deposit'],
  });
  const out: EvmDepositEvent[] = [];
  for (const log of parsed) {
    if (log.transactionHash === null || log.blockNumber === null || log.logIndex === null) continue;
    const base = { chainId, txHash: log.transactionHash, logIndex: log.logIndex, blockNumber: log.blockNumber };
    if (log.eventName === 'RelayNativeDeposit') {
      out.push({ ...base, from: lower(log.args.from), currency: EVM_NATIVE_ADDRESS, amount: log.args.amount, id: log.args.id });
    } else {
      out.push({ ...base, from: lower(log.args.from), currency: lower(log.args.token), amount: log.args.amount, id: log.args.id });
    }
  }
  return out;
}
