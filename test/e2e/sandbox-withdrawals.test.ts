/**
 * End-to-end: the sandbox's withdrawal endpoints (docs/relay-contract.md "Withdrawal endpoints", "Withdrawal job status") on
 * real anvil chains, driven over HTTP with a viem wallet (the treasury dev key) acting as the owner: a deposit the
 * solver never fills (USDC) and one whose fill fails (native ETH) are attested into the hub, withdrawn with an
 * owner-signed request, and the `ready` transaction is broadcast through the depository's allocator-signed
 * `execute`.
 */
import {
  BaseError,
  ContractFunctionRevertedError,
  createWalletClient,
  decodeFunctionData,
  erc20Abi,
  http,
  parseAbi,
  parseEventLogs,
  zeroAddress,
  type Address,
  type Hex,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depositoryExecuteAbi } from '../../packages/protocol/src/protocol/depositoryExecute.ts';
import { withdrawalDigest, type WithdrawalRequestFields } from '../../packages/protocol/src/protocol/withdrawalDigest.ts';
import { EvmTxDataSchema, QuoteResponseSchema, type QuoteResponse } from '../../packages/protocol/src/relay/schemas.ts';
import type { SandboxAccount } from '../../packages/sandbox/src/chains/localChains.ts';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';

const MIN_POLL_MS = 300;
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({
    bitcoin: true,
    faults: { fillDelayMs: 0 },
    withdrawals: { stepMs: 100, minPollMs: MIN_POLL_MS, readyTtlMs: 120_000 },
  });
});
afterAll(async () => {
  await sandbox?.stop();
});

const alpha = () => sandbox.chains[0]!;
const beta = () => sandbox.chains[1]!;
const treasury = () => sandbox.accounts.treasury;
const walletOf = (account: SandboxAccount) => createWalletClient({ account, chain: alpha().chain, transport: http(alpha().rpcUrl) });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Json = Record<string, unknown>;

