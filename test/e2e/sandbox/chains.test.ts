import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  decodeEventLog,
  http,
  keccak256,
  multicall3Abi,
  parseEventLogs,
  toFunctionSignature,
  toHex,
  zeroAddress,
  type Abi,
  type Address,
  type Hex,
  type TransactionReceipt,
} from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { wholeToBaseUnits } from '../../../packages/protocol/src/core/units.ts';
import { depositoryAbi } from '../../../packages/protocol/src/protocol/depositoryAbi.ts';
import { startAnvil } from '../../../packages/sandbox/src/chains/anvil.ts';
import { setupChain } from '../../../packages/sandbox/src/chains/setupChain.ts';
import { followHeads } from '../../../packages/sandbox/src/solver/evmHeads.ts';
import {
  DEMO_BALANCES,
  localViemChain,
  sandboxAccounts,
  sandboxContractAddresses,
  startLocalChains,
  type LocalChains,
  type LocalEvmChain,
  type SandboxAccount,
} from '../../../packages/sandbox/src/chains/localChains.ts';
import {
  approvalProxyAbi,
  MULTICALL3_ADDRESS,
  relayRouterAbi,
  sandboxDepositoryAbi,
  testStablecoinAbi,
  testTetherAbi,
} from '../../../packages/sandbox/src/contracts/abis.ts';
import { getArtifacts, type SandboxArtifacts } from '../../../packages/sandbox/src/contracts/compile.ts';

const USDC = (whole: string): bigint => wholeToBaseUnits(whole, 6);
const ETH = (whole: string): bigint => wholeToBaseUnits(whole, 18);
const orderId = (label: string): Hex => keccak256(toHex(label));

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false; // errno error from process.kill
    throw error;
  }
}

function wallet(chain: LocalEvmChain, account: SandboxAccount) {
  return createWalletClient({ chain: chain.chain, account, transport: http(chain.rpcUrl) });
}

