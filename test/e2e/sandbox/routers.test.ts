/**
 * End-to-end: the Tether-style USDT and the router contracts on real anvil chains (one set of chains for the
 * file; every test starts from the start-up state through an anvil snapshot). Shows what GET /chains' routers
 * are: contracts that execute anyone's calls, so an allowance left with them is anyone's to take.
 */
import {
  createTestClient,
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  http,
  keccak256,
  parseEventLogs,
  toHex,
  zeroAddress,
  type Address,
  type Hex,
  type TransactionReceipt,
} from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { wholeToBaseUnits } from '../../../packages/protocol/src/core/units.ts';
import { depositoryAbi } from '../../../packages/protocol/src/protocol/depositoryAbi.ts';
import {
  startLocalChains,
  type LocalChains,
  type LocalEvmChain,
  type SandboxAccount,
} from '../../../packages/sandbox/src/chains/localChains.ts';
import { approvalProxyAbi, relayRouterAbi, sandboxDepositoryAbi, testTetherAbi } from '../../../packages/sandbox/src/contracts/abis.ts';

const USDC = (whole: string): bigint => wholeToBaseUnits(whole, 6);
const ETH = (whole: string): bigint => wholeToBaseUnits(whole, 18);
const orderId = (label: string): Hex => keccak256(toHex(label));

function wallet(chain: LocalEvmChain, account: SandboxAccount) {
  return createWalletClient({ chain: chain.chain, account, transport: http(chain.rpcUrl) });
}

async function mined(chain: LocalEvmChain, hash: Hex): Promise<TransactionReceipt> {
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return receipt;
}

