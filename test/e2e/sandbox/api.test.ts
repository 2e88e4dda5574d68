/**
 * End-to-end: the sandbox API and solver on real anvil chains (one sandbox for the whole file). Quotes are
 * executed with viem from the treasury dev key exactly as their steps say.
 */
import { createWalletClient, erc20Abi, http, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ChainsResponseSchema,
  EvmTxDataSchema,
  IntentStatusSchema,
  QuoteResponseSchema,
  RequestsResponseSchema,
  type IntentStatus,
  type QuoteResponse,
} from '../../../src/relay/schemas.ts';
import { depositoryAbi } from '../../../src/protocol/depositoryAbi.ts';
import { startSandbox, type Sandbox } from '../../../src/sandbox/startSandbox.ts';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ faults: { fillDelayMs: 100 } });
});
afterAll(async () => {
  await sandbox?.stop();
});

const alpha = () => sandbox.chains[0]!;
const beta = () => sandbox.chains[1]!;
const treasury = () => sandbox.accounts.treasury;

async function quote(amount: string): Promise<QuoteResponse> {
  const res = await fetch(`${sandbox.apiUrl}/quote/v2`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      user: treasury().address,
      recipient: treasury().address,
      originChainId: alpha().def.chainId,
      destinationChainId: beta().def.chainId,
      originCurrency: alpha().usdc,
      destinationCurrency: beta().usdc,
      amount,
      tradeType: 'EXACT_INPUT',
      includeProtocolData: true,
    }),
  });
  expect(res.status).toBe(200);
  return QuoteResponseSchema.parse(await res.json());
}

/** Sends every step item from the treasury on alpha, waiting for each receipt; returns the last tx hash. */
async function execute(q: QuoteResponse): Promise<Hex> {
  const wallet = createWalletClient({ account: treasury(), chain: alpha().chain, transport: http(alpha().rpcUrl) });
  let last: Hex | undefined;
  for (const step of q.steps) {
    for (const item of step.items) {
      const d = EvmTxDataSchema.parse(item.data);
      const hash = await wallet.sendTransaction({
        to: d.to as Address, // schema checked a 20-byte hex address
        data: d.data as Hex, // schema checked hex
        value: BigInt(d.value),
        gas: d.gas === undefined ? undefined : BigInt(d.gas),
      });
      const receipt = await alpha().publicClient.waitForTransactionReceipt({ hash });
      expect(receipt.status).toBe('success');
      last = hash;
    }
  }
  if (!last) throw new Error('quote had no steps');
  return last;
}

async function status(requestId: string): Promise<IntentStatus> {
  const res = await fetch(`${sandbox.apiUrl}/intents/status/v3?requestId=${requestId}`);
  expect(res.status).toBe(200);
  return IntentStatusSchema.parse(await res.json());
}