/** Polls `read` every 100 ms until `done` holds; fails after a generous deadline (slow CI machines). */
async function pollUntil<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: still ${String(v)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function mined(chain: LocalEvmChain, hash: Hex): Promise<TransactionReceipt> {
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return receipt;
}

/**
 * Canonical form of an ABI item: kind, signature, indexed flags, output types and (optionally) mutability.
 * viem declares Multicall3's payable aggregate functions as `view` (it only eth_calls them), hence the option.
 */
function describeItem(item: Abi[number], withMutability = true): string {
  if (item.type !== 'function' && item.type !== 'event' && item.type !== 'error') return item.type;
  const signature = toFunctionSignature({
    type: 'function',
    name: item.name,
    inputs: item.inputs,
    outputs: [],
    stateMutability: 'nonpayable',
  });
  const indexed = item.type === 'event' ? ` indexed[${item.inputs.map((i) => Boolean(i.indexed)).join(',')}]` : '';
  const mutability = item.type === 'function' && withMutability ? ` ${item.stateMutability}` : '';
  const returns = item.type === 'function' ? ` returns(${item.outputs.map((o) => o.type).join(',')})` : '';
  return `${item.type} ${signature}${indexed}${mutability}${returns}`;
}

/** Canonical forms of the functions, events and errors of an ABI. */
function signatures(abi: Abi, withMutability = true): Set<string> {
  return new Set(abi.filter((item) => item.type !== 'constructor').map((item) => describeItem(item, withMutability)));
}

describe('sandbox contracts compile', () => {
  let cacheDir: string;
  let artifacts: SandboxArtifacts;

  beforeAll(async () => {
    cacheDir = await mkdtemp(join(tmpdir(), 'ballast-sandbox-cache-'));
    artifacts = await getArtifacts({ cacheDir });
  });
  afterAll(async () => {
    await rm(cacheDir, { recursive: true, force: true });
  });

  it('writes one cache entry keyed by a sha256 hex digest', async () => {
    const files = await readdir(cacheDir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^artifacts-[0-9a-f]{64}\.json$/);
  });

  it('produces every function, event and error the typed ABIs declare', () => {
    const depository = signatures(artifacts.RelayDepository.abi);
    for (const sig of signatures(sandboxDepositoryAbi)) expect(depository).toContain(sig);
    const stablecoin = signatures(artifacts.TestStablecoin.abi);
    for (const sig of signatures(testStablecoinAbi)) expect(stablecoin).toContain(sig);
    const tether = signatures(artifacts.TestTetherToken.abi);
    for (const sig of signatures(testTetherAbi)) expect(tether).toContain(sig);
    const router = signatures(artifacts.RelayRouter.abi);
    for (const sig of signatures(relayRouterAbi)) expect(router).toContain(sig);
    const proxy = signatures(artifacts.ApprovalProxy.abi);
    for (const sig of signatures(approvalProxyAbi)) expect(proxy).toContain(sig);
    const multicall = signatures(artifacts.Multicall3.abi, false);
    for (const name of ['aggregate3', 'getEthBalance', 'getCurrentBlockTimestamp']) {
      const viemItems = multicall3Abi.filter((item) => item.type === 'function' && item.name === name);
      expect(viemItems.length).toBeGreaterThan(0);
      for (const item of viemItems) expect(multicall).toContain(describeItem(item, false));
    }
  });

  it('emits the public depository, router and approval proxy selectors in the runtime code', () => {
    expect(artifacts.RelayDepository.deployedBytecode).toContain('49290c1c');
    expect(artifacts.RelayDepository.deployedBytecode).toContain('e8017952');
    // relay-periphery: multicall, cleanupErc20s, cleanupNative; transferAndMulticall (README form, v3 form)
    for (const selector of ['30be5567', '3b2253c8', '5de81e3f']) expect(artifacts.RelayRouter.deployedBytecode).toContain(selector);
    for (const selector of ['30875056', 'f9e4bab4']) expect(artifacts.ApprovalProxy.deployedBytecode).toContain(selector);
  });
});

describe('startAnvil', () => {
  it('rejects a non-positive chain id before spawning', async () => {
    await expect(startAnvil({ chainId: 0 })).rejects.toMatchObject({ code: 'ANVIL_START_FAILED' });
  });

  it('starts when this process was blocked past the start timeout while anvil came up', async () => {
    // The node prints its port within the 4 s this thread sleeps; the 1 s timer then fires before that output is
    // read (a synchronous solc compile beside a start once did this). The start must still succeed.
    const pending = startAnvil({ chainId: 31998, startTimeoutMs: 1000 });
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 4000);
    const node = await pending;
    try {
      expect(await createPublicClient({ transport: http(node.rpcUrl) }).getChainId()).toBe(31998);
    } finally {
      await node.stop();
    }
  });

  it('followHeads reports each head the node announces over its WebSocket, starting from the head it is given', async () => {
    const node = await startAnvil({ chainId: 31997 });
    const chain = localViemChain({ slug: 'heads', displayName: 'Heads', chainId: 31997 }, node.rpcUrl);
    const heads = followHeads(node.rpcUrl.replace(/^http/, 'ws'), chain, 0n, pino({ level: 'silent' }));
    const testClient = createTestClient({ chain, mode: 'anvil', transport: http(node.rpcUrl) });
    const mine = (blocks: number) => testClient.mine({ blocks });
    try {
      expect(heads.latest()).toBe(0n);
      // the subscription is set up asynchronously: mine until a head is announced, then once more
      await pollUntil(
        'a first announced head',
        async () => (await mine(1), heads.latest()),
        (n) => n !== undefined && n > 0n,
      );
      const seen = heads.latest()!;
      await mine(2);
      await pollUntil(
        'the heads mined next',
        async () => heads.latest(),
        (n) => n !== undefined && n >= seen + 2n,
      );
    } finally {
      heads.close();
      heads.close(); // idempotent
      await node.stop();
    }
  });

  it('starts with interval mining and stop() is idempotent', async () => {
    const node = await startAnvil({ chainId: 31999, blockTimeSec: 1 });
    try {
      const res = await fetch(node.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_getAutomine', params: [] }),
      });
      expect(await res.json()).toMatchObject({ result: false });
    } finally {
      await node.stop();
      await node.stop();
    }
    expect(isAlive(node.pid)).toBe(false);
  });
});

