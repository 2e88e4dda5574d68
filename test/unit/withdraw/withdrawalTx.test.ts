/**
 * The ready-transaction verifier (src/verify/withdrawalTx.ts) accepts exactly "the depository pays `amount` of
 * `currency` to our recipient" and refuses every tampering, each by the check it breaks.
 */
import { encodeFunctionData, erc20Abi, zeroAddress, type Address, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { depositoryExecuteAbi, type DepositoryCall } from '../../../packages/protocol/src/protocol/depositoryExecute.ts';
import type { EvmWithdrawalTx } from '../../../packages/ballast/src/relay/withdrawalSchemas.ts';
import { verifyWithdrawalTx, type WithdrawalTxExpectations } from '../../../packages/ballast/src/verify/withdrawalTx.ts';

const DEPOSITORY = '0x1111111111111111111111111111111111111111' as Address;
const TOKEN = '0x2222222222222222222222222222222222222222' as Address;
const US = '0x3333333333333333333333333333333333333333' as Address;
const STRANGER = '0x4444444444444444444444444444444444444444' as Address;
const NOW = 1_700_000_000;
const AMOUNT = 25_000_000n;
const SIG = `0x${'ab'.repeat(65)}` as Hex;

const expectToken: WithdrawalTxExpectations = { chainId: 31001, depository: DEPOSITORY, currency: TOKEN, amount: AMOUNT, recipient: US };
const expectNative: WithdrawalTxExpectations = { ...expectToken, currency: zeroAddress, amount: 10n ** 18n };

const transferCall = (to: Address = US, amount = AMOUNT): DepositoryCall => ({
  to: TOKEN,
  data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }),
  value: 0n,
  allowFailure: false,
});

function tx(calls: DepositoryCall[], over: Partial<EvmWithdrawalTx> = {}, expiration = BigInt(NOW + 600)): EvmWithdrawalTx {
  return {
    chainId: 31001,
    to: DEPOSITORY,
    data: encodeFunctionData({ abi: depositoryExecuteAbi, functionName: 'execute', args: [{ calls, nonce: 7n, expiration }, SIG] }),
    value: '0',
    ...over,
  };
}

/** The failing checks of a verdict. */
function failing(t: EvmWithdrawalTx, expect_ = expectToken): string[] {
  const v = verifyWithdrawalTx(t, expect_, NOW);
  return v.checks.filter((c) => !c.ok && !c.detail.startsWith('skipped')).map((c) => c.check);
}

describe('verifyWithdrawalTx', () => {
  it('accepts an ERC-20 transfer of the amount to us, and a native payment of the amount to us', () => {
    const ok = verifyWithdrawalTx(tx([transferCall()]), expectToken, NOW);
    expect(ok).toMatchObject({ ok: true, expirationSec: BigInt(NOW + 600) });
    expect(ok.checks.map((c) => c.check)).toEqual(['chain', 'to', 'value', 'calldata', 'calls', 'expiration']);
    const native = tx([{ to: US, data: '0x', value: 10n ** 18n, allowFailure: false }]);
    expect(verifyWithdrawalTx(native, expectNative, NOW).ok).toBe(true);
    // Addresses compare case-insensitively.
    expect(verifyWithdrawalTx({ ...tx([transferCall()]), to: DEPOSITORY.toUpperCase().replace('0X', '0x') }, expectToken, NOW).ok).toBe(
      true,
    );
  });

  it('refuses the wrong chain, another contract and a non-zero value', () => {
    expect(failing(tx([transferCall()], { chainId: 31002 }))).toEqual(['chain']);
    expect(failing(tx([transferCall()], { to: STRANGER }))).toEqual(['to']);
    expect(failing(tx([transferCall()], { value: '1' }))).toEqual(['value']);
  });

  it('refuses calldata that is not exactly execute(request, signature)', () => {
    const other = encodeFunctionData({ abi: depositoryExecuteAbi, functionName: 'callRequests', args: [`0x${'00'.repeat(32)}`] });
    expect(failing({ ...tx([]), data: other })).toEqual(['calldata']);
    expect(failing({ ...tx([transferCall()]), data: `${tx([transferCall()]).data}00` })).toEqual(['calldata']);
    expect(failing({ ...tx([]), data: '0xdeadbeef' })).toEqual(['calldata']);
    const refused = verifyWithdrawalTx({ ...tx([]), data: '0xdeadbeef' }, expectToken, NOW);
    expect(refused.ok).toBe(false);
    expect(refused.checks.find((c) => c.check === 'calls')?.detail).toBe('skipped: calldata failed');
  });

  it('refuses any call set other than the single exact payment', () => {
    expect(failing(tx([]))).toEqual(['calls']);
    expect(failing(tx([transferCall(), transferCall()]))).toEqual(['calls']);
    expect(failing(tx([transferCall(STRANGER)]))).toEqual(['calls']);
    expect(failing(tx([transferCall(US, AMOUNT + 1n)]))).toEqual(['calls']);
    expect(failing(tx([transferCall(US, AMOUNT - 1n)]))).toEqual(['calls']);
    expect(failing(tx([{ ...transferCall(), allowFailure: true }]))).toEqual(['calls']);
    expect(failing(tx([{ ...transferCall(), to: STRANGER }]))).toEqual(['calls']);
    expect(failing(tx([{ ...transferCall(), value: 1n }]))).toEqual(['calls']);
    const approve = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [US, AMOUNT] });
    expect(failing(tx([{ ...transferCall(), data: approve }]))).toEqual(['calls']);
    const transferFrom = encodeFunctionData({ abi: erc20Abi, functionName: 'transferFrom', args: [DEPOSITORY, US, AMOUNT] });
    expect(failing(tx([{ ...transferCall(), data: transferFrom }]))).toEqual(['calls']);
    expect(failing(tx([{ ...transferCall(), data: `${transferCall().data}ff` as Hex }]))).toEqual(['calls']);
    // A token payment where the native currency is expected, and the reverse.
    expect(failing(tx([transferCall()]), expectNative)).toEqual(['calls']);
    expect(failing(tx([{ to: US, data: '0x', value: AMOUNT, allowFailure: false }]))).toEqual(['calls']);
  });

  it('refuses a native payment to another recipient, of another amount, or with calldata', () => {
    const pay = (over: Partial<DepositoryCall>) => tx([{ to: US, data: '0x', value: 10n ** 18n, allowFailure: false, ...over }]);
    expect(failing(pay({ to: STRANGER }), expectNative)).toEqual(['calls']);
    expect(failing(pay({ value: 10n ** 18n + 1n }), expectNative)).toEqual(['calls']);
    expect(failing(pay({ data: '0x00' }), expectNative)).toEqual(['calls']);
  });

  it('refuses an expired request and names every broken check in the reason', () => {
    expect(failing(tx([transferCall()], {}, BigInt(NOW)))).toEqual(['expiration']);
    const v = verifyWithdrawalTx(tx([transferCall(STRANGER)], { chainId: 1, value: '5' }, BigInt(NOW - 1)), expectToken, NOW);
    expect(v.ok).toBe(false);
    if (!v.ok) {
      expect(v.reason).toContain('chain: chainId is 1');
      expect(v.reason).toContain('value: value is 5 wei');
      expect(v.reason).toContain(`transfer pays ${STRANGER}`);
      expect(v.reason).toContain('expiration: the request expired');
    }
  });
});