async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${sandbox.apiUrl}${path}`, {
    method,
    ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json()) as Json }; // the sandbox answers JSON objects
}

/** Polls `read` until `done` holds; fails after a generous deadline. */
async function pollUntil<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, everyMs = 100, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(v)} after ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

/** Quotes alpha → beta from the treasury and executes every step; returns the request id and deposit tx. */
async function depositThroughQuote(
  currency: 'usdc' | 'eth',
  amount: bigint,
): Promise<{ requestId: string; tx: Hex; quote: QuoteResponse }> {
  const token = (c: ReturnType<typeof alpha>) => (currency === 'usdc' ? c.usdc : zeroAddress);
  const { status, json } = await call('POST', '/quote/v2', {
    user: treasury().address,
    recipient: treasury().address,
    originChainId: alpha().def.chainId,
    destinationChainId: beta().def.chainId,
    originCurrency: token(alpha()),
    destinationCurrency: token(beta()),
    amount: amount.toString(),
    tradeType: 'EXACT_INPUT',
    includeProtocolData: true,
  });
  expect(status, JSON.stringify(json)).toBe(200);
  const quote = QuoteResponseSchema.parse(json);
  let tx: Hex | undefined;
  for (const item of quote.steps.flatMap((s) => s.items)) {
    const d = EvmTxDataSchema.parse(item.data);
    tx = await walletOf(treasury()).sendTransaction({ to: d.to as Address, data: d.data as Hex, value: BigInt(d.value) }); // schema checked hex
    expect((await alpha().publicClient.waitForTransactionReceipt({ hash: tx })).status).toBe('success');
  }
  return { requestId: quote.requestId!, tx: tx!, quote };
}

type Protocol = {
  isWithdrawable: boolean;
  deposit?: { origin: { depositor: string; chainId: number; currency: string; amount: string; transactionId: string } };
};
const record = async (requestId: string): Promise<{ status: string; protocol: Protocol }> => {
  const { json } = await call('GET', `/requests/v3?id=${requestId}`);
  return (json.requests as { status: string; protocol: Protocol }[])[0]!; // one record per id
};
const hub = async (owner: Address, currency: Address): Promise<{ amount: string; locked: string } | undefined> => {
  const { json } = await call('GET', '/_sandbox/hub-balances');
  const all = json.balances as { chain: string; owner: string; currency: string; amount: string; locked: string }[];
  return all.find((b) => b.chain === 'alpha' && b.owner === owner.toLowerCase() && b.currency === currency.toLowerCase());
};
const attest = (tx: string) => call('POST', '/withdrawals/attest-deposit', { chainId: alpha().def.chainId, transactionId: tx });

const fieldsFor = (owner: Address, currency: Address, amount: bigint): WithdrawalRequestFields => ({
  chainId: 'alpha',
  currency,
  amount: amount.toString(),
  ownerChainId: 'alpha',
  owner,
  recipient: owner,
});

/** Prepare, sign the digest as an EIP-191 message over its raw bytes, execute. */
async function withdraw(signer: SandboxAccount, fields: WithdrawalRequestFields, over: { nonce?: string } = {}) {
  const prep = await call('POST', '/withdrawals/request', fields);
  expect(prep.status, JSON.stringify(prep.json)).toBe(200);
  expect(prep.json.amount).toBe(fields.amount);
  const nonce = over.nonce ?? (prep.json.nonce as string);
  const digest = withdrawalDigest({ ...fields, amount: prep.json.amount as string, nonce });
  const signature = await walletOf(signer).signMessage({ message: { raw: `0x${digest}` } });
  return call('POST', '/withdrawals/request', { ...fields, nonce, signature });
}

type JobStatus = { status: string; reason?: string; transaction?: { chainId: number; to: Address; data: Hex; value: string } };
const jobStatus = async (id: string): Promise<JobStatus> => {
  const r = await call('GET', `/withdrawals/status?id=${id}`);
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json as JobStatus;
};
/** Polls a job no faster than the sandbox allows (the first read too: the previous poll may be recent). */
const pollJob = (id: string, done: (s: JobStatus) => boolean, seen: string[] = []) =>
  pollUntil(
    `job ${id}`,
    async () => {
      await sleep(MIN_POLL_MS + 30);
      const s = await jobStatus(id);
      if (seen.at(-1) !== s.status) seen.push(s.status);
      return s;
    },
    done,
    0,
  );

const usdcOf = (who: Address) =>
  alpha().publicClient.readContract({ address: alpha().usdc, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
const ethOf = (who: Address) => alpha().publicClient.getBalance({ address: who });
const revertsWith = parseAbi(['error CallRequestExpired()', 'error CallRequestAlreadyUsed()', 'error InvalidSignature()']);

/** The request and allocator signature of `execute` calldata. */
function decodeExecute(data: Hex) {
  const decoded = decodeFunctionData({ abi: depositoryExecuteAbi, data });
  if (decoded.functionName !== 'execute') throw new Error(`expected execute calldata, got ${decoded.functionName}`);
  return decoded.args;
}

/** The depository error a `ready` transaction reverts with now, or null when it would succeed. */
async function simulatedError(tx: { to: Address; data: Hex }): Promise<string | null> {
  try {
    await alpha().publicClient.simulateContract({
      account: treasury().address,
      address: tx.to,
      abi: [...depositoryExecuteAbi, ...revertsWith],
      functionName: 'execute',
      args: decodeExecute(tx.data),
    });
    return null;
  } catch (error) {
    const reverted = error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null;
    return reverted instanceof ContractFunctionRevertedError ? (reverted.data?.errorName ?? 'unknown') : String(error);
  }
}

describe('sandbox withdrawals over HTTP', () => {
  it('neverFill USDC deposit: attest (503, then 200, idempotent), prepare, sign, execute, ready, broadcast → executed, USDC back', async () => {
    sandbox.resetFaults();
    sandbox.setFaults({ neverFill: true, fillDelayMs: 0 });
    const owner = treasury().address;
    const amount = 12_000_000n;
    const { requestId, tx } = await depositThroughQuote('usdc', amount);
    await pollUntil(
      'deposit indexed',
      () => record(requestId),
      (r) => r.status === 'pending',
    );
    const pending = await record(requestId);
    expect(pending.protocol).toMatchObject({
      isWithdrawable: false,
      deposit: {
        origin: {
          depositor: owner.toLowerCase(),
          chainId: alpha().def.chainId,
          currency: alpha().usdc.toLowerCase(),
          amount: amount.toString(),
          transactionId: tx,
        },
      },
    });
    const early = await attest(tx);
    expect(early.status).toBe(400); // still waiting for its fill: terminal for now
    expect(early.json.message).toMatch(/not withdrawable/);

    sandbox.setFaults({ unfilledWithdrawableAfterMs: 0, attestUnavailable: 1 });
    expect((await record(requestId)).protocol.isWithdrawable).toBe(true);
    const unavailable = await attest(tx);
    expect(unavailable).toMatchObject({ status: 503, json: { message: expect.stringMatching(/not yet finalized/) } });
    expect(await attest(tx)).toEqual({ status: 200, json: { success: true } });
    expect(await attest(tx)).toEqual({ status: 200, json: { success: true } }); // idempotent
    expect(await hub(owner, alpha().usdc)).toEqual(expect.objectContaining({ amount: amount.toString(), locked: '0' }));
    expect((await record(requestId)).protocol.isWithdrawable).toBe(false);

    const before = await usdcOf(owner);
    const heldBefore = await usdcOf(alpha().depository);
    const fields = fieldsFor(owner, alpha().usdc, amount);
    const executed = await withdraw(treasury(), fields);
    expect(executed.status, JSON.stringify(executed.json)).toBe(200);
    expect(executed.json).toEqual({ jobId: expect.any(String), status: 'processing' });
    const jobId = executed.json.jobId as string;
    expect(await hub(owner, alpha().usdc)).toEqual(expect.objectContaining({ amount: '0', locked: amount.toString() }));

    const again = await call('POST', '/withdrawals/request', fields);
    expect(again.status).toBe(400); // the whole amount is locked by the job in flight
    expect(again.json.message).toMatch(/above the available hub balance 0/);

    const seen: string[] = [];
    const ready = await pollJob(jobId, (s) => s.status === 'ready', seen);
    expect(['processing', 'initiating', 'attesting', 'ready'].filter((s) => seen.includes(s))).toEqual(seen); // in order, none foreign
    const t = ready.transaction!;
    expect(t).toMatchObject({ chainId: alpha().def.chainId, to: alpha().depository.toLowerCase(), value: '0' });
    const [request] = decodeExecute(t.data);
    expect(request.calls).toHaveLength(1);
    expect(request.calls[0]).toMatchObject({ to: alpha().usdc, value: 0n, allowFailure: false });

    const hash = await walletOf(treasury()).sendTransaction({ to: t.to, data: t.data, value: BigInt(t.value) });
    const receipt = await alpha().publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    expect(parseEventLogs({ abi: depositoryExecuteAbi, logs: receipt.logs, eventName: 'RelayCallExecuted' })).toHaveLength(1);
    expect((await usdcOf(owner)) - before).toBe(amount);
    expect(heldBefore - (await usdcOf(alpha().depository))).toBe(amount);
    expect((await pollJob(jobId, (s) => s.status === 'executed')).transaction).toBeUndefined();
    expect(await hub(owner, alpha().usdc)).toEqual(expect.objectContaining({ amount: '0', locked: '0' }));

    // the same call request again: the depository refuses the replay
    expect(await simulatedError(t)).toBe('CallRequestAlreadyUsed');
    const replay = await walletOf(treasury()).sendTransaction({ to: t.to, data: t.data, gas: 300_000n });
    expect((await alpha().publicClient.waitForTransactionReceipt({ hash: replay })).status).toBe('reverted');
    expect((await usdcOf(owner)) - before).toBe(amount);
  });

  it('failed native ETH deposit: withdrawable at once; the ready transaction returns the ETH; a second execute meanwhile is 409', async () => {
    sandbox.resetFaults();
    sandbox.setFaults({ failure: true, fillDelayMs: 0 });
    const owner = treasury().address;
    const amount = 30_000_000_000_000_000n; // 0.03 ETH
    const { requestId, tx } = await depositThroughQuote('eth', amount);
    await pollUntil(
      'failed fill',
      () => record(requestId),
      (r) => r.status === 'failure',
    );
    expect((await record(requestId)).protocol).toMatchObject({
      isWithdrawable: true,
      deposit: { origin: { currency: zeroAddress, amount: amount.toString() } },
    });
    expect((await attest(tx)).status).toBe(200);

    const half = amount / 2n;
    const first = await withdraw(treasury(), fieldsFor(owner, zeroAddress, half));
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    const jobId = first.json.jobId as string;
    const conflict = await withdraw(treasury(), fieldsFor(owner, zeroAddress, half));
    expect(conflict).toEqual({
      status: 409,
      json: { message: expect.any(String), errorCode: 'WITHDRAWAL_IN_PROGRESS', existingJobId: jobId },
    });
    expect(await hub(owner, zeroAddress)).toEqual(expect.objectContaining({ amount: half.toString(), locked: half.toString() }));

    const t = (await pollJob(jobId, (s) => s.status === 'ready')).transaction!;
    expect(decodeExecute(t.data)[0].calls).toEqual([{ to: owner, data: '0x', value: half, allowFailure: false }]);
    const before = await ethOf(owner);
    const hash = await walletOf(treasury()).sendTransaction({ to: t.to, data: t.data, value: 0n });
    const receipt = await alpha().publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    expect((await ethOf(owner)) - before).toBe(half - receipt.gasUsed * receipt.effectiveGasPrice);
    expect((await pollJob(jobId, (s) => s.status === 'executed')).status).toBe('executed');
    expect(await hub(owner, zeroAddress)).toEqual(expect.objectContaining({ amount: half.toString(), locked: '0' }));
  });

  it('refusals: bad signature, unknown nonce, amount above the hub, Bitcoin owner, malformed fields; 429 on fast polling', async () => {
    sandbox.resetFaults();
    sandbox.setFaults({ failure: true, fillDelayMs: 0 });
    const owner = treasury().address;
    const amount = 5_000_000n;
    const { requestId, tx } = await depositThroughQuote('usdc', amount);
    await pollUntil(
      'failed fill',
      () => record(requestId),
      (r) => r.status === 'failure',
    );
    expect((await attest(tx)).status).toBe(200);
    const available = BigInt((await hub(owner, alpha().usdc))!.amount);
    const fields = fieldsFor(owner, alpha().usdc, available);

    const stranger = await withdraw(sandbox.accounts.extra[0]!, fields);
    expect(stranger.status).toBe(400);
    expect(stranger.json.message).toMatch(/^signature: /);
    const staleNonce = await withdraw(treasury(), fields, { nonce: `0x${'ab'.repeat(32)}` });
    expect(staleNonce.status).toBe(400);
    expect(staleNonce.json.message).toMatch(/^nonce: /);
    const tooMuch = await call('POST', '/withdrawals/request', { ...fields, amount: (available + 1n).toString() });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.json.message).toMatch(/above the available hub balance/);
    const btc = sandbox.bitcoin!.treasury.address;
    const bitcoin = await call('POST', '/withdrawals/request', { ...fields, ownerChainId: 'bitcoin', owner: btc });
    expect(bitcoin).toEqual({ status: 400, json: { message: expect.stringMatching(/Bitcoin owners cannot withdraw/) } });
    const malformed = await call('POST', '/withdrawals/request', { ...fields, chainId: alpha().def.chainId, recipient: 'nobody' });
    expect(malformed.status).toBe(400);
    expect(malformed.json.message).toMatch(/chainId: .*slug/);
    const badRecipient = await call('POST', '/withdrawals/request', { ...fields, recipient: 'nobody' });
    expect(badRecipient.json.message).toMatch(/recipient: "nobody"/);
    const notDeposit = await attest(`0x${'42'.repeat(32)}`);
    expect(notDeposit.status).toBe(400);
    expect(await hub(owner, alpha().usdc)).toEqual(expect.objectContaining({ amount: available.toString(), locked: '0' })); // nothing moved

    expect((await call('GET', '/withdrawals/status?id=no-such-job')).json).toEqual({ status: 'processing' });
    const tooFast = await call('GET', '/withdrawals/status?id=no-such-job');
    expect(tooFast).toEqual({ status: 429, json: { message: expect.stringContaining(`${MIN_POLL_MS} ms`) } });
  });

  it('failed and expired jobs give the amount back to the hub', async () => {
    sandbox.resetFaults();
    sandbox.setFaults({ failure: true, fillDelayMs: 0 });
    const owner = treasury().address;
    const { requestId, tx } = await depositThroughQuote('usdc', 4_000_000n);
    await pollUntil(
      'failed fill',
      () => record(requestId),
      (r) => r.status === 'failure',
    );
    expect((await attest(tx)).status).toBe(200);
    const available = (await hub(owner, alpha().usdc))!.amount;
    const fields = fieldsFor(owner, alpha().usdc, BigInt(available));

    sandbox.setFaults({ withdrawalFail: 1 });
    const failing = await withdraw(treasury(), fields);
    expect(failing.status, JSON.stringify(failing.json)).toBe(200);
    expect(await hub(owner, alpha().usdc)).toEqual(expect.objectContaining({ amount: '0', locked: available }));
    const failed = await pollJob(
      failing.json.jobId as string,
      (s) => s.status !== 'processing' && s.status !== 'initiating' && s.status !== 'attesting',
    );
    expect(failed).toEqual({ status: 'failed', reason: expect.any(String) });
    expect(await hub(owner, alpha().usdc)).toEqual(expect.objectContaining({ amount: available, locked: '0' }));

    sandbox.setFaults({ withdrawalExpire: 1 });
    const expiring = await withdraw(treasury(), fields); // the nonce moved on: the earlier signature is spent
    expect(expiring.status, JSON.stringify(expiring.json)).toBe(200);
    const expired = await pollJob(
      expiring.json.jobId as string,
      (s) => s.status !== 'processing' && s.status !== 'initiating' && s.status !== 'attesting',
    );
    expect(expired).toEqual({ status: 'expired' });
    expect(await hub(owner, alpha().usdc)).toEqual(expect.objectContaining({ amount: available, locked: '0' }));
  });

  it('the solver does not fill an attested deposit once its fill delay is over; a later deposit under the same faults fills', async () => {
    sandbox.resetFaults();
    sandbox.setFaults({ fillDelayMs: 2_500, unfilledWithdrawableAfterMs: 0 });
    const owner = treasury().address;
    const betaBefore = await beta().publicClient.readContract({
      address: beta().usdc,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [owner],
    });
    const hubBefore = BigInt((await hub(owner, alpha().usdc))?.amount ?? '0');
    const attested = await depositThroughQuote('usdc', 6_000_000n);
    await pollUntil(
      'deposit indexed',
      () => record(attested.requestId),
      (r) => r.status === 'pending',
    );
    expect((await attest(attested.tx)).status).toBe(200);
    expect(await hub(owner, alpha().usdc)).toEqual(expect.objectContaining({ amount: (hubBefore + 6_000_000n).toString() }));
    const control = await depositThroughQuote('usdc', 7_000_000n);
    await pollUntil(
      'control fill',
      () => record(control.requestId),
      (r) => r.status === 'success',
      200,
    );
    // the attested deposit's delay started earlier and is over: its fill would have come first
    const kept = await record(attested.requestId);
    expect(kept.status).toBe('pending');
    expect(kept.protocol.isWithdrawable).toBe(false);
    const { json } = await call('GET', `/intents/status/v3?requestId=${attested.requestId}`);
    expect(json.txHashes).toEqual([]);
    const betaAfter = await beta().publicClient.readContract({
      address: beta().usdc,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [owner],
    });
    expect(betaAfter - betaBefore).toBe(BigInt(control.quote.protocol!.v2!.orderData.output.payments[0]!.expectedAmount));

    // lifting every fault and re-indexing the deposit does not fill it either
    sandbox.resetFaults();
    expect((await call('POST', '/transactions/index', { chainId: alpha().def.chainId, txHash: attested.tx })).status).toBe(200);
    await sleep(500);
    expect((await record(attested.requestId)).status).toBe('pending');
    expect(await hub(owner, alpha().usdc)).toEqual(expect.objectContaining({ amount: (hubBefore + 6_000_000n).toString(), locked: '0' }));
  });
});
