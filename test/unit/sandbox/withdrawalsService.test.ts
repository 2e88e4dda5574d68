/**
 * The sandbox withdrawal service in-process, over a hand-moved clock and a fake `callRequests` read: a Solana
 * owner's ed25519-signed withdrawal, Bitcoin refusals, nonce windows, job steps, 429 pacing, unknown and
 * evicted ids, expiry and execution of an EVM job, attest-deposit's 503 / idempotence, and a prepare that offers
 * less than asked (fault `withdrawalShortfall`).
 */
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import { pino } from 'pino';
import { bytesToHex, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { withdrawalDigest } from '../../../packages/protocol/src/protocol/withdrawalDigest.ts';
import { FaultState } from '../../../packages/sandbox/src/api/faultState.ts';
import { SandboxFaultsPatchSchema } from '../../../packages/sandbox/src/faults.ts';
import { RequestStore, type ObservedDeposit } from '../../../packages/sandbox/src/api/requestStore.ts';
import type { SandboxState } from '../../../packages/sandbox/src/api/state.ts';
import { SandboxApiError } from '../../../packages/sandbox/src/quote/errors.ts';
import { DEFAULT_SANDBOX_PRICING } from '../../../packages/sandbox/src/quote/fees.ts';
import { sandboxBitcoinChain, sandboxSolanaChain, SOLANA_CHAIN_ID } from '../../../packages/sandbox/src/quote/vmChains.ts';
import { createWithdrawalService, JOB_RETENTION_MS, offeredAmount } from '../../../packages/sandbox/src/withdrawals/service.ts';
import { NONCE_WINDOW_MS } from '../../../packages/sandbox/src/withdrawals/nonce.ts';
import { DEPOSITORY_ALPHA, PRICES, SOLVER, TABLE, USDC } from './quote/fixtures.ts';

const SOL = '11111111111111111111111111111111';
const BTC_OWNER = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
const STEP_MS = 1_000;
const MIN_POLL_MS = 500;
const READY_TTL_MS = 10_000;

/** A service over fake chains: alpha/beta (EVM), Solana and Bitcoin entries; `clock.now` is moved by hand. */
function rig() {
  const clock = { now: 61 * NONCE_WINDOW_MS };
  const chain = { executed: false };
  const programId = base58.encode(new Uint8Array(32).fill(7));
  const state: SandboxState = {
    chains: TABLE,
    prices: PRICES,
    pricing: DEFAULT_SANDBOX_PRICING,
    solver: SOLVER,
    apiKey: undefined,
    faults: new FaultState({}),
    requests: new RequestStore(),
    io: { feeData: async () => ({ maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }), balanceOf: async () => 0n },
    vm: {
      chains: [
        sandboxSolanaChain({
          rpcUrl: 'http://127.0.0.1:1',
          wsUrl: 'ws://127.0.0.1:1',
          depositoryProgramId: programId,
          usdcMint: base58.encode(new Uint8Array(32).fill(9)),
        }),
        sandboxBitcoinChain('http://127.0.0.1:2', BTC_OWNER),
      ],
      io: { balanceOf: async () => 0n, bitcoinCoins: async () => [], bitcoinFeeRate: async () => 1n },
      solverWallets: {},
      solanaQuoteLog: [],
    },
    indexer: null,
    logger: pino({ level: 'silent' }),
    nowMs: () => clock.now,
  };
  const service = createWithdrawalService({
    state,
    options: { stepMs: STEP_MS, minPollMs: MIN_POLL_MS, readyTtlMs: READY_TTL_MS },
    readCallRequest: async () => chain.executed,
  });
  /** A failed request holding `deposit` (withdrawable). */
  const failedDeposit = (deposit: ObservedDeposit) => {
    const r = state.requests.addUnmatchedDeposit(`0x${'5a'.repeat(32)}`, deposit, clock.now);
    state.requests.advance(r, 'failure', {}, clock.now);
    return r;
  };
  const poll = (id: string) => answer(service.status(new URLSearchParams({ id })));
  const balances = async () => (await answer(service.hubBalances())).body.balances;
  return { clock, chain, state, service, failedDeposit, poll, balances };
}

/** The HTTP answer of a service call: its result, or the error's status and body. */
async function answer(p: Promise<{ status: number; body: unknown }>): Promise<{ status: number; body: Record<string, unknown> }> {
  try {
    const r = await p;
    return { status: r.status, body: r.body as Record<string, unknown> }; // every service body is a JSON object
  } catch (error) {
    if (error instanceof SandboxApiError) return { status: error.status, body: error.toBody() };
    throw error;
  }
}

const evmDeposit = (from: string, amount: bigint, tx: Hex = `0x${'ee'.repeat(32)}`): ObservedDeposit => ({
  chainId: 31001,
  txHash: tx,
  logIndex: 0,
  blockNumber: 5n,
  from,
  currency: USDC,
  amount,
  id: `0x${'03'.repeat(32)}`,
  blockTimestamp: 1,
});

describe('withdrawal service', () => {
  it('a Solana owner withdraws with an ed25519 signature (a forged one is 400, a replay too); without a Solana transaction the job fails and gives the amount back', async () => {
    const r = rig();
    const secret = ed25519.utils.randomPrivateKey();
    const owner = base58.encode(ed25519.getPublicKey(secret));
    const depositTx = base58.encode(new Uint8Array(64).fill(1));
    r.failedDeposit({
      chainId: SOLANA_CHAIN_ID,
      txHash: depositTx,
      logIndex: 0,
      blockNumber: 9n,
      from: owner,
      currency: SOL,
      amount: 5_000_000n,
      id: `0x${'04'.repeat(32)}`,
      blockTimestamp: 1,
    });
    expect(await answer(r.service.attest({ chainId: SOLANA_CHAIN_ID, transactionId: depositTx }))).toEqual({
      status: 200,
      body: { success: true },
    });

    const fields = { chainId: 'solana', currency: SOL, amount: '5000000', ownerChainId: 'solana', owner, recipient: owner };
    const prep = await answer(r.service.request(fields));
    expect(prep).toEqual({ status: 200, body: { nonce: expect.stringMatching(/^0x[0-9a-f]{64}$/), amount: '5000000' } });
    const nonce = prep.body.nonce as string;
    const digest = withdrawalDigest({ ...fields, nonce });
    const sign = (key: Uint8Array): Hex => bytesToHex(ed25519.sign(new TextEncoder().encode(digest), key));

    const forged = await answer(r.service.request({ ...fields, nonce, signature: sign(ed25519.utils.randomPrivateKey()) }));
    expect(forged.status).toBe(400);
    expect(forged.body.message).toMatch(/^signature: .*ed25519/);
    const ok = await answer(r.service.request({ ...fields, nonce, signature: sign(secret) }));
    expect(ok).toEqual({ status: 200, body: { jobId: expect.any(String), status: 'processing' } });
    expect(await r.balances()).toEqual([{ chain: 'solana', owner, currency: SOL, amount: '0', locked: '5000000' }]);
    // While its job is in flight, the same request again learns that job (409), whatever it carries.
    const again = await answer(r.service.request({ ...fields, nonce, signature: sign(secret) }));
    expect(again).toEqual({
      status: 409,
      body: expect.objectContaining({ errorCode: 'WITHDRAWAL_IN_PROGRESS', existingJobId: ok.body.jobId }),
    });

    r.clock.now += 3 * STEP_MS;
    expect((await r.poll(ok.body.jobId as string)).body).toEqual({
      status: 'failed',
      reason: expect.stringMatching(/EVM withdrawal transactions only/),
    });
    expect(await r.balances()).toEqual([{ chain: 'solana', owner, currency: SOL, amount: '5000000', locked: '0' }]);
    const replay = await answer(r.service.request({ ...fields, nonce, signature: sign(secret) }));
    expect(replay.body.message).toMatch(/^nonce: /); // the signed request started a job: its nonce is spent
  });

  it('refuses Bitcoin as owner chain or withdrawal chain, and attest of a Bitcoin deposit, with a 400 saying so', async () => {
    const { service } = rig();
    const evm = { chainId: 'alpha', currency: USDC, amount: '1', ownerChainId: 'alpha', owner: SOLVER.address, recipient: SOLVER.address };
    for (const body of [
      { ...evm, ownerChainId: 'bitcoin', owner: BTC_OWNER },
      { ...evm, chainId: 'bitcoin', currency: 'bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8', recipient: BTC_OWNER },
    ]) {
      expect(await answer(service.request(body))).toEqual({
        status: 400,
        body: { message: expect.stringMatching(/^Bitcoin owners cannot withdraw/) },
      });
    }
    expect((await answer(service.attest({ chainId: 8253038, transactionId: 'ab'.repeat(32) }))).body.message).toMatch(
      /^Bitcoin owners cannot withdraw/,
    );
    const numeric = await answer(service.request({ ...evm, chainId: 31001, amount: '0', owner: 'not-an-address' }));
    expect(numeric.status).toBe(400);
    expect(numeric.body.message).toMatch(/chainId: expected the protocol chain slug/);
    const fields = await answer(service.request({ ...evm, amount: '0', owner: 'not-an-address' }));
    expect(fields.body.message).toMatch(/owner: "not-an-address".*; amount: must be above 0/);
  });

  it('attest answers 503 while the fault lasts, then credits once however often it is repeated; a nonce lives through the next window only', async () => {
    const r = rig();
    r.state.faults.set({ attestUnavailable: 2 });
    const owner = privateKeyToAccount(generatePrivateKey());
    r.failedDeposit(evmDeposit(owner.address.toLowerCase(), 7n));
    const attest = () => answer(r.service.attest({ chainId: 31001, transactionId: `0x${'EE'.repeat(32)}` }));
    expect(await attest()).toEqual({ status: 503, body: { message: expect.stringMatching(/not yet finalized/) } });
    expect((await attest()).status).toBe(503);
    expect(await attest()).toEqual({ status: 200, body: { success: true } });
    expect(await attest()).toEqual({ status: 200, body: { success: true } });
    expect(await r.balances()).toEqual([expect.objectContaining({ amount: '7', locked: '0' })]);

    const fields = { chainId: 'alpha', currency: USDC, amount: '7', ownerChainId: 'alpha', owner: owner.address, recipient: owner.address };
    const nonce = (await answer(r.service.request(fields))).body.nonce as string;
    const signed = {
      ...fields,
      nonce,
      signature: await owner.signMessage({ message: { raw: `0x${withdrawalDigest({ ...fields, nonce })}` } }),
    };
    r.clock.now += 2 * NONCE_WINDOW_MS;
    expect((await answer(r.service.request(signed))).body.message).toMatch(/^nonce: stale/);
    r.clock.now -= NONCE_WINDOW_MS; // the window right after the one it was issued in
    expect((await answer(r.service.request(signed))).status).toBe(200);
  });
});

describe('withdrawal jobs over time', () => {
  /** An EVM owner with `amount` USDC attested on alpha; `withdraw` prepares, signs and executes. */
  async function evmOwner(r: ReturnType<typeof rig>, amount: bigint) {
    const owner = privateKeyToAccount(generatePrivateKey());
    r.failedDeposit(evmDeposit(owner.address.toLowerCase(), amount));
    expect((await answer(r.service.attest({ chainId: 31001, transactionId: `0x${'ee'.repeat(32)}` }))).status).toBe(200);
    const withdraw = async (part: bigint) => {
      const fields = {
        chainId: 'alpha',
        currency: USDC,
        amount: part.toString(),
        ownerChainId: 'alpha',
        owner: owner.address,
        recipient: owner.address,
      };
      const nonce = (await answer(r.service.request(fields))).body.nonce as string;
      return answer(
        r.service.request({
          ...fields,
          nonce,
          signature: await owner.signMessage({ message: { raw: `0x${withdrawalDigest({ ...fields, nonce })}` } }),
        }),
      );
    };
    return { owner, withdraw };
  }

  it('steps one per stepMs to ready, 429 when polled sooner than minPollMs, 409 for a second job, executed once the depository marks the request', async () => {
    const r = rig();
    const o = await evmOwner(r, 100n);
    const first = await o.withdraw(60n);
    const jobId = first.body.jobId as string;
    const seen: unknown[] = [];
    for (let i = 0; i < 4; i++) {
      seen.push((await r.poll(jobId)).body.status);
      r.clock.now += MIN_POLL_MS - 1;
      expect(await r.poll(jobId)).toEqual({ status: 429, body: { message: expect.stringContaining(`${MIN_POLL_MS} ms`) } });
      r.clock.now += STEP_MS - (MIN_POLL_MS - 1);
    }
    expect(seen).toEqual(['processing', 'initiating', 'attesting', 'ready']);
    const ready = await r.poll(jobId);
    expect(ready.body).toMatchObject({
      status: 'ready',
      transaction: { chainId: 31001, to: DEPOSITORY_ALPHA, data: expect.stringMatching(/^0x/), value: '0' },
    });

    const second = await o.withdraw(40n);
    expect(second).toEqual({
      status: 409,
      body: { message: expect.any(String), errorCode: 'WITHDRAWAL_IN_PROGRESS', existingJobId: jobId },
    });
    expect(await r.balances()).toEqual([expect.objectContaining({ amount: '40', locked: '60' })]);

    r.chain.executed = true;
    r.clock.now += MIN_POLL_MS;
    expect((await r.poll(jobId)).body).toEqual({ status: 'executed' });
    expect(await r.balances()).toEqual([expect.objectContaining({ amount: '40', locked: '0' })]);

    // kept 24 hours, then the id reads as unknown: processing
    r.clock.now += JOB_RETENTION_MS;
    expect((await r.poll(jobId)).body).toEqual({ status: 'processing' });
    expect((await r.poll('never-issued')).body).toEqual({ status: 'processing' });
  });

  it('a ready job left unexecuted past readyTtlMs expires; the withdrawalFail fault fails a job; both give the amount back', async () => {
    const r = rig();
    const o = await evmOwner(r, 50n);
    const job = (await o.withdraw(50n)).body.jobId as string;
    r.clock.now += 3 * STEP_MS;
    expect((await r.poll(job)).body.status).toBe('ready');
    r.clock.now += READY_TTL_MS - 1_000;
    expect((await r.poll(job)).body.status).toBe('ready');
    r.clock.now += 2_000;
    expect((await r.poll(job)).body).toEqual({ status: 'expired' });
    expect(await r.balances()).toEqual([expect.objectContaining({ amount: '50', locked: '0' })]);

    r.state.faults.set({ withdrawalFail: 1 });
    const failing = (await o.withdraw(50n)).body.jobId as string;
    expect(r.state.faults.get().withdrawalFail).toBe(0);
    r.clock.now += 3 * STEP_MS;
    expect((await r.poll(failing)).body).toEqual({ status: 'failed', reason: expect.stringMatching(/withdrawalFail/) });
    expect(await r.balances()).toEqual([expect.objectContaining({ amount: '50', locked: '0' })]);
  });

  it('the withdrawalShortfall fault makes prepare offer less; the rest stays in the hub and is offered once the fault is cleared', async () => {
    expect(offeredAmount(100n, null)).toBe(100n);
    expect(offeredAmount(100n, '30')).toBe(70n);
    expect(offeredAmount(30n, '30')).toBe(0n);
    expect(SandboxFaultsPatchSchema.safeParse({ withdrawalShortfall: '-1' }).success).toBe(false);
    expect(SandboxFaultsPatchSchema.safeParse({ withdrawalShortfall: 30 }).success).toBe(false);
    expect(SandboxFaultsPatchSchema.safeParse({ withdrawalShortfall: '30' }).success).toBe(true);

    const r = rig();
    const owner = privateKeyToAccount(generatePrivateKey());
    r.failedDeposit(evmDeposit(owner.address.toLowerCase(), 100n));
    expect((await answer(r.service.attest({ chainId: 31001, transactionId: `0x${'ee'.repeat(32)}` }))).status).toBe(200);
    r.state.faults.set({ withdrawalShortfall: '30' });
    const prepare = async (amount: bigint) => {
      const fields = {
        chainId: 'alpha',
        currency: USDC,
        amount: amount.toString(),
        ownerChainId: 'alpha',
        owner: owner.address,
        recipient: owner.address,
      };
      return { fields, body: (await answer(r.service.request(fields))).body as { nonce: string; amount: string } };
    };
    const first = await prepare(100n);
    expect(first.body.amount).toBe('70');
    const signed = { ...first.fields, amount: first.body.amount, nonce: first.body.nonce };
    const job = await answer(
      r.service.request({ ...signed, signature: await owner.signMessage({ message: { raw: `0x${withdrawalDigest(signed)}` } }) }),
    );
    expect(job.status).toBe(200);
    expect(await r.balances()).toEqual([expect.objectContaining({ amount: '30', locked: '70' })]);
    r.clock.now += 3 * STEP_MS;
    expect((await r.poll(job.body.jobId as string)).body.status).toBe('ready');
    r.chain.executed = true;
    r.clock.now += MIN_POLL_MS;
    expect((await r.poll(job.body.jobId as string)).body).toEqual({ status: 'executed' });
    expect(await r.balances()).toEqual([expect.objectContaining({ amount: '30', locked: '0' })]);
    expect((await prepare(30n)).body.amount).toBe('0');
    r.state.faults.set({ withdrawalShortfall: null });
    expect((await prepare(30n)).body.amount).toBe('30');
  });
});
