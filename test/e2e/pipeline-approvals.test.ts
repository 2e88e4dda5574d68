/**
 * Approvals end to end on real anvil chains with the sandbox's Tether-style USDT (its `approve` reverts on a
 * non-zero → non-zero change): before signing the quote's approval Ballast reads the allowance, sends nothing
 * when it already covers the payment, resets a short non-zero one to zero first, and approves only the
 * depository. `ballast allowances` shows leftovers with routers and approval proxies, which anyone may spend.
 */
import { createWalletClient, http, type Address, type Hex } from 'viem';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { listAllowances } from '../../packages/ballast/src/audit/allowances.ts';
import { sandboxEnv } from '../../packages/ballast/src/cli/sandboxEnv.ts';
import type { LocalEvmChain } from '../../packages/sandbox/src/chains/localChains.ts';
import { testTetherAbi } from '../../packages/sandbox/src/contracts/abis.ts';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { runCli, runCliInProcess } from './helpers/cli.ts';
import { ballastOnSandbox, tempDir } from './helpers/sandboxBallast.ts';

const USDT = 1_000_000n; // 6 decimals
const tmp = tempDir('ballast-approvals-');
let sandbox: Sandbox | null = null;

afterEach(async () => {
  await sandbox?.stop();
  sandbox = null;
});
afterAll(() => tmp.cleanup());

/** A USDT-only treasury: alpha holds 50000 (max 30000), beta 50000 (min 60000): one 18000 USDT transfer. */
const USDT_ASSETS = {
  USDT: [
    { chain: 'alpha', currency: '${SANDBOX_USDT}', wallet: 'treasury', min: '10000', target: '20000', max: '30000' },
    { chain: 'beta', currency: '${SANDBOX_USDT}', wallet: 'treasury', min: '60000', target: '70000', max: '80000' },
  ],
};

function chainOf(s: Sandbox, slug: string): LocalEvmChain {
  return s.chains.find((c) => c.def.slug === slug)!;
}