async function waitForTerminal(requestId: string, timeoutMs = 10_000): Promise<IntentStatus> {
  const start = Date.now();
  for (;;) {
    const s = await status(requestId);
    if (['success', 'failure', 'refund'].includes(s.status)) return s;
    if (Date.now() - start > timeoutMs) throw new Error(`request ${requestId} still ${s.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const usdcOf = (chain: ReturnType<typeof alpha>, who: Address) =>
  chain.publicClient.readContract({ address: chain.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [who] });

describe('sandbox API on anvil', () => {
  it('GET /chains parses with ChainsResponseSchema and names the real depository and RPC', async () => {
    const body = ChainsResponseSchema.parse(await (await fetch(`${sandbox.apiUrl}/chains`)).json());
    expect(body.chains.map((c) => c.protocol?.v2?.depository?.toLowerCase())).toEqual([
      alpha().depository.toLowerCase(),
      beta().depository.toLowerCase(),
    ]);
    expect(body.chains[0]!.httpRpcUrl).toBe(alpha().rpcUrl);
  });

  it('a 1000 USDC alpha → beta quote, executed step by step, ends success and credits expectedAmount on beta', async () => {
    sandbox.resetFaults();
    sandbox.setFaults({ fillDelayMs: 100 });
    const q = await quote('1000000000');
    const payment = q.protocol!.v2!.orderData.output.payments[0]!;
    const expected = BigInt(payment.expectedAmount);
    expect(expected).toBeGreaterThanOrEqual(BigInt(payment.minimumAmount));
    const betaBefore = await usdcOf(beta(), treasury().address);
    const alphaBefore = await usdcOf(alpha(), treasury().address);
    const depositTx = await execute(q);
    const final = await waitForTerminal(q.requestId!);
    expect(final.status).toBe('success');
    expect(final.inTxHashes).toEqual([depositTx]);
    expect(final.txHashes).toHaveLength(1);
    expect((await usdcOf(beta(), treasury().address)) - betaBefore).toBe(expected);
    expect(alphaBefore - (await usdcOf(alpha(), treasury().address))).toBe(1_000_000_000n);
    const fill = await beta().publicClient.getTransactionReceipt({ hash: final.txHashes[0] as Hex });
    expect(fill.from.toLowerCase()).toBe(sandbox.accounts.solver.address.toLowerCase());

    const reqs = RequestsResponseSchema.parse(await (await fetch(`${sandbox.apiUrl}/requests/v3?id=${q.requestId}`)).json());
    expect(reqs.requests[0]).toMatchObject({ status: 'success', protocol: { isWithdrawable: false } });
    // re-indexing the same deposit is idempotent: found again, but not filled twice
    const idx = await fetch(`${sandbox.apiUrl}/transactions/index`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chainId: alpha().def.chainId, txHash: depositTx }),
    });
    expect(idx.status).toBe(200);
    expect(await idx.json()).toMatchObject({ deposits: 1 });
    expect((await status(q.requestId!)).txHashes).toEqual(final.txHashes);
    const unknown = await fetch(`${sandbox.apiUrl}/transactions/index`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chainId: alpha().def.chainId, txHash: `0x${'42'.repeat(32)}` }),
    });
    expect(unknown.status).toBe(404);
  });

  it('neverFill keeps the request pending after the deposit', async () => {
    sandbox.resetFaults();
    sandbox.setFaults({ neverFill: true, fillDelayMs: 0 });
    const q = await quote('5000000');
    const depositTx = await execute(q);
    let s = await status(q.requestId!);
    for (let i = 0; i < 20 && s.status === 'waiting'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      s = await status(q.requestId!);
    }
    await new Promise((r) => setTimeout(r, 800));
    s = await status(q.requestId!);
    expect(s.status).toBe('pending');
    expect(s.inTxHashes).toEqual([depositTx]);
    expect(s.txHashes).toEqual([]);
  });

  it('refund mode returns the USDC on alpha and ends refund', async () => {
    sandbox.resetFaults();
    sandbox.setFaults({ refund: true, fillDelayMs: 0 });
    const before = await usdcOf(alpha(), treasury().address);
    const betaBefore = await usdcOf(beta(), treasury().address);
    const q = await quote('7000000');
    await execute(q);
    const final = await waitForTerminal(q.requestId!);
    expect(final.status).toBe('refund');
    expect(await usdcOf(alpha(), treasury().address)).toBe(before);
    expect(await usdcOf(beta(), treasury().address)).toBe(betaBefore);
    const refundTx = await alpha().publicClient.getTransactionReceipt({ hash: final.txHashes[0] as Hex });
    expect(refundTx.to?.toLowerCase()).toBe(alpha().depository.toLowerCase());
  });

  it('failure mode ends failure and marks the deposit withdrawable; a deposit for an unknown order is returned', async () => {
    sandbox.resetFaults();
    sandbox.setFaults({ failure: true, fillDelayMs: 0 });
    const q = await quote('3000000');
    await execute(q);
    expect((await waitForTerminal(q.requestId!)).status).toBe('failure');
    const failed = RequestsResponseSchema.parse(await (await fetch(`${sandbox.apiUrl}/requests/v3?id=${q.requestId}`)).json());
    expect(failed.requests[0]!.protocol).toMatchObject({
      isWithdrawable: true,
      deposit: { origin: { depositor: treasury().address.toLowerCase(), chainId: 'alpha', amount: '3000000' } },
    });

    sandbox.resetFaults();
    const before = await usdcOf(alpha(), treasury().address);
    const wallet = createWalletClient({ account: treasury(), chain: alpha().chain, transport: http(alpha().rpcUrl) });
    const amount = 2_000_000n;
    const approve = await wallet.writeContract({ address: alpha().usdc, abi: erc20Abi, functionName: 'approve', args: [alpha().depository, amount] });
    await alpha().publicClient.waitForTransactionReceipt({ hash: approve });
    const stray = await wallet.writeContract({
      address: alpha().depository,
      abi: depositoryAbi,
      functionName: 'depositErc20',
      args: [treasury().address, alpha().usdc, amount, `0x${'99'.repeat(32)}`],
    });
    await alpha().publicClient.waitForTransactionReceipt({ hash: stray });
    let refunded: { id: string; status: string } | undefined;
    for (let i = 0; i < 50 && refunded?.status !== 'refund'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const all = RequestsResponseSchema.parse(
        await (await fetch(`${sandbox.apiUrl}/requests/v3?user=${treasury().address}&limit=50`)).json(),
      );
      refunded = all.requests.find((r) => (r.data as { inTxs?: { hash: string }[] }).inTxs?.[0]?.hash === stray);
    }
    expect(refunded?.status).toBe('refund');
    expect(await usdcOf(alpha(), treasury().address)).toBe(before);
  });

  it('a 429 burst answers with retry-after, then the API recovers; a bad request answers 400 with errorCode', async () => {
    sandbox.resetFaults();
    sandbox.setFaults({ httpErrors: { status: 429, count: 1 } });
    const limited = await fetch(`${sandbox.apiUrl}/chains`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(await limited.json()).toMatchObject({ errorCode: 'RATE_LIMITED' });
    expect((await fetch(`${sandbox.apiUrl}/chains`)).status).toBe(200);

    const bad = await fetch(`${sandbox.apiUrl}/quote/v2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: treasury().address, originChainId: 999, destinationChainId: beta().def.chainId, originCurrency: alpha().usdc, destinationCurrency: beta().usdc, amount: '1000000', tradeType: 'EXACT_INPUT' }),
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ errorCode: 'UNSUPPORTED_CHAIN' });
  });
});
