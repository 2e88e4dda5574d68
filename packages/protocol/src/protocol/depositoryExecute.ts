/**
 * The EVM depository's allocator-signed `execute(CallRequest request, bytes signature)` (source:
 * relayprotocol/relay-depository packages/ethereum-vm/src/RelayDepository.sol): how funds leave the depository,
 * including the transaction a withdrawal job hands the owner to broadcast once `ready` (docs/relay-contract.md "Withdrawal
 * job status"). The allocator signs the EIP-712 typed data `CallRequest(Call[] calls,uint256 nonce,uint256
 * expiration)` / `Call(address to,bytes data,uint256 value,bool allowFailure)` under the domain
 * `{name: "RelayDepository", version: "1", chainId, verifyingContract: depository}`; the contract refuses an
 * expired, reused or wrongly signed request and emits `RelayCallExecuted(bytes32 id, Call call)` per call
 * (id = the request's struct hash).
 */
import { parseAbi, type Address, type Hex, type TypedDataDomain } from 'viem';

/** `execute`, `callRequests` and `RelayCallExecuted` of the depository. */
export const depositoryExecuteAbi = parseAbi([
  'struct Call { address to; bytes data; uint256 value; bool allowFailure; }',
  'struct CallRequest { Call[] calls; uint256 nonce; uint256 expiration; }',
  'struct CallResult { bool success; bytes returnData; }',
  'function execute(CallRequest request, bytes signature) returns (CallResult[] results)',
  'function callRequests(bytes32 id) view returns (bool)',
  'function allocator() view returns (address)',
  'event RelayCallExecuted(bytes32 id, Call call)',
]);

/** EIP-712 types of a call request (primary type `CallRequest`). */
export const CALL_REQUEST_TYPES = {
  CallRequest: [
    { name: 'calls', type: 'Call[]' },
    { name: 'nonce', type: 'uint256' },
    { name: 'expiration', type: 'uint256' },
  ],
  Call: [
    { name: 'to', type: 'address' },
    { name: 'data', type: 'bytes' },
    { name: 'value', type: 'uint256' },
    { name: 'allowFailure', type: 'bool' },
  ],
} as const;

/** One call the depository makes. `value` in wei. */
export interface DepositoryCall {
  to: Address;
  data: Hex;
  value: bigint;
  allowFailure: boolean;
}

/** A call request: its calls, a nonce that makes it unique, and its expiration (unix seconds). */
export interface DepositoryCallRequest {
  calls: DepositoryCall[];
  nonce: bigint;
  expiration: bigint;
}

/** The EIP-712 domain of the depository at `depository` on EVM chain `chainId`. */
export function depositoryDomain(chainId: number, depository: Address): TypedDataDomain {
  return { name: 'RelayDepository', version: '1', chainId, verifyingContract: depository };
}
