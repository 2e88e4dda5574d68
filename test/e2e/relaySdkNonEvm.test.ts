/**
 * End-to-end: the published Relay client `@relayprotocol/relay-sdk` executes a Solana-origin and a
 * Bitcoin-origin transfer against the sandbox (litesvm node, regtest Esplora node mining a block every 300 ms,
 * anvil chains), through its public API only: `fetchChainConfigs` (GET /chains), `actions.getQuote`
 * (POST /quote/v2) and `actions.execute` with `onProgress`, with Relay's own wallet adapters:
 * `adaptSolanaWallet` over a web3.js Connection to the sandbox node (signing with the sandbox's Solana
 * treasury key) and `adaptBitcoinWallet` (signing the PSBT with the sandbox's Bitcoin treasury WIF).
 *
 * The Bitcoin adapter broadcasts to the fixed URL `https://mempool.space/api/tx` through the SDK's axios
 * instance; a request interceptor rewrites that origin to the sandbox Esplora URL (which also answers under
 * `/api/…`) and refuses every other non-loopback request. For a Bitcoin origin the SDK stops right after the
 * broadcast (it neither confirms nor polls the status: deposits take blocks), so that case follows the
 * step item's status check itself. Every TCP connection is watched from before the SDK is imported.
 */
import type { AdaptedWallet, Execute, ProgressData, RelayChain } from '@relayprotocol/relay-sdk';
import { Connection } from '@solana/web3.js';
import { address as btcAddress, networks, script as btcScript, type Psbt } from 'bitcoinjs-lib';
import { ECPairFactory } from 'ecpair';
import * as ecc from 'tiny-secp256k1';
import { erc20Abi, zeroAddress, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { isLoopbackUrl, type LoopbackGuard } from './helpers/loopbackGuard.ts';
import { createSandboxRelayClient, importGuardedRelaySdk, type RelaySdk } from './helpers/relaySdkSetup.ts';

const SOLANA_ID = 792703809;
const BITCOIN_ID = 8253038;
/** The origin the Bitcoin adapter broadcasts to, rewritten to the sandbox's Esplora URL. */
const MEMPOOL_ORIGIN = 'https://mempool.space';
const ECPair = ECPairFactory(ecc);

/** GET /intents/status/v3, the fields checked here (docs/relay-contract.md "Request status record"). */
const StatusSchema = z.looseObject({
  status: z.string(),
  inTxHashes: z.array(z.string()).default([]),
  txHashes: z.array(z.string()).default([]),
  originChainId: z.number().int().optional(),
  destinationChainId: z.number().int().optional(),
});
type Status = z.infer<typeof StatusSchema>;

/** A request the SDK made through its axios instance (after the rewrite) and its HTTP status (-1: no answer yet). */
interface SdkCall {
  method: string;
  url: string;
  body: unknown;
  status: number;
}

let sdk: RelaySdk;
let sandbox: Sandbox;
let guard: LoopbackGuard;
let chains: RelayChain[];
const sdkCalls: SdkCall[] = [];
let requestInterceptor: number | undefined;

beforeAll(async () => {
  const imported = await importGuardedRelaySdk();
  guard = imported.guard;
  sdk = imported.sdk;
  requestInterceptor = sdk.axios.interceptors.request.use((config) => {
    const requested = new URL(config.url ?? '', config.baseURL).href;
    const esplora = sandbox?.bitcoin?.esploraUrl;
    const url = esplora && requested.startsWith(`${MEMPOOL_ORIGIN}/`) ? esplora + requested.slice(MEMPOOL_ORIGIN.length) : requested;
    if (!isLoopbackUrl(url)) {
      guard.offLoopback.push(`sdk ${config.method} ${url}`);
      throw new Error(`refused non-loopback request to ${url}`);
    }
    const call: SdkCall = { method: (config.method ?? 'get').toUpperCase(), url, body: config.data, status: -1 };
    sdkCalls.push(call);
    // records the HTTP status of every answer, also of those the SDK turns into errors (its APIError drops it)
    const accept = config.validateStatus;
    config.validateStatus = (status) => {
      call.status = status;
      return accept ? accept(status) : status >= 200 && status < 300;
    };
    config.url = url;
    return config;
  });

  sandbox = await startSandbox({ solana: true, bitcoin: true, bitcoinBlockMs: 300, faults: { fillDelayMs: 100 } });
  chains = await imported.fetchChainConfigs(sandbox.apiUrl);
  createSandboxRelayClient(sdk, sandbox.apiUrl, chains);
});

afterAll(async () => {
  await sandbox?.stop();
  if (requestInterceptor !== undefined) sdk?.axios.interceptors.request.eject(requestInterceptor);
  guard?.uninstall();
});

const alpha = () => sandbox.chains[0]!;
/** The native currency address GET /chains lists for `chainId` (what the SDK itself would quote with). */
function nativeOf(chainId: number): string {
  const address = chains.find((c) => c.id === chainId)?.currency?.address;
  if (address === undefined) throw new Error(`GET /chains lists no chain ${chainId} with a native currency address`);
  return address;
}

/** GET /intents/status/v3 for `requestId`, parsed. */
async function statusOf(requestId: string): Promise<Status> {
  const res = await fetch(`${sandbox.apiUrl}/intents/status/v3?requestId=${requestId}`);
  expect(res.status).toBe(200);
  return StatusSchema.parse(await res.json());
}

/** Polls `read` every 50 ms until `done` holds, for at most `timeoutMs`; returns the last value either way. */
async function pollFor<T>(read: () => T | Promise<T>, done: (v: T) => boolean, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    value = await read();
  }
  return value;
}

