/**
 * End-to-end: the published Relay client `@relayprotocol/relay-sdk` drives the sandbox exactly as it drives
 * the live API. It reads the sandbox's GET /chains (`fetchChainConfigs`), asks POST /quote/v2 (`getQuote`),
 * then `execute` signs and sends each step with a viem wallet (the treasury's anvil dev key), notifies
 * POST /transactions/index and polls the step item's `check.endpoint` (GET /intents/status/v3) until success.
 * Websockets are off. Every request must stay on 127.0.0.1: the SDK's axios instance and `fetch` refuse other
 * hosts, and every TCP connection is watched from before the SDK is imported (so import-time requests count).
 */
import type { Execute, ProgressData, RelayChain } from '@relayprotocol/relay-sdk';
import { createWalletClient, erc20Abi, http, isHex, size, zeroAddress, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntentStatusSchema } from '../../packages/protocol/src/relay/schemas.ts';
import type { LocalEvmChain } from '../../packages/sandbox/src/chains/localChains.ts';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { isLoopbackUrl, type LoopbackGuard } from './helpers/loopbackGuard.ts';
import { createSandboxRelayClient, importGuardedRelaySdk, type RelaySdk } from './helpers/relaySdkSetup.ts';

let sdk: RelaySdk;
let sandbox: Sandbox;
let guard: LoopbackGuard;
let chains: RelayChain[];
/** Requests the SDK made through its axios instance: `METHOD /path` and the HTTP status (0 = no response). */
const sdkCalls: { call: string; status: number }[] = [];
/** The SDK's requests while the client was being set up (before any test). */
let setupCalls: { call: string; status: number }[] = [];
const interceptors: { request?: number; response?: number } = {};

beforeAll(async () => {
  const imported = await importGuardedRelaySdk();
  guard = imported.guard;
  sdk = imported.sdk;
  const sdkAxios = sdk.axios;
  interceptors.request = sdkAxios.interceptors.request.use((config) => {
    const url = new URL(config.url ?? '', config.baseURL);
    if (!isLoopbackUrl(url.href)) {
      guard.offLoopback.push(`sdk ${config.method} ${url.href}`);
      throw new Error(`refused non-loopback request to ${url.href}`);
    }
    return config;
  });
  const callOf = (config: { method?: string; url?: string; baseURL?: string } | undefined) =>
    `${(config?.method ?? 'get').toUpperCase()} ${new URL(config?.url ?? '', config?.baseURL).pathname}`;
  interceptors.response = sdkAxios.interceptors.response.use(
    (res) => {
      sdkCalls.push({ call: callOf(res.config), status: res.status });
      return res;
    },
    (error: { endpoint?: string }) => {
      // the SDK's own interceptor (registered first) has already turned the error into its APIError, which
      // keeps the URL but not the method or a reliable status
      sdkCalls.push({ call: `failed ${error.endpoint ? new URL(error.endpoint).pathname : '(unknown)'}`, status: 0 });
      throw error;
    },
  );

  sandbox = await startSandbox({ faults: { fillDelayMs: 100 } });
  chains = await imported.fetchChainConfigs(sandbox.apiUrl);
  setupCalls = [...sdkCalls];
  createSandboxRelayClient(sdk, sandbox.apiUrl, chains);
});

afterAll(async () => {
  await sandbox?.stop();
  if (interceptors.request !== undefined) sdk?.axios.interceptors.request.eject(interceptors.request);
  if (interceptors.response !== undefined) sdk?.axios.interceptors.response.eject(interceptors.response);
  guard?.uninstall();
});

const alpha = () => sandbox.chains[0]!;
const beta = () => sandbox.chains[1]!;
const sender = () => sandbox.accounts.treasury;
/** Recipient on beta: a spare dev account that sends nothing there, so its balance moves only by the fill. */
const recipient = (): Address => sandbox.accounts.extra[0]!.address;

async function balanceOf(chain: LocalEvmChain, token: Address, owner: Address): Promise<bigint> {
  if (token === zeroAddress) return chain.publicClient.getBalance({ address: owner });
  return chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
}