describe('startLocalChains', () => {
  let sandbox: LocalChains;
  let alpha: LocalEvmChain;
  let beta: LocalEvmChain;
  /** An anvil state snapshot per chain, taken right after start-up. */
  let snapshots: { chain: LocalEvmChain; id: Hex }[] = [];
  const testClient = (chain: LocalEvmChain) => createTestClient({ mode: 'anvil', chain: chain.chain, transport: http(chain.rpcUrl) });

  beforeAll(async () => {
    sandbox = await startLocalChains();
    [alpha, beta] = sandbox.chains as [LocalEvmChain, LocalEvmChain]; // default: exactly alpha and beta
  });
  // Every test starts from the freshly started chains: revert to the start-up snapshot (anvil drops a
  // snapshot once reverted to) and take a new one, so no test depends on what another one did.
  beforeEach(async () => {
    for (const { chain, id } of snapshots) await testClient(chain).revert({ id });
    snapshots = await Promise.all(sandbox.chains.map(async (chain) => ({ chain, id: await testClient(chain).snapshot() })));
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  it('rejects a preset naming a chain that is not started, without starting anything', async () => {
    await expect(startLocalChains({ balances: { gamma: { treasury: { usdc: '1' } } } })).rejects.toMatchObject({
      code: 'LOCAL_CHAINS_BAD_PRESET',
    });
    await expect(
      startLocalChains({
        chains: [
          { slug: 'a', displayName: 'A', chainId: 1 },
          { slug: 'b', displayName: 'B', chainId: 1 },
        ],
      }),
    ).rejects.toMatchObject({
      code: 'LOCAL_CHAINS_BAD_OPTIONS',
    });
  });

  it('serves the configured chain ids', async () => {
    expect(alpha.def.slug).toBe('alpha');
    expect(beta.def.slug).toBe('beta');
    expect(await alpha.publicClient.getChainId()).toBe(31001);
    expect(await beta.publicClient.getChainId()).toBe(31002);
    expect(alpha.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(alpha.rpcUrl).not.toBe(beta.rpcUrl);
  });

  it('uses anvil dev accounts 0..5 for treasury, solver, deployer and extras', async () => {
    const res = await fetch(alpha.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_accounts', params: [] }),
    });
    const nodeAccounts = ((await res.json()) as { result: string[] }).result; // JSON-RPC eth_accounts result
    const ours = [sandbox.accounts.treasury, sandbox.accounts.solver, sandbox.accounts.deployer, ...sandbox.accounts.extra];
    expect(ours.map((a) => a.address.toLowerCase())).toEqual(nodeAccounts.slice(0, 6).map((a) => a.toLowerCase()));
  });

  it('deploys the depository, USDC, USDT and both router + approval proxy pairs at the same addresses on both chains, with code', async () => {
    const expected = sandboxContractAddresses(sandbox.accounts.deployer.address);
    const artifacts = await getArtifacts();
    for (const chain of [alpha, beta]) {
      expect(chain.depository).toBe(expected.depository);
      expect(chain.usdc).toBe(expected.usdc);
      expect(chain.usdt).toBe(expected.usdt);
      expect([chain.erc20Router, chain.approvalProxy, chain.v3.erc20Router, chain.v3.approvalProxy]).toEqual([
        expected.erc20Router,
        expected.approvalProxy,
        expected.v3.erc20Router,
        expected.v3.approvalProxy,
      ]);
      expect(
        new Set([
          chain.depository,
          chain.usdc,
          chain.usdt,
          chain.erc20Router,
          chain.approvalProxy,
          chain.v3.erc20Router,
          chain.v3.approvalProxy,
        ]).size,
      ).toBe(7);
      expect(chain.multicall3).toBe(MULTICALL3_ADDRESS);
      expect((await chain.publicClient.getCode({ address: chain.depository }))?.length).toBeGreaterThan(2);
      for (const [address, name] of [
        [chain.usdt, 'TestTetherToken'],
        [chain.erc20Router, 'RelayRouter'],
        [chain.v3.erc20Router, 'RelayRouter'],
        [chain.approvalProxy, 'ApprovalProxy'],
        [chain.v3.approvalProxy, 'ApprovalProxy'],
      ] as const) {
        // immutables (the proxy's router) are patched into the runtime code at deployment: compare lengths
        expect((await chain.publicClient.getCode({ address }))?.length).toBe(artifacts[name].deployedBytecode.length);
      }
      const proxyRouter = (proxy: Address) =>
        chain.publicClient.readContract({ address: proxy, abi: approvalProxyAbi, functionName: 'router' });
      expect(await proxyRouter(chain.approvalProxy)).toBe(chain.erc20Router);
      expect(await proxyRouter(chain.v3.approvalProxy)).toBe(chain.v3.erc20Router);
      expect(await chain.publicClient.getCode({ address: MULTICALL3_ADDRESS })).toBe((await getArtifacts()).Multicall3.deployedBytecode);
      const owner = await chain.publicClient.readContract({ address: chain.depository, abi: sandboxDepositoryAbi, functionName: 'owner' });
      expect(owner).toBe(sandbox.accounts.solver.address);
    }
  });

  it('funds accounts per DEMO_BALANCES, read through Multicall3', async () => {
    const { treasury, solver } = sandbox.accounts;
    for (const chain of [alpha, beta]) {
      const preset = DEMO_BALANCES[chain.def.slug];
      const tokenRead = (fn: 'name' | 'symbol' | 'decimals') =>
        ({ address: chain.usdc, abi: testStablecoinAbi, functionName: fn }) as const;
      const usdcOf = (who: Address) => ({ address: chain.usdc, abi: testStablecoinAbi, functionName: 'balanceOf', args: [who] }) as const;
      const ethOf = (who: Address) =>
        ({ address: MULTICALL3_ADDRESS, abi: multicall3Abi, functionName: 'getEthBalance', args: [who] }) as const;
      const usdtRead = (fn: 'name' | 'symbol' | 'decimals') => ({ address: chain.usdt, abi: testTetherAbi, functionName: fn }) as const;
      const usdtOf = (who: Address) => ({ address: chain.usdt, abi: testTetherAbi, functionName: 'balanceOf', args: [who] }) as const;
      const results = await chain.publicClient.multicall({
        contracts: [
          tokenRead('name'),
          tokenRead('symbol'),
          tokenRead('decimals'),
          usdcOf(treasury.address),
          usdcOf(solver.address),
          ethOf(treasury.address),
          ethOf(solver.address),
          usdcOf(sandbox.accounts.extra[0]!.address),
        ],
        allowFailure: false,
      });
      expect(results).toEqual(['USD Coin', 'USDC', 6, USDC(preset!.treasury!.usdc!), USDC('1000000'), ETH('10'), ETH('100'), 0n]);
      const usdt = await chain.publicClient.multicall({
        contracts: [
          usdtRead('name'),
          usdtRead('symbol'),
          usdtRead('decimals'),
          usdtOf(treasury.address),
          usdtOf(solver.address),
          usdtOf(sandbox.accounts.extra[0]!.address),
        ],
        allowFailure: false,
      });
      expect(usdt).toEqual(['Tether USD', 'USDT', 6, USDC('50000'), USDC('1000000'), 0n]);
    }
    expect(DEMO_BALANCES.alpha!.treasury!.usdc).toBe('90000');
    expect(DEMO_BALANCES.beta!.treasury!.usdc).toBe('10000');
  });

  it('depositErc20 pulls USDC into the depository and emits RelayErc20Deposit', async () => {
    const { treasury } = sandbox.accounts;
    const treasuryWallet = wallet(alpha, treasury);
    const amount = USDC('1234.5');
    const id = orderId('erc20-deposit');
    const before = await alpha.publicClient.readContract({
      address: alpha.usdc,
      abi: testStablecoinAbi,
      functionName: 'balanceOf',
      args: [treasury.address],
    });
    await mined(
      alpha,
      await treasuryWallet.writeContract({
        address: alpha.usdc,
        abi: testStablecoinAbi,
        functionName: 'approve',
        args: [alpha.depository, amount],
      }),
    );
    const receipt = await mined(
      alpha,
      await treasuryWallet.writeContract({
        address: alpha.depository,
        abi: depositoryAbi,
        functionName: 'depositErc20',
        args: [treasury.address, alpha.usdc, amount, id],
      }),
    );
    const depositLog = receipt.logs.find((l) => l.address.toLowerCase() === alpha.depository.toLowerCase());
    expect(depositLog).toBeDefined();
    const event = decodeEventLog({ abi: depositoryAbi, data: depositLog!.data, topics: depositLog!.topics });
    expect(event).toEqual({ eventName: 'RelayErc20Deposit', args: { from: treasury.address, token: alpha.usdc, amount, id } });
    const [after, held] = await alpha.publicClient.multicall({
      contracts: [
        { address: alpha.usdc, abi: testStablecoinAbi, functionName: 'balanceOf', args: [treasury.address] },
        { address: alpha.usdc, abi: testStablecoinAbi, functionName: 'balanceOf', args: [alpha.depository] },
      ],
      allowFailure: false,
    });
    expect(before - after).toBe(amount);
    expect(held).toBe(amount);
  });

  it('credits msg.sender when depositor is zero, and the named depositor otherwise', async () => {
    const sender = sandbox.accounts.solver;
    const other = sandbox.accounts.extra[1]!.address;
    const w = wallet(beta, sender);
    await mined(
      beta,
      await w.writeContract({ address: beta.usdc, abi: testStablecoinAbi, functionName: 'approve', args: [beta.depository, 2n] }),
    );
    const r1 = await mined(
      beta,
      await w.writeContract({
        address: beta.depository,
        abi: depositoryAbi,
        functionName: 'depositErc20',
        args: [zeroAddress, beta.usdc, 1n, orderId('zero')],
      }),
    );
    const r2 = await mined(
      beta,
      await w.writeContract({
        address: beta.depository,
        abi: depositoryAbi,
        functionName: 'depositErc20',
        args: [other, beta.usdc, 1n, orderId('other')],
      }),
    );
    const [e1] = parseEventLogs({ abi: depositoryAbi, logs: r1.logs, eventName: 'RelayErc20Deposit' });
    const [e2] = parseEventLogs({ abi: depositoryAbi, logs: r2.logs, eventName: 'RelayErc20Deposit' });
    expect(e1?.args.from).toBe(sender.address);
    expect(e2?.args.from).toBe(other);
  });

  it('depositNative emits RelayNativeDeposit with msg.value and keeps the ETH', async () => {
    const { treasury } = sandbox.accounts;
    const value = ETH('0.25');
    const id = orderId('native-deposit');
    const receipt = await mined(
      beta,
      await wallet(beta, treasury).writeContract({
        address: beta.depository,
        abi: depositoryAbi,
        functionName: 'depositNative',
        args: [treasury.address, id],
        value,
      }),
    );
    const events = parseEventLogs({ abi: depositoryAbi, logs: receipt.logs });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ eventName: 'RelayNativeDeposit', args: { from: treasury.address, amount: value, id } });
    expect(await beta.publicClient.getBalance({ address: beta.depository })).toBe(value);
  });

  it('lets only the solver withdraw from the depository (sandbox refunds)', async () => {
    const { treasury, solver } = sandbox.accounts;
    const held = ETH('0.5');
    await mined(
      beta,
      await wallet(beta, treasury).writeContract({
        address: beta.depository,
        abi: depositoryAbi,
        functionName: 'depositNative',
        args: [treasury.address, orderId('refund')],
        value: held,
      }),
    );
    expect(await beta.publicClient.getBalance({ address: beta.depository })).toBe(held);
    await expect(
      beta.publicClient.simulateContract({
        account: treasury,
        address: beta.depository,
        abi: sandboxDepositoryAbi,
        functionName: 'withdrawNative',
        args: [treasury.address, held, orderId('refund')],
      }),
    ).rejects.toThrow(/Unauthorized/);
    const before = await beta.publicClient.getBalance({ address: treasury.address });
    const receipt = await mined(
      beta,
      await wallet(beta, solver).writeContract({
        address: beta.depository,
        abi: sandboxDepositoryAbi,
        functionName: 'withdrawNative',
        args: [treasury.address, held, orderId('refund')],
      }),
    );
    expect(await beta.publicClient.getBalance({ address: treasury.address })).toBe(before + held);
    expect(await beta.publicClient.getBalance({ address: beta.depository })).toBe(0n);
    const [event] = parseEventLogs({ abi: sandboxDepositoryAbi, logs: receipt.logs, eventName: 'SandboxWithdrawal' });
    expect(event?.args).toEqual({ token: zeroAddress, to: treasury.address, amount: held, id: orderId('refund') });
  });

  it('lets only the deployer mint USDC', async () => {
    await expect(
      alpha.publicClient.simulateContract({
        account: sandbox.accounts.treasury,
        address: alpha.usdc,
        abi: testStablecoinAbi,
        functionName: 'mint',
        args: [sandbox.accounts.treasury.address, 1n],
      }),
    ).rejects.toThrow(/Unauthorized/);
  });
});