interface Transfer {
  quote: Execute;
  /** The quote's guaranteed output, destination base units. */
  minimumOut: bigint;
  requestId: string;
  result: Execute;
  progress: ProgressData[];
  /** The SDK's requests since the transfer started (live view: fire-and-forget calls may still land). */
  calls(): SdkCall[];
}

/** Quotes `amount` of `currency` on `chainId` → `toCurrency` on alpha for `recipient`, then executes it with `wallet`. */
async function sdkTransfer(p: {
  wallet: AdaptedWallet;
  chainId: number;
  currency: string;
  toCurrency: string;
  amount: bigint;
  user: string;
  recipient: Address;
}): Promise<Transfer> {
  const callsFrom = sdkCalls.length;
  const { actions } = sdk.getClient();
  const quote = await actions.getQuote({
    chainId: p.chainId,
    toChainId: alpha().def.chainId,
    currency: p.currency,
    toCurrency: p.toCurrency,
    amount: p.amount.toString(),
    tradeType: 'EXACT_INPUT',
    user: p.user,
    recipient: p.recipient,
    wallet: p.wallet,
  });
  const requestId = quote.steps.at(-1)?.requestId;
  if (requestId === undefined) throw new Error('the quote has no request id');
  const progress: ProgressData[] = [];
  const { data: result } = await actions.execute({ quote, wallet: p.wallet, onProgress: (d) => progress.push(structuredClone(d)) });
  return {
    quote,
    minimumOut: BigInt(quote.details?.currencyOut?.minimumAmount ?? '0'),
    requestId,
    result,
    progress,
    calls: () => sdkCalls.slice(callsFrom),
  };
}

/** The fill on alpha named by the status record: one successful transaction. */
async function expectOneFill(status: Status): Promise<void> {
  expect(status.txHashes).toHaveLength(1);
  const fill = await alpha().publicClient.getTransactionReceipt({ hash: status.txHashes[0] as Hex }); // 0x hash on an EVM chain
  expect(fill.status).toBe('success');
}