interface Transfer {
  amount: bigint;
  minimumOut: bigint;
  requestId: Hex;
  result: Execute;
  progress: ProgressData[];
  originDrop: bigint;
  destinationRise: bigint;
  depositTx: Hex;
  fillTxs: Hex[];
  /** Gas the sender paid on the origin for every transaction of the flow, wei. */
  originGasWei: bigint;
  /** The SDK's requests since the transfer started (live view: fire-and-forget calls may still land). */
  calls(): { call: string; status: number }[];
}

/** Narrows an id or hash the SDK reports to 32-byte hex; throws naming `what` when it is missing or malformed. */
function bytes32(value: string | undefined, what: string): Hex {
  if (value === undefined || !isHex(value, { strict: true }) || size(value) !== 32) {
    throw new Error(`${what}: expected 0x-prefixed 32-byte hex, got ${String(value)}`);
  }
  return value;
}

/** Polls `read` every 50 ms until `done` holds, for at most `timeoutMs`; returns the last value either way. */
async function pollFor<T>(read: () => T, done: (v: T) => boolean, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    value = read();
  }
  return value;
}

/** Quotes and executes `amount` of `fromToken` (alpha) → `toToken` (beta) with the SDK, measuring balances around it. */
async function sdkTransfer(fromToken: Address, toToken: Address, amount: bigint): Promise<Transfer> {
  const callsFrom = sdkCalls.length;
  const wallet = createWalletClient({ account: sender(), chain: alpha().chain, transport: http(alpha().rpcUrl) });
  const originBefore = await balanceOf(alpha(), fromToken, sender().address);
  const destinationBefore = await balanceOf(beta(), toToken, recipient());

  const quote = await sdk.getQuote({
    chainId: alpha().def.chainId,
    toChainId: beta().def.chainId,
    currency: fromToken,
    toCurrency: toToken,
    amount: amount.toString(),
    tradeType: 'EXACT_INPUT',
    user: sender().address,
    recipient: recipient(),
    wallet,
  });
  const minimumOut = BigInt(quote.details?.currencyOut?.minimumAmount ?? '0');
  const requestId = bytes32(quote.steps.at(-1)?.requestId, 'quote request id'); // docs/relay-contract.md "Step"
  const progress: ProgressData[] = [];
  const { data: result } = await sdk.execute({ quote, wallet, onProgress: (p) => progress.push(structuredClone(p)) });

  const depositItem = result.steps.find((s) => s.id === 'deposit')?.items[0];
  // on success the SDK keeps the origin deposit in `internalTxHashes` and the destination fills in `txHashes`
  const depositTx = bytes32(depositItem?.internalTxHashes?.find((t) => t.chainId === alpha().def.chainId)?.txHash, 'deposit tx');
  const fillTxs = (depositItem?.txHashes ?? []).filter((t) => t.chainId === beta().def.chainId).map((t) => bytes32(t.txHash, 'fill tx'));
  let originGasWei = 0n;
  for (const step of result.steps) {
    for (const item of step.items) {
      const receipt = await alpha().publicClient.getTransactionReceipt({
        hash: step.id === 'deposit' ? depositTx : bytes32(item.txHashes?.[0]?.txHash, `${step.id} tx`),
      });
      expect(receipt.status).toBe('success');
      expect(receipt.from).toBe(sender().address.toLowerCase());
      originGasWei += receipt.gasUsed * receipt.effectiveGasPrice;
    }
  }
  return {
    amount,
    minimumOut,
    requestId,
    result,
    progress,
    originDrop: originBefore - (await balanceOf(alpha(), fromToken, sender().address)),
    destinationRise: (await balanceOf(beta(), toToken, recipient())) - destinationBefore,
    depositTx,
    fillTxs,
    originGasWei,
    calls: () => sdkCalls.slice(callsFrom),
  };
}

