/**
 * End-to-end: the sandbox depository's allocator-signed `execute(CallRequest, bytes)` (the real relay-depository
 * semantics, `packages/protocol/src/protocol/depositoryExecute.ts`) on anvil, called with requests signed here by the allocator
 * (the sandbox solver key) or by others; and a `ready` withdrawal transaction left unexecuted past its short
 * expiration: it reverts on chain and the job ends `expired` with the amount back in the hub.
 */
import {
  BaseError,
  ContractFunctionRevertedError,
  createTestClient,
  createWalletClient,
  decodeFunctionData,
  encodeFunctionData,
  erc20Abi,
  hashStruct,
  http,
  parseAbi,
  parseEventLogs,
  zeroAddress,
  type Address,
  type Hex,
  type LocalAccount,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depositoryAbi } from '../../packages/protocol/src/protocol/depositoryAbi.ts';
import {
  CALL_REQUEST_TYPES,
  depositoryDomain,
  depositoryExecuteAbi,
  type DepositoryCall,
  type DepositoryCallRequest,
} from '../../packages/protocol/src/protocol/depositoryExecute.ts';
import { withdrawalDigest } from '../../packages/protocol/src/protocol/withdrawalDigest.ts';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';

const MIN_POLL_MS = 60;
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ faults: { fillDelayMs: 0 }, withdrawals: { stepMs: 50, minPollMs: MIN_POLL_MS, readyTtlMs: 1_000 } });
});
afterAll(async () => {
  await sandbox?.stop();
});

