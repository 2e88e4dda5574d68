/**
 * The transaction a `ready` withdrawal job hands out (docs/relay-contract.md "Withdrawal job status": `transaction`, an EVM
 * transaction request): the depository's `execute(request, allocatorSignature)` where the call request holds
 * exactly one call — an ERC-20 `transfer(recipient, amount)` on the currency contract, or for native currency a
 * plain `{to: recipient, data: 0x, value: amount}` — with allowFailure false, a random nonce and the given
 * expiration, signed by the allocator under the depository's EIP-712 domain (`src/protocol/depositoryExecute.ts`).
 * No I/O: signing with a local account is in-process.
 */
import { encodeFunctionData, erc20Abi, hashStruct, hexToBigInt, zeroAddress, type Address, type Hex, type LocalAccount } from 'viem';
import {
  CALL_REQUEST_TYPES,
  depositoryDomain,
  depositoryExecuteAbi,
  type DepositoryCall,
  type DepositoryCallRequest,
} from '@ballast/protocol/protocol/depositoryExecute.ts';

/** Inputs of {@link buildReadyTransaction}. Amount in base units; expiration in unix seconds. */
export interface ReadyTransactionInput {
  /** The depository's allocator (the sandbox solver). */
  allocator: LocalAccount;
  chainId: number;
  depository: Address;
  /** Token address, or the zero address for native currency. */
  currency: Address;
  recipient: Address;
  amount: bigint;
  expirationSec: bigint;
  /** 32 random bytes for the request nonce. */
  nonce: Hex;
}

/** The EVM transaction request of a `ready` job: `value` is a decimal string of wei ("0": nothing is sent). */
export interface WithdrawalTransaction {
  chainId: number;
  to: Address;
  data: Hex;
  value: string;
}

/** The transaction plus what the job tracks: the request and its id (EIP-712 struct hash, `callRequests` key). */
export interface ReadyTransaction {
  transaction: WithdrawalTransaction;
  request: DepositoryCallRequest;
  callRequestId: Hex;
}

/** The single call that pays `amount` of `currency` from the depository to `recipient`. */
export function withdrawalCall(currency: Address, recipient: Address, amount: bigint): DepositoryCall {
  if (currency.toLowerCase() === zeroAddress) return { to: recipient, data: '0x', value: amount, allowFailure: false };
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [recipient, amount] });
  return { to: currency, data, value: 0n, allowFailure: false };
}

/** Builds and signs the call request and encodes `execute` calldata. */
export async function buildReadyTransaction(i: ReadyTransactionInput): Promise<ReadyTransaction> {
  const request: DepositoryCallRequest = {
    calls: [withdrawalCall(i.currency, i.recipient, i.amount)],
    nonce: hexToBigInt(i.nonce),
    expiration: i.expirationSec,
  };
  const signature = await i.allocator.signTypedData({
    domain: depositoryDomain(i.chainId, i.depository),
    types: CALL_REQUEST_TYPES,
    primaryType: 'CallRequest',
    message: request,
  });
  const callRequestId = hashStruct({ data: request, primaryType: 'CallRequest', types: CALL_REQUEST_TYPES });
  const data = encodeFunctionData({ abi: depositoryExecuteAbi, functionName: 'execute', args: [request, signature] });
  return { transaction: { chainId: i.chainId, to: i.depository, data, value: '0' }, request, callRequestId };
}
