/**
 * End-to-end: the sandbox API and solver on real anvil chains (one sandbox for the whole file). Quotes are
 * executed with viem from the treasury dev key exactly as their steps say.
 */
import { createWalletClient, encodeFunctionData, erc20Abi, http, pad, zeroAddress, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ChainLiquidityResponseSchema,
  ChainsResponseSchema,
  EvmTxDataSchema,
  IntentStatusSchema,
  QuoteResponseSchema,
  RequestsResponseSchema,
  type IntentStatus,
  type QuoteResponse,
} from '../../../packages/protocol/src/relay/schemas.ts';
import { depositoryAbi } from '../../../packages/protocol/src/protocol/depositoryAbi.ts';
import type { SandboxAccount } from '../../../packages/sandbox/src/chains/localChains.ts';
import { relayRouterAbi } from '../../../packages/sandbox/src/contracts/abis.ts';
import { startSandbox, type Sandbox } from '../../../packages/sandbox/src/startSandbox.ts';

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

/** Quotes `amount` base units alpha → beta (USDC → USDC unless the tokens are given). */
async function quote(
  amount: string,
  tokens: { in?: 'usdc' | 'usdt'; out?: 'usdc' | 'usdt' } = {},
  extra: { refundTo?: string; referrer?: string } = {},
): Promise<QuoteResponse> {
  const res = await fetch(`${sandbox.apiUrl}/quote/v2`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      user: treasury().address,
      recipient: treasury().address,
      originChainId: alpha().def.chainId,
      destinationChainId: beta().def.chainId,
      originCurrency: alpha()[tokens.in ?? 'usdc'],
      destinationCurrency: beta()[tokens.out ?? 'usdc'],
      amount,
      tradeType: 'EXACT_INPUT',
      includeProtocolData: true,
      ...extra,
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
  return IntentStatusSchema.parse(await rawStatus(requestId));
}

/** The status record as served, unparsed (Ballast's schema does not know `delayed`). */
async function rawStatus(requestId: string): Promise<{ status: string; failReason: string; refundFailReason: string; txHashes: string[] }> {
  const res = await fetch(`${sandbox.apiUrl}/intents/status/v3?requestId=${requestId}`);
  expect(res.status).toBe(200);
  return (await res.json()) as { status: string; failReason: string; refundFailReason: string; txHashes: string[] }; // the sandbox's status record
}

/** The GET /requests/v3 record of a request id. */
async function requestRecord(requestId: string): Promise<RequestView> {
  const reqs = RequestsResponseSchema.parse(await (await fetch(`${sandbox.apiUrl}/requests/v3?id=${requestId}`)).json());
  expect(reqs.requests).toHaveLength(1);
  return reqs.requests[0]!;
}

/** Polls `read` every 100 ms until `done` holds; fails after a generous deadline (slow CI machines). */
async function pollUntil<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(v)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const waitForTerminal = (requestId: string): Promise<IntentStatus> =>
  pollUntil(
    `request ${requestId}`,
    () => status(requestId),
    (s) => ['success', 'failure', 'refund'].includes(s.status),
  );

type RequestView = { id: string; status: string; refundTo?: unknown; data?: unknown; protocol?: unknown };

/** The GET /requests/v3 record (by user) whose first deposit tx is `txHash`, once it is terminal. */
const requestOfDeposit = (user: Address, txHash: Hex): Promise<RequestView | undefined> =>
  pollUntil(
    `request of deposit ${txHash}`,
    async () => {
      const all = RequestsResponseSchema.parse(await (await fetch(`${sandbox.apiUrl}/requests/v3?user=${user}&limit=50`)).json());
      return all.requests.find((r) => (r.data as { inTxs?: { txHash: string }[] }).inTxs?.[0]?.txHash === txHash);
    },
    (r) => r !== undefined && ['success', 'failure', 'refund'].includes(r.status),
  );

/** The solver's USDC on beta as GET /chains/liquidity reports it. */
async function solverUsdcLiquidity(): Promise<bigint> {
  const res = await fetch(`${sandbox.apiUrl}/chains/liquidity?chainId=${beta().def.chainId}`);
  expect(res.status).toBe(200);
  const { liquidity } = ChainLiquidityResponseSchema.parse(await res.json());
  const usdc = liquidity.find((e) => e.address.toLowerCase() === beta().usdc.toLowerCase());
  expect(usdc).toMatchObject({ chainId: beta().def.chainId, symbol: 'USDC', decimals: 6 });
  return BigInt(usdc!.balance); // toMatchObject checked it is there
}

/** Approves and deposits `amount` USDC on alpha from `account` under order id `id`; returns the deposit tx. */
async function rawDeposit(account: SandboxAccount, amount: bigint, id: Hex): Promise<Hex> {
  const wallet = createWalletClient({ account, chain: alpha().chain, transport: http(alpha().rpcUrl) });
  const approve = await wallet.writeContract({
    address: alpha().usdc,
    abi: erc20Abi,
    functionName: 'approve',
    args: [alpha().depository, amount],
  });
  await alpha().publicClient.waitForTransactionReceipt({ hash: approve });
  const hash = await wallet.writeContract({
    address: alpha().depository,
    abi: depositoryAbi,
    functionName: 'depositErc20',
    args: [account.address, alpha().usdc, amount, id],
  });
  expect((await alpha().publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
  return hash;
}

const usdcOf = (chain: ReturnType<typeof alpha>, who: Address) =>
  chain.publicClient.readContract({ address: chain.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
const usdtOf = (chain: ReturnType<typeof alpha>, who: Address) =>
  chain.publicClient.readContract({ address: chain.usdt, abi: erc20Abi, functionName: 'balanceOf', args: [who] });

describe('sandbox API on anvil', () => {
  it('GET /chains names the real depository, RPC, USDC and USDT, and every listed contract is deployed on its chain', async () => {
    const body = ChainsResponseSchema.parse(await (await fetch(`${sandbox.apiUrl}/chains`)).json());
    expect(body.chains.map((c) => c.protocol?.v2?.depository?.toLowerCase())).toEqual([
      alpha().depository.toLowerCase(),
      beta().depository.toLowerCase(),
    ]);
    expect(body.chains[0]!.httpRpcUrl).toBe(alpha().rpcUrl);
    for (const [i, chain] of [alpha(), beta()].entries()) {
      const listed = body.chains[i]!;
      expect(listed.erc20Currencies!.map((c) => [c.symbol, c.address.toLowerCase(), c.decimals])).toEqual([
        ['USDC', chain.usdc.toLowerCase(), 6],
        ['USDT', chain.usdt.toLowerCase(), 6],
      ]);
      type Pair = { erc20Router: Address; approvalProxy: Address };
      const contracts = listed.contracts as { multicall3: Address; erc20Router: Address; approvalProxy: Address; v3: Pair; 'v3.2': Pair }; // sandbox document shape
      expect(Object.keys(contracts).sort()).toEqual(['approvalProxy', 'erc20Router', 'multicall3', 'v3', 'v3.2']);
      expect(contracts.erc20Router.toLowerCase()).toBe(chain.erc20Router.toLowerCase());
      expect(contracts.v3.erc20Router.toLowerCase()).toBe(chain.v3.erc20Router.toLowerCase());
      // Router 3.2: the top-level pair is the 3.2 pair (since 2026-10-26); v3 keeps the previous generation
      expect(contracts['v3.2']).toEqual({ erc20Router: contracts.erc20Router, approvalProxy: contracts.approvalProxy });
      const addresses = [
        contracts.multicall3,
        contracts.erc20Router,
        contracts.approvalProxy,
        contracts.v3.erc20Router,
        contracts.v3.approvalProxy,
      ];
      expect(new Set(addresses.map((a) => a.toLowerCase())).size).toBe(5);
      for (const address of [...addresses, listed.protocol!.v2!.depository as Address]) {
        const code = await chain.publicClient.getCode({ address });
        expect(code?.length ?? 0, `code at ${address} on ${chain.def.slug}`).toBeGreaterThan(2);
      }
    }
  });

  it('a stranger drains an allowance left with the erc20Router GET /chains lists', async () => {
    sandbox.resetFaults();
    const body = ChainsResponseSchema.parse(await (await fetch(`${sandbox.apiUrl}/chains`)).json());
    const router = (body.chains[0]!.contracts as { erc20Router: Address }).erc20Router;
    const stranger = sandbox.accounts.extra[1]!;
    const amount = 12_345_678n;
    const treasuryWallet = createWalletClient({ account: treasury(), chain: alpha().chain, transport: http(alpha().rpcUrl) });
    await alpha().publicClient.waitForTransactionReceipt({
      hash: await treasuryWallet.writeContract({ address: alpha().usdc, abi: erc20Abi, functionName: 'approve', args: [router, amount] }),
    });
    const before = await usdcOf(alpha(), treasury().address);
    const strangerBefore = await usdcOf(alpha(), stranger.address);
    const strangerWallet = createWalletClient({ account: stranger, chain: alpha().chain, transport: http(alpha().rpcUrl) });
    const take = encodeFunctionData({ abi: erc20Abi, functionName: 'transferFrom', args: [treasury().address, stranger.address, amount] });
    const hash = await strangerWallet.writeContract({
      address: router,
      abi: relayRouterAbi,
      functionName: 'multicall',
      args: [[{ target: alpha().usdc, allowFailure: false, value: 0n, callData: take }], stranger.address, zeroAddress],
    });
    expect((await alpha().publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(before - (await usdcOf(alpha(), treasury().address))).toBe(amount);
    expect((await usdcOf(alpha(), stranger.address)) - strangerBefore).toBe(amount);
  });

  it('quotes carry two refunds and extraData naming the v3 router GET /chains lists (a deployed contract)', async () => {
    sandbox.resetFaults();
    const q = await quote('2000000', { out: 'usdt' });
    const od = q.protocol!.v2!.orderData;
    const padded = (a: Address) => pad(a.toLowerCase() as Address, { size: 32 });
    expect(od.inputs[0]!.refunds).toEqual([
      {
        chainId: 'alpha',
        recipient: treasury().address.toLowerCase(),
        currency: alpha().usdc.toLowerCase(),
        minimumAmount: '0',
        deadline: od.output.deadline,
        extraData: padded(alpha().v3.erc20Router),
      },
      {
        chainId: 'beta',
        recipient: treasury().address.toLowerCase(),
        currency: beta().usdt.toLowerCase(),
        minimumAmount: '0',
        deadline: od.output.deadline,
        extraData: padded(beta().v3.erc20Router),
      },
    ]);
    expect(od.output.extraData).toBe(padded(beta().v3.erc20Router));
    expect((await beta().publicClient.getCode({ address: beta().v3.erc20Router }))?.length).toBeGreaterThan(2);
    // approvals still name only the depository
    const approve = q.steps.find((s) => s.id === 'approve')!.items[0]!.data as { data: Hex };
    expect(approve.data.slice(34, 74)).toBe(alpha().depository.toLowerCase().slice(2));
  });

  it('a 1000 USDC alpha → beta quote, executed step by step, ends success and credits at least minimumAmount on beta', async () => {
    sandbox.resetFaults();
    sandbox.setFaults({ fillDelayMs: 100 });
    const q = await quote('1000000000');
    const payment = q.protocol!.v2!.orderData.output.payments[0]!;
    const minimum = BigInt(payment.minimumAmount);
    expect(BigInt(payment.expectedAmount)).toBeGreaterThanOrEqual(minimum);
    const betaBefore = await usdcOf(beta(), treasury().address);
    const alphaBefore = await usdcOf(alpha(), treasury().address);
    const solverBefore = await solverUsdcLiquidity();
    expect(solverBefore).toBe(await usdcOf(beta(), sandbox.accounts.solver.address)); // the solver's real balance
    const depositTx = await execute(q);
    const final = await waitForTerminal(q.requestId!);
    expect(final.status).toBe('success');
    // GET /chains/liquidity drops by what the fill paid
    expect(solverBefore - (await solverUsdcLiquidity())).toBe((await usdcOf(beta(), treasury().address)) - betaBefore);
    expect(final.inTxHashes).toEqual([depositTx]);
    expect(final.txHashes).toHaveLength(1);
    expect((await usdcOf(beta(), treasury().address)) - betaBefore).toBeGreaterThanOrEqual(minimum);
    expect(alphaBefore - (await usdcOf(alpha(), treasury().address))).toBe(1_000_000_000n);
    const fill = await beta().publicClient.getTransactionReceipt({ hash: final.txHashes[0] as Hex });
    expect(fill.from.toLowerCase()).toBe(sandbox.accounts.solver.address.toLowerCase());

    const record = await requestRecord(q.requestId!);
    expect(record).toMatchObject({ status: 'success', protocol: { isWithdrawable: false } });
    const depositReceipt = await alpha().publicClient.getTransactionReceipt({ hash: depositTx });
    expect(record.data).toMatchObject({
      failReason: null,
      refundFailReason: null,
      inTxs: [
        { txHash: depositTx, chainId: alpha().def.chainId, block: Number(depositReceipt.blockNumber), type: 'onchain', status: 'success' },
      ],
      outTxs: [
        {
          txHash: final.txHashes[0],
          chainId: beta().def.chainId,
          block: Number(fill.blockNumber),
          status: 'success',
          fee: (fill.gasUsed * fill.effectiveGasPrice).toString(),
        },
      ],
    });
    expect(record.protocol).toMatchObject({
      deposit: {
        origin: {
          chainId: alpha().def.chainId,
          depositor: treasury().address.toLowerCase(),
          amount: '1000000000',
          transactionId: depositTx,
        },
      },
      settlement: { destination: { fills: [{ chainId: beta().def.chainId, transactionId: final.txHashes[0] }], refunds: [] } },
    });
    expect(final).toMatchObject({ failReason: 'N/A' });
    expect((await rawStatus(q.requestId!)).refundFailReason).toBe('N/A');
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
    await pollUntil(
      'indexing of the deposit',
      () => status(q.requestId!),
      (v) => v.status !== 'waiting',
    );
    await new Promise((r) => setTimeout(r, 1_000)); // well past fillDelayMs 0: a fill would have been sent
    const s = await status(q.requestId!);
    expect(s.status).toBe('pending');
    expect(s.inTxHashes).toEqual([depositTx]);
    expect(s.txHashes).toEqual([]);
  });

  it('refund mode returns the USDC on alpha to refundTo and ends refund', async () => {
    sandbox.resetFaults();
    sandbox.setFaults({ refund: true, fillDelayMs: 0 });
    const before = await usdcOf(alpha(), treasury().address);
    const betaBefore = await usdcOf(beta(), treasury().address);
    const q = await quote('7000000', {}, { refundTo: treasury().address });
    await execute(q);
    const final = await waitForTerminal(q.requestId!);
    expect(final.status).toBe('refund');
    expect(await usdcOf(alpha(), treasury().address)).toBe(before);
    expect(await usdcOf(beta(), treasury().address)).toBe(betaBefore);
    const refundTx = await alpha().publicClient.getTransactionReceipt({ hash: final.txHashes[0] as Hex });
    expect(refundTx.to?.toLowerCase()).toBe(alpha().depository.toLowerCase());
    expect(final).toMatchObject({ failReason: 'UNKNOWN' });
    const record = await requestRecord(q.requestId!);
    expect(record.protocol).toMatchObject({
      settlement: { destination: { fills: [], refunds: [{ chainId: alpha().def.chainId, transactionId: final.txHashes[0] }] } },
    });
    expect(record.refundTo).toBe(treasury().address.toLowerCase());
    expect(record.data).toMatchObject({
      outTxs: [{ txHash: final.txHashes[0], chainId: alpha().def.chainId, status: 'success' }],
      refundCurrencyData: { amount: '7000000', currency: { chainId: alpha().def.chainId, address: alpha().usdc.toLowerCase() } },
      refundFailReason: null,
    });
  });

  it('refund mode without refundTo: nothing is refunded; failure with MANUAL_REFUND_REQUIRED, withdrawable', async () => {
    sandbox.resetFaults();
    sandbox.setFaults({ refund: true, fillDelayMs: 0 });
    const held = await usdcOf(alpha(), alpha().depository);
    const q = await quote('6000000');
    await execute(q);
    const final = await pollUntil(
      'the unrefunded request',
      () => rawStatus(q.requestId!),
      (s) => s.status === 'failure',
    );
    expect(final).toMatchObject({ failReason: 'UNKNOWN', refundFailReason: 'MANUAL_REFUND_REQUIRED', txHashes: [] });
    expect((await usdcOf(alpha(), alpha().depository)) - held).toBe(6_000_000n);
    const record = await requestRecord(q.requestId!);
    expect(record).toMatchObject({
      refundTo: null,
      data: { refundFailReason: 'MANUAL_REFUND_REQUIRED', outTxs: [], refundCurrencyData: null },
      protocol: { isWithdrawable: true },
    });
  });

  it("referrer 'debug-force-refund' forces a refund to refundTo without any fault", async () => {
    sandbox.resetFaults();
    sandbox.setFaults({ fillDelayMs: 0 });
    const before = await usdcOf(alpha(), treasury().address);
    const q = await quote('4000000', {}, { refundTo: treasury().address, referrer: 'debug-force-refund' });
    await execute(q);
    const final = await waitForTerminal(q.requestId!);
    expect(final.status).toBe('refund');
    expect(await usdcOf(alpha(), treasury().address)).toBe(before);
  });

  it('refund with a failing refund leg: nothing comes back, failure with the published refundFailReason, withdrawable', async () => {
    sandbox.resetFaults();
    sandbox.setFaults({ refund: true, refundFailReason: 'AMOUNT_TOO_LOW_TO_REFUND', fillDelayMs: 0 });
    const held = await usdcOf(alpha(), alpha().depository);
    const q = await quote('8000000', {}, { refundTo: treasury().address });
    await execute(q);
    const final = await pollUntil(
      'the failed refund',
      () => rawStatus(q.requestId!),
      (s) => s.status === 'failure',
    );
    expect(final).toMatchObject({ failReason: 'UNKNOWN', refundFailReason: 'AMOUNT_TOO_LOW_TO_REFUND', txHashes: [] });
    expect((await usdcOf(alpha(), alpha().depository)) - held).toBe(8_000_000n);
    expect(await requestRecord(q.requestId!)).toMatchObject({
      data: { refundFailReason: 'AMOUNT_TOO_LOW_TO_REFUND' },
      protocol: { isWithdrawable: true },
    });
  });

  it("the 'delayed' fault: the status endpoint reports delayed before the fill, GET /requests/v3 shows it as pending", async () => {
    sandbox.resetFaults();
    sandbox.setFaults({ delayed: true, fillDelayMs: 1_500 });
    const q = await quote('9000000');
    await execute(q);
    const seen = new Set<string>();
    const final = await pollUntil(
      'the delayed fill',
      async () => {
        const s = await rawStatus(q.requestId!);
        seen.add(s.status);
        if (s.status === 'delayed') seen.add(`v3:${(await requestRecord(q.requestId!)).status}`);
        return s;
      },
      (s) => s.status === 'success',
    );
    expect(final.status).toBe('success');
    expect(seen).toContain('delayed');
    expect(seen).toContain('v3:pending');
    expect(seen).not.toContain('v3:delayed');
  });

  it('failure mode ends failure and marks the deposit withdrawable; a deposit for an unknown order stays in the depository', async () => {
    sandbox.resetFaults();
    sandbox.setFaults({ failure: true, fillDelayMs: 0 });
    const q = await quote('3000000');
    await execute(q);
    expect(await waitForTerminal(q.requestId!)).toMatchObject({ status: 'failure', failReason: 'UNKNOWN' });
    const failed = await requestRecord(q.requestId!);
    expect(failed.protocol).toMatchObject({
      isWithdrawable: true,
      deposit: { origin: { depositor: treasury().address.toLowerCase(), chainId: alpha().def.chainId, amount: '3000000' } },
    });
    expect(failed.data).toMatchObject({ failReason: 'UNKNOWN', refundFailReason: null, outTxs: [] });

    sandbox.resetFaults();
    const before = await usdcOf(alpha(), treasury().address);
    const heldBefore = await usdcOf(alpha(), alpha().depository);
    const stray = await rawDeposit(treasury(), 2_000_000n, `0x${'99'.repeat(32)}`);
    const record = await requestOfDeposit(treasury().address, stray);
    expect(record).toMatchObject({ status: 'failure', data: { failReason: 'UNKNOWN' }, protocol: { isWithdrawable: true } });
    expect(before - (await usdcOf(alpha(), treasury().address))).toBe(2_000_000n);
    expect((await usdcOf(alpha(), alpha().depository)) - heldBefore).toBe(2_000_000n); // not returned
  });

  it("a stranger's deposit under the victim's order id gets its own record; the victim's deposit then fills", async () => {
    sandbox.resetFaults();
    sandbox.setFaults({ fillDelayMs: 0 });
    const stranger = sandbox.accounts.extra[0]!;
    const treasuryWallet = createWalletClient({ account: treasury(), chain: alpha().chain, transport: http(alpha().rpcUrl) });
    const gift = await treasuryWallet.writeContract({
      address: alpha().usdc,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [stranger.address, 1n],
    });
    await alpha().publicClient.waitForTransactionReceipt({ hash: gift });

    const q = await quote('4000000');
    const orderId = q.protocol!.v2!.orderId as Hex; // schema checked 32-byte hex
    const strangerTx = await rawDeposit(stranger, 1n, orderId);
    const strangerRecord = await requestOfDeposit(stranger.address, strangerTx);
    expect(strangerRecord!.id).not.toBe(q.requestId);
    expect(strangerRecord).toMatchObject({ status: 'failure', protocol: { isWithdrawable: true, deposit: { origin: { amount: '1' } } } });
    expect((await status(q.requestId!)).status).toBe('waiting');

    const betaBefore = await usdcOf(beta(), treasury().address);
    const depositTx = await execute(q);
    const final = await waitForTerminal(q.requestId!);
    expect(final).toMatchObject({ status: 'success', inTxHashes: [depositTx] });
    const minimum = BigInt(q.protocol!.v2!.orderData.output.payments[0]!.minimumAmount);
    expect((await usdcOf(beta(), treasury().address)) - betaBefore).toBeGreaterThanOrEqual(minimum);
  });

  it("fillAmount 'minimum' credits exactly minimumAmount", async () => {
    sandbox.resetFaults();
    sandbox.setFaults({ fillDelayMs: 0, fillAmount: 'minimum' });
    const q = await quote('6000000');
    const payment = q.protocol!.v2!.orderData.output.payments[0]!;
    expect(BigInt(payment.minimumAmount)).toBeLessThan(BigInt(payment.expectedAmount));
    const betaBefore = await usdcOf(beta(), treasury().address);
    await execute(q);
    expect((await waitForTerminal(q.requestId!)).status).toBe('success');
    expect((await usdcOf(beta(), treasury().address)) - betaBefore).toBe(BigInt(payment.minimumAmount));
  });

  it('a 429 burst answers with retry-after, then the API recovers; a bad request answers 400 with errorCode', async () => {
    sandbox.resetFaults();
    sandbox.setFaults({ httpErrors: { status: 429, count: 1 } });
    const limited = await fetch(`${sandbox.apiUrl}/chains`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(await limited.json()).toEqual({ message: expect.any(String) }); // message-only: no public code names it
    expect((await fetch(`${sandbox.apiUrl}/chains`)).status).toBe(200);

    const bad = await fetch(`${sandbox.apiUrl}/quote/v2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        user: treasury().address,
        originChainId: 999,
        destinationChainId: beta().def.chainId,
        originCurrency: alpha().usdc,
        destinationCurrency: beta().usdc,
        amount: '1000000',
        tradeType: 'EXACT_INPUT',
      }),
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ message: expect.stringContaining('999'), errorCode: 'UNSUPPORTED_CHAIN' });

    // POST /transactions/index: chainId is a number (docs/relay-contract.md) or its decimal string (published OpenAPI); a
    // slug is refused naming the field
    const stringId = await fetch(`${sandbox.apiUrl}/transactions/index`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chainId: alpha().def.slug, txHash: `0x${'42'.repeat(32)}` }),
    });
    expect(stringId.status).toBe(400);
    const body = (await stringId.json()) as { message: string };
    expect(Object.keys(body)).toEqual(['message']);
    expect(body.message).toContain('chainId');
  });

  it('USDT → USDT and USDC ↔ USDT quotes fill end to end; USDT moves although it returns no bool', async () => {
    sandbox.resetFaults();
    sandbox.setFaults({ fillDelayMs: 0 });
    for (const pair of [
      { in: 'usdt', out: 'usdt' },
      { in: 'usdc', out: 'usdt' },
      { in: 'usdt', out: 'usdc' },
    ] as const) {
      const amount = 25_000_000n;
      const inOf = pair.in === 'usdt' ? usdtOf : usdcOf;
      const outOf = pair.out === 'usdt' ? usdtOf : usdcOf;
      const q = await quote(amount.toString(), pair);
      expect(q.details.operation).toBe(pair.in === pair.out ? 'bridge' : 'swap');
      const minimum = BigInt(q.protocol!.v2!.orderData.output.payments[0]!.minimumAmount);
      const alphaBefore = await inOf(alpha(), treasury().address);
      const betaBefore = await outOf(beta(), treasury().address);
      const depositTx = await execute(q);
      const final = await waitForTerminal(q.requestId!);
      expect(final, `${pair.in} → ${pair.out}`).toMatchObject({ status: 'success', inTxHashes: [depositTx] });
      expect(alphaBefore - (await inOf(alpha(), treasury().address))).toBe(amount);
      expect((await outOf(beta(), treasury().address)) - betaBefore).toBeGreaterThanOrEqual(minimum);
      expect(await requestRecord(q.requestId!)).toMatchObject({ requestType: pair.in === pair.out ? 'Bridge' : 'Crosschain Swap' });
    }
    // the depository consumed each approval exactly, so the next USDT approval starts from zero (Tether rule)
    const allowance = await alpha().publicClient.readContract({
      address: alpha().usdt,
      abi: erc20Abi,
      functionName: 'allowance',
      args: [treasury().address, alpha().depository],
    });
    expect(allowance).toBe(0n);
  });
});