/** Sends `approve(spender, amount)` of the treasury's USDT on alpha and waits for it. */
async function treasuryApprove(s: Sandbox, spender: Address, amount: bigint): Promise<void> {
  const alpha = chainOf(s, 'alpha');
  const w = createWalletClient({ chain: alpha.chain, account: s.accounts.treasury, transport: http(alpha.rpcUrl) });
  const hash = await w.writeContract({ address: alpha.usdt, abi: testTetherAbi, functionName: 'approve', args: [spender, amount] });
  expect((await alpha.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
}

async function allowance(s: Sandbox, spender: Address): Promise<bigint> {
  const alpha = chainOf(s, 'alpha');
  return alpha.publicClient.readContract({
    address: alpha.usdt,
    abi: testTetherAbi,
    functionName: 'allowance',
    args: [s.accounts.treasury.address, spender],
  });
}

async function usdtOf(s: Sandbox, slug: string): Promise<bigint> {
  const chain = chainOf(s, slug);
  return chain.publicClient.readContract({
    address: chain.usdt,
    abi: testTetherAbi,
    functionName: 'balanceOf',
    args: [s.accounts.treasury.address],
  });
}

/** Runs one cycle of the USDT treasury and returns the one transfer it recorded. */
async function runUsdtCycle(s: Sandbox) {
  const { ballast } = ballastOnSandbox(s, tmp.dir, { assets: USDT_ASSETS });
  try {
    const before = { alpha: await usdtOf(s, 'alpha'), beta: await usdtOf(s, 'beta') };
    const report = await ballast.runCycle('once');
    expect(report.attempts.map((a) => a.outcome)).toEqual(['success']);
    // beta (band 60 000–80 000) refilled to min + 40 % of its band, 68 000
    expect(report.attempts[0]!.planned.amountIn).toBe(18_000n * USDT);
    const transfers = await listRecentTransfers(ballast.db, 10);
    expect(transfers).toHaveLength(1);
    const transfer = transfers[0]!;
    expect(transfer.status).toBe('success');
    expect(before.alpha - (await usdtOf(s, 'alpha'))).toBe(18_000n * USDT);
    expect((await usdtOf(s, 'beta')) - before.beta >= transfer.minOut).toBe(true);
    const alpha = chainOf(s, 'alpha');
    for (const tx of transfer.txs) {
      expect((await alpha.publicClient.getTransactionReceipt({ hash: tx.txHash as Hex })).status).toBe('success');
    }
    return transfer;
  } finally {
    await ballast.close();
  }
}

describe('approvals before a USDT deposit', () => {
  it('allowance zero: approves the depository for exactly the payment, then deposits', async () => {
    sandbox = await startSandbox({ faults: { fillDelayMs: 0 } });
    const depository = chainOf(sandbox, 'alpha').depository;
    const transfer = await runUsdtCycle(sandbox);
    expect(transfer.txs.map((t) => t.stepId)).toEqual(['approve', 'deposit']);
    expect(await allowance(sandbox, depository)).toBe(0n); // the deposit pulled exactly what was approved
  });

  it('allowance non-zero but short: resets it to zero first (Tether reverts otherwise), then approves and deposits', async () => {
    sandbox = await startSandbox({ faults: { fillDelayMs: 0 } });
    const depository = chainOf(sandbox, 'alpha').depository;
    await treasuryApprove(sandbox, depository, 5n);
    const transfer = await runUsdtCycle(sandbox);
    expect(transfer.txs.map((t) => t.stepId)).toEqual(['approve:reset', 'approve', 'deposit']);
    expect(await allowance(sandbox, depository)).toBe(0n);
  });

  it('allowance already covering the payment: sends no approval at all', async () => {
    sandbox = await startSandbox({ faults: { fillDelayMs: 0 } });
    const depository = chainOf(sandbox, 'alpha').depository;
    await treasuryApprove(sandbox, depository, 25_000n * USDT);
    const transfer = await runUsdtCycle(sandbox);
    expect(transfer.txs.map((t) => t.stepId)).toEqual(['deposit']);
    expect(await allowance(sandbox, depository)).toBe(7_000n * USDT); // 25 000 less the 18 000 deposited
  });
});

describe('ballast allowances', () => {
  it('lists non-zero allowances to every contract GET /chains names, flags routers, and fails on them when asked', async () => {
    sandbox = await startSandbox({});
    const alpha = chainOf(sandbox, 'alpha');
    await treasuryApprove(sandbox, alpha.v3.erc20Router, 1n * USDT);
    const { ballast, configFile, store } = ballastOnSandbox(sandbox, tmp.dir, { assets: USDT_ASSETS });
    try {
      const { chains } = await ballast.relay.getChains();
      const rows = await listAllowances(ballast.ctx, chains);
      const nonZero = rows.filter((r) => r.allowance !== 0n);
      expect(nonZero.map((r) => [r.chain, r.spenderName, r.spender.toLowerCase(), r.allowance, r.risky])).toEqual([
        ['alpha', 'contracts.v3.erc20Router', alpha.v3.erc20Router.toLowerCase(), 1n * USDT, true],
      ]);
      // every listed contract of both chains was read, the depository among them and not flagged
      const spenders = new Set(rows.filter((r) => r.chain === 'alpha').map((r) => r.spenderName));
      expect(spenders).toEqual(
        new Set([
          'contracts.multicall3',
          'contracts.erc20Router',
          'contracts.approvalProxy',
          'contracts.v3.erc20Router',
          'contracts.v3.approvalProxy',
          'contracts["v3.2"].erc20Router',
          'contracts["v3.2"].approvalProxy',
          'protocol.v2.depository',
        ]),
      );
      expect(rows.find((r) => r.spenderName === 'protocol.v2.depository')!.risky).toBe(false);
      expect(rows.every((r) => r.error === undefined)).toBe(true);

      const env = sandboxEnv(sandbox, store);
      const listed = await runCliInProcess(['allowances', '--config', configFile, '--json'], { env }); // main(), in process
      expect(listed.code).toBe(0);
      const json = JSON.parse(listed.stdout) as { spenderName: string; allowance: string; risky: boolean }[];
      expect(json.map((r) => [r.spenderName, r.allowance, r.risky])).toEqual([['contracts.v3.erc20Router', '1000000', true]]);
      const strict = await runCli(['allowances', '--config', configFile, '--fail-on-risk'], { env });
      expect(strict.code).toBe(1);
      expect(strict.stdout).toContain('anyone may spend: revoke (approve 0)');
    } finally {
      await ballast.close();
    }
  });
});
