/**
 * Verification of the EVM transaction a `ready` withdrawal job hands the owner to broadcast (docs/relay-contract.md
 * "Withdrawal job status": on non-TON chains the owner wallet signs and broadcasts it). Nothing is signed unless every
 * check passes: the transaction must be exactly "the depository of the withdrawal chain pays `amount` of `currency` to
 * our recipient", expressed as the depository's allocator-signed `execute(CallRequest, bytes)`
 * (src/protocol/depositoryExecute.ts):
 *
 * - `chain`: its chainId is the withdrawal chain;
 * - `to`: it calls that chain's depository from GET /chains (`protocol.v2.depository`), never an address taken
 *   from the job alone;
 * - `value`: it sends no native value (the owner pays gas only);
 * - `calldata`: it decodes as `execute(request, signature)` with nothing appended;
 * - `calls`: the request holds exactly one call, which cannot fail silently (`allowFailure` false) and pays
 *   exactly `amount` of `currency` to the recipient and nothing else: an ERC-20 `transfer(recipient, amount)` on
 *   the currency contract with no value, or for the native currency a plain value transfer of `amount` to the
 *   recipient with empty calldata;
 * - `expiration`: the request has not expired at `nowSec`.
 *
 * Pure: no clock (pass `nowSec`), no network.
 */
import { decodeFunctionData, encodeFunctionData, erc20Abi, isAddress, isAddressEqual, zeroAddress, type Hex } from 'viem';
import { depositoryExecuteAbi, type DepositoryCall } from '@ballast/protocol/protocol/depositoryExecute.ts';
import type { EvmWithdrawalTx } from '../relay/withdrawalSchemas.ts';

/** Check ids of {@link verifyWithdrawalTx}, in the order they run. */
export const WITHDRAWAL_TX_CHECKS = ['chain', 'to', 'value', 'calldata', 'calls', 'expiration'] as const;
/** One check id. */
export type WithdrawalTxCheck = (typeof WITHDRAWAL_TX_CHECKS)[number];

/** What the transaction must do, from our own state (the withdrawal row and GET /chains), never from the job. */
export interface WithdrawalTxExpectations {
  /** Numeric chain id of the withdrawal chain. */
  chainId: number;
  /** The chain's depository, `protocol.v2.depository` of GET /chains. */
  depository: string;
  /** Token contract, or the zero address for the native currency. */
  currency: string;
  /** Base units to receive: the amount prepare returned and the owner signed. */
  amount: bigint;
  /** Our wallet that receives the funds. */
  recipient: string;
}

/** One check's outcome; `detail` names the field, what was expected and what was found. */
export interface WithdrawalTxCheckResult {
  check: WithdrawalTxCheck;
  ok: boolean;
  detail: string;
}

/** The verdict: `ok` when every check passed; `reason` joins the failures. */
export type WithdrawalTxVerdict =
  { ok: true; checks: WithdrawalTxCheckResult[]; expirationSec: bigint } | { ok: false; checks: WithdrawalTxCheckResult[]; reason: string };

/**
 * Verifies a `ready` job's EVM transaction against what we expect.
 *
 * @param tx the transaction as parsed by `EvmWithdrawalTxSchema`
 * @param expect our expectations (amount in base units)
 * @param nowSec current unix time in seconds (pass a later time to demand a margin before the expiration)
 * @returns the verdict with one entry per check; never throws for a bad transaction
 */
export function verifyWithdrawalTx(tx: EvmWithdrawalTx, expect: WithdrawalTxExpectations, nowSec: number): WithdrawalTxVerdict {
  const checks: WithdrawalTxCheckResult[] = [];
  const add = (check: WithdrawalTxCheck, problem: string | null, okDetail: string) =>
    checks.push({ check, ok: problem === null, detail: problem ?? okDetail });

  add(
    'chain',
    tx.chainId === expect.chainId ? null : `chainId is ${tx.chainId}, expected the withdrawal chain ${expect.chainId}`,
    `chain ${tx.chainId}`,
  );
  add(
    'to',
    sameAddress(tx.to, expect.depository) ? null : `to is ${tx.to}, expected the depository ${expect.depository} listed by GET /chains`,
    `depository ${tx.to}`,
  );
  add('value', BigInt(tx.value) === 0n ? null : `value is ${tx.value} wei, expected 0 (the owner pays gas only)`, 'no value');

  const decoded = decodeExecute(tx.data as Hex); // schema checked 0x-prefixed even-length hex
  add('calldata', decoded.problem, 'execute(request, signature)');
  if (decoded.request === null) {
    checks.push(
      { check: 'calls', ok: false, detail: 'skipped: calldata failed' },
      { check: 'expiration', ok: false, detail: 'skipped: calldata failed' },
    );
    return failed(checks);
  }
  const { calls, expiration } = decoded.request;
  add('calls', callsProblem(calls, expect), `one call paying ${expect.amount} of ${expect.currency} to ${expect.recipient}`);
  add(
    'expiration',
    expiration > BigInt(nowSec) ? null : `the request expired at ${expiration} (unix s), now is ${nowSec}`,
    `expires at ${expiration} (unix s)`,
  );
  if (checks.some((c) => !c.ok)) return failed(checks);
  return { ok: true, checks, expirationSec: expiration };
}

