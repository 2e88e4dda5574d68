/**
 * The pure pieces of the sandbox withdrawal endpoints: owner signature verification (EVM EIP-191 over the raw
 * digest bytes, Solana ed25519 over the hex digest text), nonce windows, deposit eligibility, the hub ledger
 * and the allocator-signed ready transaction.
 */
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import {
  bytesToHex,
  decodeFunctionData,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  recoverTypedDataAddress,
  zeroAddress,
  type Address,
  type Hex,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { CALL_REQUEST_TYPES, depositoryDomain, depositoryExecuteAbi } from '../../../packages/protocol/src/protocol/depositoryExecute.ts';
import { withdrawalDigest } from '../../../packages/protocol/src/protocol/withdrawalDigest.ts';
import { RequestStore, type ObservedDeposit } from '../../../packages/sandbox/src/api/requestStore.ts';
import { depositWithdrawability } from '../../../packages/sandbox/src/withdrawals/eligibility.ts';
import { HubLedger, HubLedgerError } from '../../../packages/sandbox/src/withdrawals/hubLedger.ts';
import { isLiveNonce, NONCE_WINDOW_MS, withdrawalNonce } from '../../../packages/sandbox/src/withdrawals/nonce.ts';
import { verifyOwnerSignature } from '../../../packages/sandbox/src/withdrawals/ownerSignature.ts';
import { buildReadyTransaction } from '../../../packages/sandbox/src/withdrawals/readyTransaction.ts';
import { build, DEPOSITORY_ALPHA, SOLVER, USDC, USER, usdcRequest } from './quote/fixtures.ts';

const FIELDS = {
  chainId: 'alpha',
  currency: USDC,
  amount: '1000000',
  ownerChainId: 'alpha',
  owner: USER,
  recipient: USER,
  nonce: `0x${'12'.repeat(32)}`,
};

describe('owner signatures', () => {
  it('EVM: an EIP-191 signature over the raw 32 digest bytes verifies; over the hex text, by another key or for other fields it does not', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const fields = { ...FIELDS, owner: owner.address };
    const digest = withdrawalDigest(fields);
    const good = await owner.signMessage({ message: { raw: `0x${digest}` } });
    expect(await verifyOwnerSignature({ family: 'evm', owner: owner.address, digest, signature: good })).toBe(true);
    const overText = await owner.signMessage({ message: digest });
    expect(await verifyOwnerSignature({ family: 'evm', owner: owner.address, digest, signature: overText })).toBe(false);
    const stranger = await privateKeyToAccount(generatePrivateKey()).signMessage({ message: { raw: `0x${digest}` } });
    expect(await verifyOwnerSignature({ family: 'evm', owner: owner.address, digest, signature: stranger })).toBe(false);
    const other = withdrawalDigest({ ...fields, amount: '1000001' });
    expect(await verifyOwnerSignature({ family: 'evm', owner: owner.address, digest: other, signature: good })).toBe(false);
    expect(await verifyOwnerSignature({ family: 'evm', owner: owner.address, digest, signature: '0x1234' })).toBe(false);
  });

  it('Solana: an ed25519 signature over the UTF-8 hex digest text verifies; over the raw bytes or by another key it does not', async () => {
    const secret = ed25519.utils.randomPrivateKey();
    const owner = base58.encode(ed25519.getPublicKey(secret));
    const fields = {
      ...FIELDS,
      chainId: 'solana',
      ownerChainId: 'solana',
      currency: '11111111111111111111111111111111',
      owner,
      recipient: owner,
    };
    const digest = withdrawalDigest(fields);
    const sig = (msg: Uint8Array, key = secret): Hex => bytesToHex(ed25519.sign(msg, key));
    const text = new TextEncoder().encode(digest);
    expect(await verifyOwnerSignature({ family: 'svm', owner, digest, signature: sig(text) })).toBe(true);
    expect(await verifyOwnerSignature({ family: 'svm', owner, digest, signature: sig(Buffer.from(digest, 'hex')) })).toBe(false);
    expect(await verifyOwnerSignature({ family: 'svm', owner, digest, signature: sig(text, ed25519.utils.randomPrivateKey()) })).toBe(
      false,
    );
    expect(
      await verifyOwnerSignature({ family: 'svm', owner, digest: withdrawalDigest({ ...fields, recipient: USER }), signature: sig(text) }),
    ).toBe(false);
    expect(await verifyOwnerSignature({ family: 'svm', owner, digest, signature: '0xabcd' })).toBe(false);
  });
});

describe('nonces', () => {
  const tuple = { chain: 'alpha', owner: USER, currency: USDC, recipient: USER };
  const secret: Hex = `0x${'aa'.repeat(32)}`;
  const t0 = 100 * NONCE_WINDOW_MS + 5_000;

  it('are deterministic per window and tuple; live in the current and the previous window only', () => {
    const nonce = withdrawalNonce(secret, tuple, 0, t0);
    expect(nonce).toMatch(/^0x[0-9a-f]{64}$/);
    expect(withdrawalNonce(secret, tuple, 0, t0 + 50_000)).toBe(nonce);
    expect(withdrawalNonce(secret, tuple, 0, t0 + NONCE_WINDOW_MS)).not.toBe(nonce);
    expect(withdrawalNonce(secret, { ...tuple, recipient: USDC }, 0, t0)).not.toBe(nonce);
    expect(withdrawalNonce(secret, tuple, 1, t0)).not.toBe(nonce);
    expect(isLiveNonce(secret, tuple, 0, t0 + NONCE_WINDOW_MS, nonce.toUpperCase().replace('0X', '0x'))).toBe(true);
    expect(isLiveNonce(secret, tuple, 0, t0 + 2 * NONCE_WINDOW_MS, nonce)).toBe(false);
    expect(isLiveNonce(secret, tuple, 1, t0, nonce)).toBe(false); // the tuple started a withdrawal with it
  });
});