describe('startLocalChains with custom chains, preset and interval mining', () => {
  it('funds only what the preset names, mines blocks on its own, and stop() kills every anvil process', async () => {
    const sandbox = await startLocalChains({
      chains: [{ slug: 'gamma', displayName: 'Gamma', chainId: 31777 }],
      balances: { gamma: { extra1: { usdc: '5.25', usdt: '0.5', eth: '0' } } },
      blockTimeSec: 1,
    });
    const pids = sandbox.chains.map((c) => c.pid);
    try {
      expect(pids.every(isAlive)).toBe(true);
      const [gamma] = sandbox.chains as [LocalEvmChain]; // one chain requested
      expect(await gamma.publicClient.getChainId()).toBe(31777);
      const extra1 = sandbox.accounts.extra[1]!.address;
      const [extraUsdc, treasuryUsdc, extraEth, extraUsdt, treasuryUsdt] = await gamma.publicClient.multicall({
        contracts: [
          { address: gamma.usdc, abi: testStablecoinAbi, functionName: 'balanceOf', args: [extra1] },
          { address: gamma.usdc, abi: testStablecoinAbi, functionName: 'balanceOf', args: [sandbox.accounts.treasury.address] },
          { address: MULTICALL3_ADDRESS, abi: multicall3Abi, functionName: 'getEthBalance', args: [extra1] },
          { address: gamma.usdt, abi: testTetherAbi, functionName: 'balanceOf', args: [extra1] },
          { address: gamma.usdt, abi: testTetherAbi, functionName: 'balanceOf', args: [sandbox.accounts.treasury.address] },
        ],
        allowFailure: false,
      });
      expect([extraUsdc, treasuryUsdc, extraEth, extraUsdt, treasuryUsdt]).toEqual([5_250_000n, 0n, 0n, 500_000n, 0n]);
      const first = await gamma.publicClient.getBlockNumber({ cacheTime: 0 });
      // no transactions are sent: only interval mining can move the head
      await pollUntil(
        'a block mined by the interval',
        () => gamma.publicClient.getBlockNumber({ cacheTime: 0 }),
        (n) => n > first,
      );
    } finally {
      await sandbox.stop();
      await sandbox.stop(); // idempotent
    }
    expect(pids.map(isAlive)).toEqual(pids.map(() => false));
  });

  it('setupChain given a saved state loads it instead of deploying, and funds only its own preset', async () => {
    const artifacts = await getArtifacts();
    const accounts = sandboxAccounts();
    const expected = sandboxContractAddresses(accounts.deployer.address);
    const def = { slug: 'delta', displayName: 'Delta', chainId: 31778 };
    const setUp = async (usdc: string, withArtifacts: SandboxArtifacts, deployedState?: Hex) => {
      const node = await startAnvil({ chainId: def.chainId });
      try {
        const chain = localViemChain(def, node.rpcUrl);
        const publicClient = createPublicClient({ chain, transport: http(node.rpcUrl) });
        const state = await setupChain({
          slug: def.slug,
          chain,
          publicClient,
          artifacts: withArtifacts,
          accounts,
          balances: { extra0: { usdc } },
          expected,
          ...(deployedState !== undefined ? { deployedState } : {}),
        });
        const read = (address: Address) => publicClient.getCode({ address });
        return {
          state,
          code: await Promise.all([MULTICALL3_ADDRESS, expected.depository, expected.usdc, expected.approvalProxy].map(read)),
          owner: await publicClient.readContract({ address: expected.depository, abi: sandboxDepositoryAbi, functionName: 'owner' }),
          usdc: await publicClient.readContract({
            address: expected.usdc,
            abi: testStablecoinAbi,
            functionName: 'balanceOf',
            args: [accounts.extra[0]!.address],
          }),
          // the deployments (nonces 0..7) and one mint: a state saved after the funding would count two mints
          deployerNonce: await publicClient.getTransactionCount({ address: accounts.deployer.address }),
        };
      } finally {
        await node.stop();
      }
    };
    const first = await setUp('7', artifacts);
    // Code that reverts on deployment: the second chain can hold the contracts only by loading the saved state.
    const unusable = Object.fromEntries(
      Object.entries(artifacts).map(([name, a]) => [name, { ...a, bytecode: '0xfe', deployedBytecode: '0xfe' }]),
    ) as unknown as SandboxArtifacts;
    const second = await setUp('3', unusable, first.state);
    expect(first.code.every((c) => c !== undefined && c.length > 4)).toBe(true);
    expect(second.code).toEqual(first.code);
    expect(second.owner).toBe(first.owner);
    expect([first.usdc, second.usdc]).toEqual([7_000_000n, 3_000_000n]);
    expect([first.deployerNonce, second.deployerNonce]).toEqual([9, 9]);
  });
});