const alpha = () => sandbox.chains[0]!;
const treasury = () => sandbox.accounts.treasury;
const stranger = () => sandbox.accounts.extra[2]!;
const wallet = (account: LocalAccount) => createWalletClient({ account, chain: alpha().chain, transport: http(alpha().rpcUrl) });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const usdcOf = (who: Address) =>
  alpha().publicClient.readContract({ address: alpha().usdc, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
const errors = parseAbi([
  'error CallRequestExpired()',
  'error CallRequestAlreadyUsed()',
  'error InvalidSignature()',
  'error CallFailed(bytes returnData)',
]);
const nowSec = () => BigInt(Math.floor(Date.now() / 1000));

/** Deposits `amount` USDC from the treasury under an order id no quote has: it stays in the depository. */
async function strayDeposit(amount: bigint): Promise<Hex> {
  const w = wallet(treasury());
  await alpha().publicClient.waitForTransactionReceipt({
    hash: await w.writeContract({ address: alpha().usdc, abi: erc20Abi, functionName: 'approve', args: [alpha().depository, amount] }),
  });
  const hash = await w.writeContract({
    address: alpha().depository,
    abi: depositoryAbi,
    functionName: 'depositErc20',
    args: [treasury().address, alpha().usdc, amount, `0x${'77'.repeat(32)}`],
  });
  expect((await alpha().publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
  return hash;
}

const transfer = (to: Address, amount: bigint, allowFailure = false): DepositoryCall => ({
  to: alpha().usdc,
  data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }),
  value: 0n,
  allowFailure,
});

const sign = (signer: LocalAccount, request: DepositoryCallRequest) =>
  signer.signTypedData!({
    domain: depositoryDomain(alpha().def.chainId, alpha().depository),
    types: CALL_REQUEST_TYPES,
    primaryType: 'CallRequest',
    message: request,
  }); // local accounts sign typed data

/** The depository error `execute(request, signature)` reverts with, or null when it would succeed. */
async function executeError(request: DepositoryCallRequest, signature: Hex): Promise<string | null> {
  try {
    await alpha().publicClient.simulateContract({
      account: stranger(),
      address: alpha().depository,
      abi: [...depositoryExecuteAbi, ...errors],
      functionName: 'execute',
      args: [request, signature],
    });
    return null;
  } catch (error) {
    const reverted = error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null;
    return reverted instanceof ContractFunctionRevertedError ? (reverted.data?.errorName ?? 'unknown') : String(error);
  }
}

describe('sandbox depository execute', () => {
  it('runs an allocator-signed request once, for anyone; refuses other signers, altered, expired and replayed requests', async () => {
    await strayDeposit(3_000_000n);
    const solver = sandbox.accounts.solver;
    expect(
      (
        await alpha().publicClient.readContract({ address: alpha().depository, abi: depositoryExecuteAbi, functionName: 'allocator' })
      ).toLowerCase(),
    ).toBe(solver.address.toLowerCase());
    const to = stranger().address;
    const request: DepositoryCallRequest = {
      calls: [transfer(to, 1_000_000n), transfer(to, 10n ** 30n, true)],
      nonce: 42n,
      expiration: nowSec() + 600n,
    };
    const signature = await sign(solver, request);

    expect(await executeError(request, await sign(treasury(), request))).toBe('InvalidSignature');
    expect(await executeError({ ...request, calls: [transfer(to, 2_000_000n)] }, signature)).toBe('InvalidSignature');
    const expired = { ...request, expiration: nowSec() - 120n };
    expect(await executeError(expired, await sign(solver, expired))).toBe('CallRequestExpired');
    const strict = { ...request, calls: [transfer(to, 10n ** 30n)], nonce: 43n };
    expect(await executeError(strict, await sign(solver, strict))).toBe('CallFailed');

    const before = await usdcOf(to);
    const id = hashStruct({ data: request, primaryType: 'CallRequest', types: CALL_REQUEST_TYPES });
    const hash = await wallet(stranger()).writeContract({
      address: alpha().depository,
      abi: depositoryExecuteAbi,
      functionName: 'execute',
      args: [request, signature],
    });
    const receipt = await alpha().publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    expect((await usdcOf(to)) - before).toBe(1_000_000n);
    const executed = parseEventLogs({ abi: depositoryExecuteAbi, logs: receipt.logs, eventName: 'RelayCallExecuted' });
    expect(executed.map((l) => [l.args.id, l.args.call.to.toLowerCase()])).toEqual([[id, alpha().usdc.toLowerCase()]]); // the failed, allowed call emits nothing
    expect(
      await alpha().publicClient.readContract({
        address: alpha().depository,
        abi: depositoryExecuteAbi,
        functionName: 'callRequests',
        args: [id],
      }),
    ).toBe(true);
    expect(await executeError(request, signature)).toBe('CallRequestAlreadyUsed');
  });

  it('a ready withdrawal left past its expiration reverts on chain; the job ends expired and the hub gets the amount back', async () => {
    const owner = treasury().address;
    const amount = 2_000_000n;
    const tx = await strayDeposit(amount);
    const attested = await pollAttest(tx);
    expect(attested).toEqual({ success: true });
    const fields = { chainId: 'alpha', currency: alpha().usdc, amount: amount.toString(), ownerChainId: 'alpha', owner, recipient: owner };
    const prep = (await post('/withdrawals/request', fields)).json as { nonce: string; amount: string };
    const signature = await wallet(treasury()).signMessage({ message: { raw: `0x${withdrawalDigest({ ...fields, nonce: prep.nonce })}` } });
    const { json } = await post('/withdrawals/request', { ...fields, nonce: prep.nonce, signature });
    const jobId = (json as { jobId: string }).jobId;

    let status = await pollStatus(jobId, (s) => s.status === 'ready');
    const t = status.transaction!;
    const { args } = decodeFunctionData({ abi: depositoryExecuteAbi, data: t.data });
    const [request] = args as readonly [DepositoryCallRequest, Hex]; // execute(request, signature)
    while (nowSec() <= request.expiration) await sleep(200);
    await createTestClient({ chain: alpha().chain, mode: 'anvil', transport: http(alpha().rpcUrl) }).mine({ blocks: 1 });
    const held = await usdcOf(alpha().depository);
    const late = await wallet(treasury()).sendTransaction({ to: t.to, data: t.data, gas: 300_000n });
    expect((await alpha().publicClient.waitForTransactionReceipt({ hash: late })).status).toBe('reverted');
    expect(await executeError(request, args[1] as Hex)).toBe('CallRequestExpired');
    expect(await usdcOf(alpha().depository)).toBe(held);

    status = await pollStatus(jobId, (s) => s.status !== 'ready');
    expect(status).toEqual({ status: 'expired' });
    const balances = (
      (await (await fetch(`${sandbox.apiUrl}/_sandbox/hub-balances`)).json()) as {
        balances: { currency: string; amount: string; locked: string }[];
      }
    ).balances;
    expect(balances.find((b) => b.currency === alpha().usdc.toLowerCase())).toMatchObject({ amount: amount.toString(), locked: '0' });
    expect(balances.some((b) => b.currency === zeroAddress)).toBe(false);
  });
});

async function post(path: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${sandbox.apiUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** Attests once the stray deposit's request has failed (until then the deposit is not withdrawable: 400). */
async function pollAttest(tx: Hex): Promise<unknown> {
  for (let i = 0; i < 100; i++) {
    const r = await post('/withdrawals/attest-deposit', { chainId: alpha().def.chainId, transactionId: tx });
    if (r.status === 200) return r.json;
    await sleep(100);
  }
  throw new Error(`deposit ${tx} never became attestable`);
}

type Status = { status: string; transaction?: { to: Address; data: Hex } };
async function pollStatus(id: string, done: (s: Status) => boolean): Promise<Status> {
  for (let i = 0; i < 200; i++) {
    await sleep(MIN_POLL_MS + 20);
    const res = await fetch(`${sandbox.apiUrl}/withdrawals/status?id=${id}`);
    expect(res.status).toBe(200);
    const s = (await res.json()) as Status;
    if (done(s)) return s;
  }
  throw new Error(`job ${id} never reached the wanted status`);
}
