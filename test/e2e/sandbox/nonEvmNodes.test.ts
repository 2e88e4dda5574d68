/**
 * The sandbox's non-EVM nodes on their own (no anvil): both treasuries are funded as documented, the Bitcoin
 * node mines on its timer and stops mining when stopped, and the chain reads the quote path uses agree with
 * the nodes (the Relay API's Bitcoin balance, confirmed coins only).
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BITCOIN_TREASURY_COINS_SATS,
  SOLANA_TREASURY_LAMPORTS,
  SOLANA_TREASURY_USDC,
  startVmNodes,
  type VmNodes,
} from '../../../packages/sandbox/src/vmNodes.ts';
import { BITCOIN_ID, SOLANA_ID } from './nonEvmKit.ts';

let nodes: VmNodes;

beforeAll(async () => {
  nodes = await startVmNodes({ solana: true, bitcoin: true, bitcoinBlockMs: 50, logger: pino({ level: 'silent' }) });
});
afterAll(async () => {
  await nodes?.stop();
});

describe('startVmNodes', () => {
  it('funds the Solana treasury with SOL and test USDC, and lists both chains for the API', async () => {
    const sol = nodes.solana!;
    expect(sol.node.balance(sol.treasury.address)).toBe(SOLANA_TREASURY_LAMPORTS);
    expect(sol.node.tokenBalance(sol.treasury.address, sol.usdcMint)).toBe(SOLANA_TREASURY_USDC);
    expect(sol.treasury.keypair.publicKey.toBase58()).toBe(sol.treasury.address);
    expect(nodes.state!.chains.map((c) => [c.chainId, c.vmType, c.depository])).toEqual([
      [SOLANA_ID, 'svm', sol.depositoryProgramId],
      [BITCOIN_ID, 'bvm', nodes.bitcoin!.depository],
    ]);
    const io = nodes.state!.io;
    expect(
      await io.balanceOf(
        SOLANA_ID,
        { id: 'usdc', symbol: 'USDC', name: 'USD Coin', address: sol.usdcMint, decimals: 6, isNative: false },
        sol.treasury.address,
      ),
    ).toBe(SOLANA_TREASURY_USDC);
  });

  it('funds the Bitcoin treasury in separate confirmed coins, mines on its timer, and stops mining when stopped', async () => {
    const btc = nodes.bitcoin!;
    const io = nodes.state!.io;
    const coins = await io.bitcoinCoins(btc.treasury.address);
    expect(coins.map((c) => c.value).sort()).toEqual([...BITCOIN_TREASURY_COINS_SATS].sort());
    expect(
      await io.balanceOf(
        BITCOIN_ID,
        { id: 'btc', symbol: 'BTC', name: 'Bitcoin', address: 'x', decimals: 8, isNative: true },
        btc.treasury.address,
      ),
    ).toBe(BITCOIN_TREASURY_COINS_SATS.reduce((a, b) => a + b, 0n));
    expect(await io.bitcoinFeeRate()).toBe(2n); // the node's default estimate for 2 blocks
    const start = btc.node.tipHeight();
    await new Promise((r) => setTimeout(r, 300));
    expect(btc.node.tipHeight()).toBeGreaterThan(start + 2);
    await nodes.stop();
    const stopped = btc.node.tipHeight();
    await new Promise((r) => setTimeout(r, 200));
    expect(btc.node.tipHeight()).toBe(stopped);
    await nodes.stop(); // idempotent
  });
});