describe('sandbox USDT and router contracts', () => {
  let sandbox: LocalChains;
  let alpha: LocalEvmChain;
  let beta: LocalEvmChain;
  let snapshots: { chain: LocalEvmChain; id: Hex }[] = [];
  const testClient = (chain: LocalEvmChain) => createTestClient({ mode: 'anvil', chain: chain.chain, transport: http(chain.rpcUrl) });

  beforeAll(async () => {
    sandbox = await startLocalChains();
    [alpha, beta] = sandbox.chains as [LocalEvmChain, LocalEvmChain]; // default: exactly alpha and beta
  });
  beforeEach(async () => {
    for (const { chain, id } of snapshots) await testClient(chain).revert({ id });
    snapshots = await Promise.all(sandbox.chains.map(async (chain) => ({ chain, id: await testClient(chain).snapshot() })));
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  it('USDT approve reverts on a non-zero → non-zero change (like Tether) and works through zero', async () => {
    const { treasury } = sandbox.accounts;
    const w = wallet(alpha, treasury);
    const spender = sandbox.accounts.extra[2]!.address;
    const allowanceOf = () =>
      alpha.publicClient.readContract({
        address: alpha.usdt,
        abi: testTetherAbi,
        functionName: 'allowance',
        args: [treasury.address, spender],
      });
    await mined(alpha, await w.writeContract({ address: alpha.usdt, abi: testTetherAbi, functionName: 'approve', args: [spender, 5n] }));
    expect(await allowanceOf()).toBe(5n);
    await expect(
      alpha.publicClient.simulateContract({
        account: treasury,
        address: alpha.usdt,
        abi: testTetherAbi,
        functionName: 'approve',
        args: [spender, 6n],
      }),
    ).rejects.toThrow(/NonZeroAllowanceChange/);
    // sent anyway (fixed gas, no estimation): the transaction is mined and reverts, the allowance is unchanged
    const reverted = await w.writeContract({
      address: alpha.usdt,
      abi: testTetherAbi,
      functionName: 'approve',
      args: [spender, 6n],
      gas: 100_000n,
    });
    expect((await alpha.publicClient.waitForTransactionReceipt({ hash: reverted })).status).toBe('reverted');
    expect(await allowanceOf()).toBe(5n);
    await mined(alpha, await w.writeContract({ address: alpha.usdt, abi: testTetherAbi, functionName: 'approve', args: [spender, 0n] }));
    await mined(alpha, await w.writeContract({ address: alpha.usdt, abi: testTetherAbi, functionName: 'approve', args: [spender, 6n] }));
    expect(await allowanceOf()).toBe(6n);
    // like Tether, transfer returns no data at all (not even `true`)
    const call = await alpha.publicClient.call({
      account: treasury.address,
      to: alpha.usdt,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [spender, 1n] }),
    });
    expect(call.data).toBeUndefined();
  });

  it('the depository takes and returns USDT although its transfer functions return nothing', async () => {
    const { treasury, solver } = sandbox.accounts;
    const w = wallet(beta, treasury);
    const amount = USDC('321');
    const id = orderId('usdt-deposit');
    const usdtOf = (who: Address) =>
      beta.publicClient.readContract({ address: beta.usdt, abi: testTetherAbi, functionName: 'balanceOf', args: [who] });
    const before = await usdtOf(treasury.address);
    await mined(
      beta,
      await w.writeContract({ address: beta.usdt, abi: testTetherAbi, functionName: 'approve', args: [beta.depository, amount] }),
    );
    const receipt = await mined(
      beta,
      await w.writeContract({
        address: beta.depository,
        abi: depositoryAbi,
        functionName: 'depositErc20',
        args: [treasury.address, beta.usdt, amount, id],
      }),
    );
    const [event] = parseEventLogs({ abi: depositoryAbi, logs: receipt.logs, eventName: 'RelayErc20Deposit' });
    expect(event?.args).toEqual({ from: treasury.address, token: beta.usdt, amount, id });
    expect(await usdtOf(beta.depository)).toBe(amount);
    expect(before - (await usdtOf(treasury.address))).toBe(amount);
    await mined(
      beta,
      await wallet(beta, solver).writeContract({
        address: beta.depository,
        abi: sandboxDepositoryAbi,
        functionName: 'withdrawErc20',
        args: [beta.usdt, treasury.address, amount, id],
      }),
    );
    expect(await usdtOf(treasury.address)).toBe(before);
    expect(await usdtOf(beta.depository)).toBe(0n);
  });

  it.each([
    ['erc20Router', 'usdc'],
    ['v3.erc20Router', 'usdc'],
    ['erc20Router', 'usdt'],
  ] as const)('a stranger drains an allowance left with the %s (%s) through its multicall', async (which, token) => {
    const { treasury } = sandbox.accounts;
    const stranger = sandbox.accounts.extra[0]!;
    const router = which === 'erc20Router' ? alpha.erc20Router : alpha.v3.erc20Router;
    const tokenAddress = alpha[token];
    const balanceOf = (who: Address) =>
      alpha.publicClient.readContract({ address: tokenAddress, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
    const allowance = USDC('777');
    await mined(
      alpha,
      await wallet(alpha, treasury).writeContract({
        address: tokenAddress,
        abi: erc20Abi,
        functionName: 'approve',
        args: [router, allowance],
      }),
    );
    const treasuryBefore = await balanceOf(treasury.address);
    const strangerBefore = await balanceOf(stranger.address);
    const take = encodeFunctionData({ abi: erc20Abi, functionName: 'transferFrom', args: [treasury.address, stranger.address, allowance] });
    await mined(
      alpha,
      await wallet(alpha, stranger).writeContract({
        address: router,
        abi: relayRouterAbi,
        functionName: 'multicall',
        args: [[{ target: tokenAddress, allowFailure: false, value: 0n, callData: take }], stranger.address, zeroAddress],
      }),
    );
    expect(treasuryBefore - (await balanceOf(treasury.address))).toBe(allowance);
    expect((await balanceOf(stranger.address)) - strangerBefore).toBe(allowance);
    expect(
      await alpha.publicClient.readContract({
        address: tokenAddress,
        abi: erc20Abi,
        functionName: 'allowance',
        args: [treasury.address, router],
      }),
    ).toBe(0n);
  });

  it.each([['approvalProxy'], ['v3.approvalProxy']] as const)(
    'the %s pulls approved USDT into its router, runs the calls there, and leftovers are swept by cleanupErc20s',
    async (which) => {
      const { treasury } = sandbox.accounts;
      const recipient = sandbox.accounts.extra[1]!.address;
      const proxy = which === 'approvalProxy' ? beta.approvalProxy : beta.v3.approvalProxy;
      const router = which === 'approvalProxy' ? beta.erc20Router : beta.v3.erc20Router;
      const usdtOf = (who: Address) =>
        beta.publicClient.readContract({ address: beta.usdt, abi: testTetherAbi, functionName: 'balanceOf', args: [who] });
      const w = wallet(beta, treasury);
      const amount = USDC('100');
      await mined(beta, await w.writeContract({ address: beta.usdt, abi: testTetherAbi, functionName: 'approve', args: [proxy, amount] }));
      const before = await usdtOf(treasury.address);
      // the router forwards 60 to the recipient and keeps 40
      const forward = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [recipient, USDC('60')] });
      const calls = [{ target: beta.usdt, allowFailure: false, value: 0n, callData: forward }] as const;
      const hash =
        which === 'approvalProxy'
          ? await w.writeContract({
              address: proxy,
              abi: approvalProxyAbi,
              functionName: 'transferAndMulticall',
              args: [[beta.usdt], [amount], calls, treasury.address, zeroAddress],
            })
          : await w.writeContract({
              address: proxy,
              abi: approvalProxyAbi,
              functionName: 'transferAndMulticall',
              args: [[beta.usdt], [amount], calls, treasury.address, zeroAddress, '0x'],
            });
      await mined(beta, hash);
      expect(before - (await usdtOf(treasury.address))).toBe(amount);
      expect(await usdtOf(recipient)).toBe(USDC('60'));
      expect(await usdtOf(router)).toBe(USDC('40'));
      // anyone may sweep what is left on the router (amount 0 = the whole balance)
      const sweeper = sandbox.accounts.extra[0]!;
      await mined(
        beta,
        await wallet(beta, sweeper).writeContract({
          address: router,
          abi: relayRouterAbi,
          functionName: 'cleanupErc20s',
          args: [[beta.usdt], [sweeper.address], [0n]],
        }),
      );
      expect(await usdtOf(router)).toBe(0n);
      expect(await usdtOf(sweeper.address)).toBe(USDC('40'));
    },
  );

  it('the router sends native currency left with it to refundTo, or via cleanupNative to anyone who asks', async () => {
    const stranger = sandbox.accounts.extra[0]!;
    const refundTo = sandbox.accounts.extra[2]!.address;
    const before = await alpha.publicClient.getBalance({ address: refundTo });
    await mined(
      alpha,
      await wallet(alpha, stranger).writeContract({
        address: alpha.v3.erc20Router,
        abi: relayRouterAbi,
        functionName: 'multicall',
        args: [[], refundTo, zeroAddress],
        value: ETH('0.5'),
      }),
    );
    expect((await alpha.publicClient.getBalance({ address: refundTo })) - before).toBe(ETH('0.5'));
    expect(await alpha.publicClient.getBalance({ address: alpha.v3.erc20Router })).toBe(0n);
    await mined(alpha, await wallet(alpha, sandbox.accounts.treasury).sendTransaction({ to: alpha.erc20Router, value: ETH('0.25') }));
    await mined(
      alpha,
      await wallet(alpha, stranger).writeContract({
        address: alpha.erc20Router,
        abi: relayRouterAbi,
        functionName: 'cleanupNative',
        args: [0n, refundTo],
      }),
    );
    expect((await alpha.publicClient.getBalance({ address: refundTo })) - before).toBe(ETH('0.75'));
  });
});
