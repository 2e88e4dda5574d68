/**
 * `chains.<name>.gasTopUp` (src/config/gasTopUp.ts): how it loads (its source resolved to one holding, the
 * wallet named) and every error, each naming the YAML path and the fix.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import { ENV, KEY2, KEY2_ADDRESS, baseConfig, issueLines, loadErrorIn, tempDirPerTest } from './helpers.ts';

const tmp = tempDirPerTest();
const NATIVE = '0x0000000000000000000000000000000000000000';

/** The base config with an ETH holding on base and a gas top-up on base bought with arbitrum USDC. */
function topUpConfig(): Record<string, any> {
  const c = baseConfig();
  c.chains.base.minGasBalance = '0.005';
  c.chains.base.gasTopUp = { from: 'arbitrum:USDC', amount: '25', minOut: '0.006' };
  c.assets.ETH = [{ chain: 'base', currency: NATIVE, wallet: 'treasury', min: '1', target: '2', max: '3' }];
  return c;
}

describe('config chains.<name>.gasTopUp', () => {
  it('loads with its source resolved to one holding (the wallet named)', () => {
    const config = loadConfig(tmp.write(topUpConfig()), ENV);
    expect(config.chains.base?.gasTopUp).toEqual({
      from: { chain: 'arbitrum', asset: 'USDC', wallet: 'treasury' },
      amount: '25',
      minOut: '0.006',
    });
    expect(config.chains.arbitrum?.gasTopUp).toBeUndefined();
  });

  it.each([
    [
      'without minGasBalance on the chain',
      (c: any) => delete c.chains.base.minGasBalance,
      'chains.base.gasTopUp: needs chains.base.minGasBalance: a signer is topped up when its native balance falls below it; set minGasBalance or remove gasTopUp',
    ],
    [
      'from naming no holding',
      (c: any) => (c.chains.base.gasTopUp.from = 'optimism:USDC'),
      'chains.base.gasTopUp.from: optimism:USDC is not a holding under assets:; name one as <chain>:<asset>[:<wallet>] (configured: base:USDC:treasury, arbitrum:USDC:treasury, base:ETH:treasury)',
    ],
    [
      'from naming a wallet that does not hold it',
      (c: any) => (c.chains.base.gasTopUp.from = 'arbitrum:USDC:cold'),
      'chains.base.gasTopUp.from: arbitrum:USDC:cold is not a holding under assets:; name one as <chain>:<asset>[:<wallet>] (configured: base:USDC:treasury, arbitrum:USDC:treasury, base:ETH:treasury)',
    ],
    [
      "from naming the chain's own native token",
      (c: any) => (c.chains.base.gasTopUp.from = 'base:ETH'),
      "chains.base.gasTopUp.from: base:ETH is base's own native token, which the top-up buys; name a holding on another chain or of another token",
    ],
    [
      'an amount of 0',
      (c: any) => (c.chains.base.gasTopUp.amount = '0'),
      'chains.base.gasTopUp.amount: must be above 0: what one top-up pays, in whole units of the source asset',
    ],
    [
      'a minOut of 0',
      (c: any) => (c.chains.base.gasTopUp.minOut = '0.0'),
      'chains.base.gasTopUp.minOut: must be above 0: the least native token on base a top-up must guarantee (your price floor)',
    ],
    [
      'a minOut finer than the native token',
      (c: any) => (c.chains.base.gasTopUp.minOut = '0.0000000000000000001'),
      "chains.base.gasTopUp.minOut: 0.0000000000000000001 has more than 18 fractional digits (the native token's decimals); round it",
    ],
    [
      'an amount finer than the pinned decimals',
      (c: any) => (c.chains.base.gasTopUp.amount = '1.0000001'),
      'chains.base.gasTopUp.amount: 1.0000001 has more than 6 fractional digits (the decimals of arbitrum:USDC); round it',
    ],
    [
      "an amount above the asset's maxTransfer",
      (c: any) => (c.chains.base.gasTopUp.amount = '50000.5'),
      'chains.base.gasTopUp.amount: 50000.5 USDC is above policy.maxTransfer (50000); lower it or raise the limit',
    ],
    [
      'an amount above a per-asset maxTransfer',
      (c: any) => (c.policy.transferLimits = { USDC: { minTransfer: '1', maxTransfer: '20' } }),
      'chains.base.gasTopUp.amount: 25 USDC is above policy.transferLimits.USDC.maxTransfer (20); lower it or raise the limit',
    ],
    [
      'a chain where no wallet holds anything',
      (c: any) => {
        c.chains.optimism = {
          chainId: 10,
          rpcUrl: 'https://op.example/rpc',
          minGasBalance: '0.01',
          gasTopUp: { from: 'arbitrum:USDC', amount: '25', minOut: '0.006' },
        };
      },
      'chains.optimism.gasTopUp: no wallet holds an asset on optimism, so no signer there is read or topped up; add a holding on optimism or remove gasTopUp',
    ],
  ])('%s is refused in one line naming the path', (_name, change, line) => {
    const c = topUpConfig();
    change(c);
    expect(issueLines(loadErrorIn(tmp, c, ENV))).toEqual([line]);
  });

  it('asks for a wallet when several hold the source asset on that chain', () => {
    const c = topUpConfig();
    c.wallets.ops = { vm: 'evm', privateKey: '${OPS_KEY}', address: KEY2_ADDRESS };
    c.assets.USDC.push({ chain: 'arbitrum', currency: c.assets.USDC[1].currency, wallet: 'ops', min: '1', target: '2', max: '3' });
    expect(issueLines(loadErrorIn(tmp, c, { ...ENV, OPS_KEY: KEY2 }))).toEqual([
      'chains.base.gasTopUp.from: 2 wallets hold USDC on arbitrum; name one as arbitrum:USDC:<wallet> (treasury, ops)',
    ]);
    c.chains.base.gasTopUp.from = 'arbitrum:USDC:ops';
    expect(loadConfig(tmp.write(c), { ...ENV, OPS_KEY: KEY2 }).chains.base?.gasTopUp?.from).toEqual({
      chain: 'arbitrum',
      asset: 'USDC',
      wallet: 'ops',
    });
  });

  it('accepts a source of another token on the same chain', () => {
    const c = topUpConfig();
    c.chains.base.gasTopUp.from = 'base:USDC';
    expect(loadConfig(tmp.write(c), ENV).chains.base?.gasTopUp?.from).toEqual({ chain: 'base', asset: 'USDC', wallet: 'treasury' });
  });

  it('refuses a malformed from, amount or minOut naming the key and the form', () => {
    const c = topUpConfig();
    c.chains.base.gasTopUp = { from: 'arbitrum', amount: 25, minOut: '0.006', extra: 1 };
    const lines = issueLines(loadErrorIn(tmp, c, ENV)).join('\n');
    expect(lines).toMatch(/chains\.base\.gasTopUp\.from: expected a holding under assets: as <chain>:<asset> or <chain>:<asset>:<wallet>/);
    expect(lines).toMatch(/chains\.base\.gasTopUp\.amount: write amount as a quoted decimal string/);
    expect(lines).toMatch(/chains\.base\.gasTopUp\.extra: unknown key/);
  });
});