describe('@relayprotocol/relay-sdk with Relay wallet adapters: non-EVM origins on the sandbox', () => {
  it('Solana origin: 1 SOL → ETH on alpha via adaptSolanaWallet, signed by the Solana treasury, to success', async () => {
    const { adaptSolanaWallet } = await import('@relayprotocol/relay-svm-wallet-adapter');
    const sol = sandbox.solana!;
    const connection = new Connection(sol.rpcUrl, { wsEndpoint: sol.wsUrl, commitment: 'confirmed' });
    const sent: string[] = [];
    const wallet = adaptSolanaWallet(sol.treasury.address, SOLANA_ID, connection, async (tx) => {
      tx.sign([sol.treasury.keypair]);
      const signature = await connection.sendRawTransaction(tx.serialize());
      sent.push(signature);
      return { signature };
    });
    const recipient = sandbox.accounts.extra[0]!.address;
    const amount = 1_000_000_000n; // 1 SOL in lamports
    const treasuryBefore = sol.node.balance(sol.treasury.address);
    const recipientBefore = await alpha().publicClient.getBalance({ address: recipient });

    const t = await sdkTransfer({
      wallet,
      chainId: SOLANA_ID,
      currency: nativeOf(SOLANA_ID),
      toCurrency: zeroAddress,
      amount,
      user: sol.treasury.address,
      recipient,
    });

    // execute resolved with the one deposit item complete and its status check ended in success
    expect(t.result.error).toBeUndefined();
    expect(t.result.steps.map((s) => s.id)).toEqual(['deposit']);
    const item = t.result.steps[0]!.items[0]!;
    expect(item.status).toBe('complete');
    expect(item.checkStatus).toBe('success');
    expect(t.progress.some((p) => p.steps.at(-1)?.items[0]?.checkStatus === 'success')).toBe(true);
    expect(sent).toHaveLength(1);
    const signature = sent[0]!;
    // on success the SDK keeps the origin deposit in `internalTxHashes` and the destination fill in `txHashes`
    expect(item.internalTxHashes).toEqual([{ txHash: signature, chainId: SOLANA_ID, isBatchTx: false }]);

    const status = await statusOf(t.requestId);
    expect(status).toMatchObject({ status: 'success', inTxHashes: [signature], originChainId: SOLANA_ID });
    await expectOneFill(status);
    expect(item.txHashes).toEqual([{ txHash: status.txHashes[0], chainId: alpha().def.chainId }]);

    // the deposit landed in the depository for the treasury; the treasury paid the amount plus its fee
    const deposit = sol.node.listDeposits().find((d) => d.signature === signature);
    expect(deposit?.event).toMatchObject({ depositor: sol.treasury.address, token: null, amount });
    const landed = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' });
    const feeLamports = BigInt(landed?.meta?.fee ?? 0);
    expect(feeLamports).toBeGreaterThan(0n);
    expect(treasuryBefore - sol.node.balance(sol.treasury.address)).toBe(amount + feeLamports);
    // the recipient got at least the guaranteed output on alpha
    expect(t.minimumOut).toBeGreaterThan(0n);
    expect((await alpha().publicClient.getBalance({ address: recipient })) - recipientBefore).toBeGreaterThanOrEqual(t.minimumOut);

    // the SDK's requests: the quote, one deposit notification naming the signature, status polls; all answered 200
    const isIndex = (c: SdkCall) => c.url.endsWith('/transactions/index');
    const calls = await pollFor(t.calls, (cs) => cs.some((c) => isIndex(c) && c.status !== -1));
    expect(calls.filter(isIndex).map((c) => [c.body, c.status])).toEqual([
      [{ txHash: signature, chainId: String(SOLANA_ID), referrer: 'ballast-e2e' }, 200],
    ]);
    expect([...new Set(calls.map((c) => `${c.method} ${new URL(c.url).pathname}`))].sort()).toEqual([
      'GET /intents/status/v3',
      'POST /quote/v2',
      'POST /transactions/index',
    ]);
    expect(calls.every((c) => c.status === 200 && c.url.startsWith(sandbox.apiUrl))).toBe(true);
    expect(guard.offLoopback).toEqual([]);
  });

  it('Bitcoin origin: 0.01 BTC → WBTC on alpha via adaptBitcoinWallet, signed with the treasury WIF, to success', async () => {
    const { adaptBitcoinWallet } = await import('@relayprotocol/relay-bitcoin-wallet-adapter');
    const btc = sandbox.bitcoin!;
    const key = ECPair.fromWIF(btc.treasury.wif, networks.regtest);
    const signRequests: { address: string; indexes: number[][]; allowedSighash: number[] }[] = [];
    const signed: Psbt[] = [];
    const wallet = adaptBitcoinWallet(btc.treasury.address, async (address, psbt, params) => {
      signRequests.push({ address, indexes: params.signature.map((s) => s.signingIndexes), allowedSighash: params.allowedSighash });
      psbt.signAllInputs(key);
      signed.push(psbt);
      return psbt.toBase64();
    });
    const recipient = sandbox.accounts.extra[1]!.address;
    const amount = 1_000_000n; // 0.01 BTC in satoshis (below the 2-confirmation threshold)
    const wbtcOf = () =>
      alpha().publicClient.readContract({ address: alpha().wbtc, abi: erc20Abi, functionName: 'balanceOf', args: [recipient] });
    const treasuryBefore = btc.node.specBalance(btc.treasury.address);
    const wbtcBefore = await wbtcOf();

    const t = await sdkTransfer({
      wallet,
      chainId: BITCOIN_ID,
      currency: nativeOf(BITCOIN_ID),
      toCurrency: alpha().wbtc,
      amount,
      user: btc.treasury.address,
      recipient,
    });

    // the adapter asked to sign every input of the treasury's PSBT; the PSBT pays the depository the amount and
    // carries an order id ("0x" + 64 hex digits as UTF-8) in its OP_RETURN (the status below proves it matched)
    expect(signed).toHaveLength(1);
    const psbt = signed[0]!;
    expect(signRequests).toEqual([{ address: btc.treasury.address, indexes: psbt.txInputs.map((_in, i) => [i]), allowedSighash: [0, 1] }]);
    const scriptOf = (a: string) => Buffer.from(btcAddress.toOutputScript(a, networks.regtest)).toString('hex');
    const outputs = psbt.txOutputs.map((o) => ({ script: Buffer.from(o.script).toString('hex'), value: o.value }));
    expect(outputs[0]).toEqual({ script: scriptOf(btc.depository), value: amount });
    const opReturn = btcScript.decompile(psbt.txOutputs[1]!.script);
    expect(opReturn?.[0]).toBe(btcScript.OPS.OP_RETURN);
    expect(Buffer.from(opReturn?.[1] as Uint8Array).toString('utf8')).toMatch(/^0x[0-9a-f]{64}$/); // a data push follows OP_RETURN
    const inputsSats = psbt.data.inputs.reduce((sum, input) => sum + (input.witnessUtxo?.value ?? 0n), 0n);
    const changeSats = outputs.filter((o) => o.script === scriptOf(btc.treasury.address)).reduce((sum, o) => sum + o.value, 0n);
    const feeSats = inputsSats - outputs.reduce((sum, o) => sum + o.value, 0n);
    expect(feeSats).toBeGreaterThan(0n);

    // execute resolved once the deposit was broadcast: the item is complete and names the txid; the SDK does
    // not poll a Bitcoin origin (no checkStatus), so the status check is followed here
    expect(t.result.error).toBeUndefined();
    expect(t.result.steps.map((s) => s.id)).toEqual(['deposit']);
    const item = t.result.steps[0]!.items[0]!;
    expect(item.status).toBe('complete');
    expect(item.checkStatus).toBeUndefined();
    const txid = item.txHashes?.[0]?.txHash ?? '';
    expect(txid).toMatch(/^[0-9a-f]{64}$/);
    expect(item.txHashes).toEqual([{ txHash: txid, chainId: BITCOIN_ID, isBatchTx: false }]);
    expect(t.progress.at(-1)?.steps[0]?.items[0]?.status).toBe('complete');
    expect(item.check?.endpoint).toContain(t.requestId);

    // the broadcast went to the sandbox Esplora node instead of mempool.space, answered with the txid
    const broadcasts = t.calls().filter((c) => c.url.startsWith(btc.esploraUrl));
    expect(broadcasts.map((c) => [c.method, c.url, c.status])).toEqual([['POST', `${btc.esploraUrl}/api/tx`, 200]]);
    expect(btc.node.confirmations(txid)).not.toBeNull();

    const status = await pollFor(
      () => statusOf(t.requestId),
      (s) => ['success', 'failure', 'refund'].includes(s.status),
      15_000,
    );
    expect(status).toMatchObject({ status: 'success', inTxHashes: [txid], originChainId: BITCOIN_ID });
    await expectOneFill(status);
    expect(btc.node.confirmations(txid)).toBeGreaterThanOrEqual(1);

    // the treasury spent its inputs less its change: the amount plus the fee; the recipient got WBTC on alpha
    expect(treasuryBefore - btc.node.specBalance(btc.treasury.address)).toBe(inputsSats - changeSats);
    expect(inputsSats - changeSats).toBe(amount + feeSats);
    expect(t.minimumOut).toBeGreaterThan(0n);
    expect((await wbtcOf()) - wbtcBefore).toBeGreaterThanOrEqual(t.minimumOut);

    // the SDK's requests: the quote, the broadcast, one deposit notification naming the txid; nothing else. The
    // notification follows the broadcast at once, so it normally finds the deposit unmined and gets the Relay API's
    // 404 (which the SDK ignores); 200 only if a block landed in between
    const isIndex = (c: SdkCall) => c.url.endsWith('/transactions/index');
    const calls = await pollFor(t.calls, (cs) => cs.some((c) => isIndex(c) && c.status !== -1));
    const index = calls.filter(isIndex);
    expect(index.map((c) => c.body)).toEqual([{ txHash: txid, chainId: String(BITCOIN_ID), referrer: 'ballast-e2e' }]);
    expect([404, 200]).toContain(index[0]!.status);
    expect(calls.filter((c) => !isIndex(c)).every((c) => c.status === 200)).toBe(true);
    expect(calls.map((c) => `${c.method} ${new URL(c.url).pathname}`).sort()).toEqual([
      'POST /api/tx',
      'POST /quote/v2',
      'POST /transactions/index',
    ]);
    expect(guard.offLoopback).toEqual([]);
  });
});