describe('deposit eligibility', () => {
  const deposit = (over: Partial<ObservedDeposit> = {}): ObservedDeposit => ({
    chainId: 31001,
    txHash: `0x${'01'.repeat(32)}`,
    logIndex: 0,
    blockNumber: 1n,
    from: USER,
    currency: USDC,
    amount: 1_000_000n,
    id: `0x${'02'.repeat(32)}`,
    blockTimestamp: 1_800_000_000,
    ...over,
  });

  it('failure: yes; pending: only past the deadline or the unfilled fault; filled, claimed, attested: no', async () => {
    const store = new RequestStore();
    const { order } = await build(usdcRequest());
    const t = order.quotedAtSec * 1000;
    const r = store.addQuote(order, t);
    expect(depositWithdrawability(r, t, 0)).toMatchObject({ withdrawable: false }); // no deposit yet
    store.advance(r, 'pending', { deposit: deposit({ id: order.orderId }) }, t + 1_000);
    expect(r.depositSeenAtMs).toBe(t + 1_000);
    expect(depositWithdrawability(r, t + 2_000, null).withdrawable).toBe(false);
    expect(depositWithdrawability(r, t + 2_000, 1_000).withdrawable).toBe(true);
    expect(depositWithdrawability(r, t + 1_500, 1_000).withdrawable).toBe(false);
    expect(depositWithdrawability(r, order.deadlineSec * 1000 + 1, null).withdrawable).toBe(true);
    expect(depositWithdrawability(r, null, 0).withdrawable).toBe(false); // without a clock only failure counts
    expect(store.claimDeposit(r, 'solver')).toBe(true);
    expect(depositWithdrawability(r, order.deadlineSec * 1000 + 1, 0).withdrawable).toBe(false);
    store.advance(r, 'failure', {}, t + 3_000);
    expect(depositWithdrawability(r, null, null).withdrawable).toBe(true); // the fill failed: deposit still held
    expect(store.claimDeposit(r, 'withdrawal')).toBe(true);
    expect(depositWithdrawability(r, null, null)).toEqual({ withdrawable: false, reason: expect.stringMatching(/already attested/) });
    expect(store.claimDeposit(r, 'solver')).toBe(false);
    expect(store.claimDeposit(r, 'withdrawal')).toBe(false);

    const filled = store.addQuote((await build(usdcRequest())).order, t);
    store.advance(filled, 'success', { deposit: deposit() }, t);
    expect(depositWithdrawability(filled, Number.MAX_SAFE_INTEGER, 0)).toEqual({ withdrawable: false, reason: 'the deposit was filled' });
  });
});

describe('hub ledger', () => {
  it('credits, locks, unlocks and consumes without ever going negative', () => {
    const ledger = new HubLedger();
    const key = { chain: 'alpha', owner: USER, currency: USDC };
    ledger.credit(key, 5n);
    ledger.credit(key, 5n);
    ledger.lock(key, 7n);
    expect(ledger.list()).toEqual([{ ...key, amount: 3n, locked: 7n }]);
    expect(() => ledger.lock(key, 4n)).toThrow(expect.objectContaining({ code: 'HUB_INSUFFICIENT_BALANCE' }));
    ledger.unlock(key, 2n);
    ledger.consume(key, 5n);
    expect(ledger.list()).toEqual([{ ...key, amount: 5n, locked: 0n }]);
    expect(() => ledger.consume(key, 1n)).toThrow(HubLedgerError);
    expect(() => ledger.credit(key, 0n)).toThrow(expect.objectContaining({ code: 'HUB_BAD_AMOUNT' }));
    expect(ledger.available({ ...key, chain: 'beta' })).toBe(0n);
  });
});

describe('ready transaction', () => {
  it('execute calldata for one ERC-20 transfer, signed by the allocator under the depository domain', async () => {
    const recipient: Address = '0x3333333333333333333333333333333333333333';
    const built = await buildReadyTransaction({
      allocator: SOLVER,
      chainId: 31001,
      depository: DEPOSITORY_ALPHA,
      currency: USDC,
      recipient,
      amount: 42n,
      expirationSec: 1_900_000_000n,
      nonce: `0x${'07'.repeat(32)}`,
    });
    expect(built.transaction).toMatchObject({ chainId: 31001, to: DEPOSITORY_ALPHA, value: '0' });
    const decoded = decodeFunctionData({ abi: depositoryExecuteAbi, data: built.transaction.data });
    if (decoded.functionName !== 'execute') throw new Error('not execute calldata');
    const [request, signature] = decoded.args;
    expect(request).toEqual({
      calls: [
        {
          to: getAddress(USDC),
          data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [recipient, 42n] }),
          value: 0n,
          allowFailure: false,
        },
      ],
      nonce: BigInt(`0x${'07'.repeat(32)}`),
      expiration: 1_900_000_000n,
    });
    const signer = await recoverTypedDataAddress({
      domain: depositoryDomain(31001, DEPOSITORY_ALPHA),
      types: CALL_REQUEST_TYPES,
      primaryType: 'CallRequest',
      message: request,
      signature,
    });
    expect(signer).toBe(SOLVER.address);

    const native = await buildReadyTransaction({
      allocator: SOLVER,
      chainId: 31001,
      depository: DEPOSITORY_ALPHA,
      currency: zeroAddress,
      recipient,
      amount: 9n,
      expirationSec: 1n,
      nonce: `0x${'08'.repeat(32)}`,
    });
    expect(native.request.calls).toEqual([{ to: recipient, data: '0x', value: 9n, allowFailure: false }]);
    expect(native.callRequestId).not.toBe(built.callRequestId);
  });
});