function failed(checks: WithdrawalTxCheckResult[]): WithdrawalTxVerdict {
  const reason = checks
    .filter((c) => !c.ok && !c.detail.startsWith('skipped:'))
    .map((c) => `${c.check}: ${c.detail}`)
    .join('; ');
  return { ok: false, checks, reason };
}

function sameAddress(a: string, b: string): boolean {
  return isAddress(a, { strict: false }) && isAddress(b, { strict: false }) && isAddressEqual(a, b);
}

/** Decodes `execute(request, signature)` and proves nothing follows the encoded arguments (re-encoding equals input). */
function decodeExecute(data: Hex): { request: { calls: readonly DepositoryCall[]; expiration: bigint } | null; problem: string | null } {
  let decoded;
  try {
    decoded = decodeFunctionData({ abi: depositoryExecuteAbi, data });
  } catch (error) {
    return {
      request: null,
      problem: `calldata does not decode as a depository function (${error instanceof Error ? error.name : 'error'})`,
    };
  }
  if (decoded.functionName !== 'execute') return { request: null, problem: `calldata calls ${decoded.functionName}, expected execute` };
  const [request, signature] = decoded.args;
  const again = encodeFunctionData({ abi: depositoryExecuteAbi, functionName: 'execute', args: [request, signature] });
  if (again.toLowerCase() !== data.toLowerCase())
    return { request: null, problem: 'calldata carries bytes beyond execute(request, signature)' };
  return { request: { calls: request.calls, expiration: request.expiration }, problem: null };
}

/** Why the calls do not pay exactly `amount` of `currency` to the recipient, or null when they do. */
function callsProblem(calls: readonly DepositoryCall[], expect: WithdrawalTxExpectations): string | null {
  if (calls.length !== 1) return `the request holds ${calls.length} calls, expected exactly one payment to ${expect.recipient}`;
  const call = calls[0]!; // length checked just above
  if (call.allowFailure) return 'the call has allowFailure true: a failing payment would consume the request; expected false';
  const native = sameAddress(expect.currency, zeroAddress);
  if (native) {
    const problems: string[] = [];
    if (!sameAddress(call.to, expect.recipient)) problems.push(`native payment goes to ${call.to}, expected ${expect.recipient}`);
    if (call.value !== expect.amount) problems.push(`native payment is ${call.value} wei, expected ${expect.amount}`);
    if (call.data !== '0x') problems.push(`native payment carries calldata ${call.data.slice(0, 42)}, expected none`);
    return problems.length > 0 ? problems.join('; ') : null;
  }
  const problems: string[] = [];
  if (!sameAddress(call.to, expect.currency)) problems.push(`the call goes to ${call.to}, expected the token ${expect.currency}`);
  if (call.value !== 0n) problems.push(`the token call sends ${call.value} wei, expected 0`);
  let transfer;
  try {
    transfer = decodeFunctionData({ abi: erc20Abi, data: call.data });
  } catch {
    problems.push('the token call does not decode as an ERC-20 function');
    return problems.join('; ');
  }
  if (transfer.functionName !== 'transfer') {
    problems.push(`the token call is ${transfer.functionName}, expected transfer(recipient, amount)`);
    return problems.join('; ');
  }
  const [to, amount] = transfer.args;
  if (!sameAddress(to, expect.recipient)) problems.push(`transfer pays ${to}, expected ${expect.recipient}`);
  if (amount !== expect.amount) problems.push(`transfer pays ${amount}, expected ${expect.amount}`);
  const exact = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] });
  if (exact.toLowerCase() !== call.data.toLowerCase())
    problems.push('the transfer calldata carries bytes beyond transfer(recipient, amount)');
  return problems.length > 0 ? problems.join('; ') : null;
}