/** Outcome checks shared by both transfers. */
async function expectSettled(t: Transfer, stepIds: string[]): Promise<void> {
  // execute resolved with every step item complete and the deposit's status check ended in success
  expect(t.result.steps.map((s) => s.id)).toEqual(stepIds);
  expect(t.result.steps.flatMap((s) => s.items.map((i) => i.status))).toEqual(stepIds.map(() => 'complete'));
  expect(t.result.steps.at(-1)?.items[0]?.checkStatus).toBe('success');
  expect(t.progress.some((p) => p.steps.at(-1)?.items[0]?.checkStatus === 'success')).toBe(true);
  expect(t.result.error).toBeUndefined();

  // the recipient got at least the guaranteed output on beta
  expect(t.minimumOut).toBeGreaterThan(0n);
  expect(t.destinationRise).toBeGreaterThanOrEqual(t.minimumOut);

  // the sandbox's status record names the SDK's deposit and fill
  const res = await fetch(`${sandbox.apiUrl}/intents/status/v3?requestId=${t.requestId}`);
  expect(res.status).toBe(200);
  const status = IntentStatusSchema.parse(await res.json());
  expect(status.status).toBe('success');
  expect(status.inTxHashes).toEqual([t.depositTx]);
  expect(status.txHashes).toEqual(t.fillTxs);
  expect(t.fillTxs).toHaveLength(1);
  const fill = await beta().publicClient.getTransactionReceipt({ hash: t.fillTxs[0]! });
  expect(fill.status).toBe('success');

  // the SDK's requests: the quote, one deposit notification (which the sandbox accepted), status polls; the
  // notification is fire-and-forget, so its answer may land just after execute resolved
  const isIndex = (c: { call: string }) => c.call.endsWith('/transactions/index');
  const calls = await pollFor(t.calls, (cs) => cs.some(isIndex));
  expect(calls.filter(isIndex)).toEqual([{ call: 'POST /transactions/index', status: 200 }]);
  expect([...new Set(calls.map((c) => c.call))].sort()).toEqual(['GET /intents/status/v3', 'POST /quote/v2', 'POST /transactions/index']);
  expect(calls.every((c) => c.status === 200)).toBe(true);
  expect(guard.offLoopback).toEqual([]);
}

describe('@relayprotocol/relay-sdk against the sandbox', () => {
  it('the client is configured with the sandbox only: its GET /chains, their loopback RPCs, no websocket', () => {
    expect(setupCalls).toEqual([{ call: 'GET /chains', status: 200 }]);
    expect(chains.map((c) => c.id)).toEqual(sandbox.chains.map((c) => c.def.chainId));
    for (const [i, c] of chains.entries()) {
      expect(c.httpRpcUrl).toBe(sandbox.chains[i]!.rpcUrl);
      expect(c.viemChain?.rpcUrls.default.http).toEqual([sandbox.chains[i]!.rpcUrl]);
    }
    const client = sdk.getClient();
    expect(client.baseApiUrl).toBe(sandbox.apiUrl);
    expect(client.websocketEnabled).toBe(false);
    expect(client.chains).toBe(chains);
    // importing the SDK and setting it up reached nothing but 127.0.0.1 (and the watch did see traffic)
    expect(guard.offLoopback).toEqual([]);
    expect(guard.connectedTo.length).toBeGreaterThan(0);
    expect(guard.connectedTo.every((a) => a === '127.0.0.1')).toBe(true);
  });

  it('(a) ERC-20: 25 USDC alpha → beta with approve + deposit steps, to success', async () => {
    const amount = 25_000_000n; // 25 USDC, 6 decimals
    const t = await sdkTransfer(alpha().usdc, beta().usdc, amount);
    await expectSettled(t, ['approve', 'deposit']);
    expect(t.originDrop).toBe(amount);
  });

  it('(b) native: 0.1 ETH alpha → beta with one deposit step, to success', async () => {
    const amount = 10n ** 17n; // 0.1 ETH in wei
    const t = await sdkTransfer(zeroAddress, zeroAddress, amount);
    await expectSettled(t, ['deposit']);
    // the sender paid the amount plus its own origin gas, nothing else
    expect(t.originGasWei).toBeGreaterThan(0n);
    expect(t.originDrop).toBe(amount + t.originGasWei);
  });
});
